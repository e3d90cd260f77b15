#define TORCH_ASSERT_NO_OPERATORS
#include <ATen/native/BinaryOps.h>

#include <ATen/AccumulateType.h>
#include <ATen/Dispatch.h>
#include <ATen/native/DispatchStub.h>
#include <ATen/native/TensorIterator.h>
#include <c10/util/TypeSafeSignMath.h>
#include <c10/util/generic_math.h>
#include <ATen/native/cuda/Loops.cuh>

#include <type_traits>

namespace at::native {

// divmod(a, b) is (floor_divide(a, b), remainder(a, b)): each output as those
// kernels compute it (c10::div_floor_integer / c10::div_floor_floating, and
// remainder's fmod with the sign correction, Half and BFloat16 in float), one
// launch writing both.
template <typename scalar_t>
C10_HOST_DEVICE thrust::tuple<scalar_t, scalar_t> divmod_element(
    scalar_t a_,
    scalar_t b_) __ubsan_ignore_float_divide_by_zero__ {
  if constexpr (std::is_integral_v<scalar_t>) {
    scalar_t remainder = b_ == 0 ? scalar_t(0) : scalar_t(a_ % b_);
    if (remainder != 0 && c10::is_negative(remainder) != c10::is_negative(b_)) {
      remainder += b_;
    }
    return {c10::div_floor_integer(a_, b_), remainder};
  } else {
    using accscalar_t = at::acc_type<scalar_t, /*is_cuda=*/true>;
    const auto a = static_cast<accscalar_t>(a_);
    const auto b = static_cast<accscalar_t>(b_);
    auto mod = ::fmod(a, b);
    if ((mod != 0) && ((b < 0) != (mod < 0))) {
      mod += b;
    }
    return {
        static_cast<scalar_t>(c10::div_floor_floating(a, b)),
        static_cast<scalar_t>(mod)};
  }
}

// A CPU scalar operand (the Scalar overloads' wrapped number) is read on the
// host and captured, as gpu_kernel_with_scalars does for one output.
template <typename scalar_t>
void divmod_kernel_impl(TensorIteratorBase& iter) {
  if (iter.is_cpu_scalar(3)) {
    const auto b = iter.scalar_value<scalar_t>(3);
    iter.remove_operand(3);
    gpu_kernel_multiple_outputs(
        iter, [b] GPU_LAMBDA(scalar_t a) -> thrust::tuple<scalar_t, scalar_t> {
          return divmod_element(a, b);
        });
  } else if (iter.is_cpu_scalar(2)) {
    const auto a = iter.scalar_value<scalar_t>(2);
    iter.remove_operand(2);
    gpu_kernel_multiple_outputs(
        iter, [a] GPU_LAMBDA(scalar_t b) -> thrust::tuple<scalar_t, scalar_t> {
          return divmod_element(a, b);
        });
  } else {
    gpu_kernel_multiple_outputs(
        iter,
        [] GPU_LAMBDA(
            scalar_t a, scalar_t b) -> thrust::tuple<scalar_t, scalar_t> {
          return divmod_element(a, b);
        });
  }
}

void divmod_kernel_cuda(TensorIteratorBase& iter) {
  const auto dtype = iter.common_dtype();
  if (isIntegralType(dtype, /*includeBool=*/false)) {
    AT_DISPATCH_INTEGRAL_TYPES(
        dtype, "divmod_cuda", [&]() { divmod_kernel_impl<scalar_t>(iter); });
  } else {
    AT_DISPATCH_FLOATING_TYPES_AND2(
        kHalf, kBFloat16, dtype, "divmod_cuda", [&]() {
          divmod_kernel_impl<scalar_t>(iter);
        });
  }
}

REGISTER_DISPATCH(divmod_stub, &divmod_kernel_cuda)

} // namespace at::native

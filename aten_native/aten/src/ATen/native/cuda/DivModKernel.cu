#define TORCH_ASSERT_NO_OPERATORS
#include <ATen/native/BinaryOps.h>

#include <ATen/AccumulateType.h>
#include <ATen/Dispatch.h>
#include <ATen/native/DispatchStub.h>
#include <ATen/native/TensorIterator.h>
#include <ATen/native/cuda/DivMod.cuh>
#include <ATen/native/cuda/Loops.cuh>

#include <type_traits>

namespace at::native {

// See NOTE: [divmod on CUDA is floor_divide and remainder]
template <typename scalar_t>
C10_HOST_DEVICE thrust::tuple<scalar_t, scalar_t> divmod_element(
    scalar_t a,
    scalar_t b) {
  return {divmod_quotient(a, b), divmod_remainder(a, b)};
}

// A CPU scalar operand (the Scalar overloads' wrapped number) is read on the
// host and captured, as gpu_kernel_with_scalars does for one output. A
// floating divisor is also read in accscalar_t for floor_divide's reciprocal.
template <typename scalar_t>
void divmod_kernel_impl(TensorIteratorBase& iter) {
  if (iter.is_cpu_scalar(3)) {
    const auto b = iter.scalar_value<scalar_t>(3);
    if constexpr (std::is_integral_v<scalar_t>) {
      iter.remove_operand(3);
      gpu_kernel_multiple_outputs(
          iter,
          [b] GPU_LAMBDA(scalar_t a) -> thrust::tuple<scalar_t, scalar_t> {
            return divmod_element(a, b);
          });
    } else {
      using accscalar_t = at::acc_type<scalar_t, /*is_cuda=*/true>;
      const auto b_acc = iter.scalar_value<accscalar_t>(3);
      const auto inv_b = accscalar_t(1.0) / b_acc;
      iter.remove_operand(3);
      gpu_kernel_multiple_outputs(
          iter,
          [b, b_acc, inv_b] GPU_LAMBDA(
              scalar_t a) -> thrust::tuple<scalar_t, scalar_t> {
            return {
                divmod_quotient_by_scalar(a, b_acc, inv_b),
                divmod_remainder(a, b)};
          });
    }
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

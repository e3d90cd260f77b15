#define TORCH_ASSERT_NO_OPERATORS
#include <ATen/native/UnaryOps.h>

#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/native/DispatchStub.h>
#include <ATen/native/TensorIterator.h>
#include <ATen/native/cuda/Loops.cuh>

#include <cuda_fp16.h>

namespace at::native {

namespace {

void cbrt_kernel_cuda(TensorIteratorBase& iter) {
  if (iter.common_dtype() == kHalf) {
    // Half cube roots come within 2^-26.5 of a rounding midpoint: through
    // float (cbrtf is within 1 ulp) they could round wrongly, or twice.
    gpu_kernel(iter, [] GPU_LAMBDA(Half a) -> Half {
      return __double2half(::cbrt(static_cast<double>(a)));
    });
    return;
  }
  // bfloat16 cube roots stay 2^-19.4 away from a midpoint: float suffices.
  AT_DISPATCH_FLOATING_TYPES_AND(
      ScalarType::BFloat16, iter.common_dtype(), "cbrt_cuda", [&]() {
        using opmath_t = at::opmath_type<scalar_t>;
        gpu_kernel(iter, [] GPU_LAMBDA(scalar_t a) -> scalar_t {
          return ::cbrt(static_cast<opmath_t>(a));
        });
      });
}

} // namespace

REGISTER_DISPATCH(cbrt_stub, &cbrt_kernel_cuda)

} // namespace at::native

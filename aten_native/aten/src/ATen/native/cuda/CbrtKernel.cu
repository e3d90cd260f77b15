#define TORCH_ASSERT_NO_OPERATORS
#include <ATen/native/UnaryOps.h>

#include <ATen/Dispatch.h>
#include <ATen/native/DispatchStub.h>
#include <ATen/native/TensorIterator.h>
#include <c10/util/cbrt.h>
#include <ATen/native/cuda/Loops.cuh>

namespace at::native {

namespace {

// The CPU kernel's algorithm, element by element: the same bits as the CPU
// (NOTE: [Portable cube root] in c10/util/cbrt.h). Each dtype
// computes in its own precision, half and bfloat16 in float.
void cbrt_kernel_cuda(TensorIteratorBase& iter) {
  AT_DISPATCH_FLOATING_TYPES_AND2(
      kHalf, kBFloat16, iter.common_dtype(), "cbrt_cuda", [&]() {
        gpu_kernel(iter, [] GPU_LAMBDA(scalar_t a) -> scalar_t {
          if constexpr (std::is_same_v<scalar_t, Half>) {
            return c10::cbrt_portable_half(static_cast<float>(a));
          } else if constexpr (std::is_same_v<scalar_t, BFloat16>) {
            return c10::cbrt_portable_bfloat16(static_cast<float>(a));
          } else {
            return c10::cbrt_portable(a);
          }
        });
      });
}

} // namespace

REGISTER_DISPATCH(cbrt_stub, &cbrt_kernel_cuda)

} // namespace at::native

#define TORCH_ASSERT_NO_OPERATORS
#include <ATen/native/UnaryOps.h>

#include <ATen/Dispatch.h>
#include <ATen/cpu/vec/cbrt_algorithm.h>
#include <ATen/cpu/vec/vec.h>
#include <ATen/native/TensorIterator.h>
#include <ATen/native/cpu/Loops.h>

namespace at::native {
inline namespace CPU_CAPABILITY {
namespace {

// cbrt_scalar gives the bits of Vectorized<scalar_t>::cbrt() for one element
// (strided inputs, loop tails); see NOTE: [Portable cube root] in
// ATen/cpu/vec/cbrt_algorithm.h.
void cbrt_kernel(TensorIteratorBase& iter) {
  AT_DISPATCH_FLOATING_TYPES_AND2(
      kBFloat16, kHalf, iter.common_dtype(), "cbrt_cpu", [&]() {
        cpu_kernel_vec(
            iter,
            [](scalar_t a) -> scalar_t {
              return vec::cbrt_detail::cbrt_scalar(a);
            },
            [](Vectorized<scalar_t> a) { return a.cbrt(); });
      });
}

} // namespace
} // namespace CPU_CAPABILITY

ALSO_REGISTER_AVX512_DISPATCH(cbrt_stub, &cbrt_kernel)

} // namespace at::native

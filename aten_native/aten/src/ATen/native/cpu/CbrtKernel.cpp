#define TORCH_ASSERT_NO_OPERATORS
#include <ATen/native/UnaryOps.h>

#include <ATen/Dispatch.h>
#include <ATen/cpu/vec/vec.h>
#include <ATen/native/TensorIterator.h>
#include <ATen/native/cpu/Loops.h>
#include <c10/util/cbrt.h>

namespace at::native {
inline namespace CPU_CAPABILITY {
namespace {

// The bits of Vectorized<scalar_t>::cbrt() for one element (strided inputs,
// loop tails); see NOTE: [Portable cube root] in c10/util/cbrt.h.
template <typename scalar_t>
scalar_t cbrt_scalar(scalar_t a) {
  if constexpr (std::is_same_v<scalar_t, Half>) {
    return static_cast<Half>(c10::cbrt_portable_half(static_cast<float>(a)));
  } else if constexpr (std::is_same_v<scalar_t, BFloat16>) {
    return static_cast<BFloat16>(
        c10::cbrt_portable_bfloat16(static_cast<float>(a)));
  } else {
    return c10::cbrt_portable(a);
  }
}

void cbrt_kernel(TensorIteratorBase& iter) {
  AT_DISPATCH_FLOATING_TYPES_AND2(
      kBFloat16, kHalf, iter.common_dtype(), "cbrt_cpu", [&]() {
        cpu_kernel_vec(
            iter,
            [](scalar_t a) -> scalar_t { return cbrt_scalar(a); },
            [](Vectorized<scalar_t> a) { return a.cbrt(); });
      });
}

} // namespace
} // namespace CPU_CAPABILITY

ALSO_REGISTER_AVX512_DISPATCH(cbrt_stub, &cbrt_kernel)

} // namespace at::native

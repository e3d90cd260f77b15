#pragma once

#include <ATen/native/DispatchStub.h>
#include <c10/macros/Macros.h>
#include <c10/util/Optional.h>

#include <cmath>

namespace at {
class TensorBase;
struct TensorIteratorBase;
} // namespace at

namespace c10 {
class Scalar;
}

namespace at::native {

// result: (R, M), contiguous. x: (R or 1, M), xp and fp: (R or 1, N),
// contiguous; a tensor with one row is shared by every row of the result. x and
// xp hold the real type of the result's dtype (float for a complex<float>
// result), fp the result's dtype. left and right: the values below xp[0] and
// above xp[N-1], fp[0] and fp[N-1] when empty.
using interp_fn = void (*)(
    const TensorBase& result,
    const TensorBase& x,
    const TensorBase& xp,
    const TensorBase& fp,
    const std::optional<c10::Scalar>& left,
    const std::optional<c10::Scalar>& right);
// x mod period into [0, period), as numpy.remainder(x, period) for period > 0.
using interp_period_fn = void (*)(TensorIteratorBase& iter, double period);

DECLARE_DISPATCH(interp_fn, interp_stub)
DECLARE_DISPATCH(interp_period_fn, interp_period_stub)

// numpy.remainder(value, period) for period > 0, as numpy's npy_divmod computes
// it: the exact fmod, period added to a negative remainder, and +0 for a zero
// one (fmod's zero has the sign of value).
template <typename scalar_t>
C10_HOST_DEVICE inline scalar_t interp_period_remainder(
    scalar_t value,
    scalar_t period) {
  scalar_t mod = std::fmod(value, period);
  if (mod != 0) {
    if (mod < 0) {
      mod += period;
    }
  } else {
    mod = 0;
  }
  return mod;
}

} // namespace at::native

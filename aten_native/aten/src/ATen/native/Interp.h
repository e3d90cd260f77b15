#pragma once

#include <ATen/native/DispatchStub.h>
#include <c10/util/Optional.h>

namespace at {
class TensorBase;
} // namespace at

namespace c10 {
class Scalar;
}

namespace at::native {

// result: (R, M), contiguous. x: (X, M), xp and fp: (P, N) and (F, N),
// contiguous, each input's own rows (broadcasting copies none). row_index:
// where defined, (R, 3) int64, contiguous, the row of x, xp and fp that each
// row of the result reads; where undefined, an input of one row is read by
// every row of the result and one of R rows row by row. x and xp hold the real
// type of the result's dtype (float for a complex<float> result), fp the
// result's dtype. left and right: the values below xp[0] and above xp[N-1],
// fp[0] and fp[N-1] when empty.
using interp_fn = void (*)(
    const TensorBase& result,
    const TensorBase& x,
    const TensorBase& xp,
    const TensorBase& fp,
    const TensorBase& row_index,
    const std::optional<c10::Scalar>& left,
    const std::optional<c10::Scalar>& right);

DECLARE_DISPATCH(interp_fn, interp_stub)

} // namespace at::native

#pragma once

// The cube root of Vectorized<T>::cbrt() (vec_cbrt.h): one algorithm over an
// Ops class, and its scalar form cbrt_detail::cbrt_scalar for single elements
// (the CPU kernel's strided inputs and loop tails, Inductor's scalar C++).
// Apart from vec_cbrt.h because it does not need Vectorized: Inductor's
// cpp_prefix.h includes it where it does not include vec.h.
//
// Everything is inside CPU_CAPABILITY, as the rest of the vec code: each
// capability's objects define their own copies, so the linker cannot give
// one capability's kernel a function compiled for another (at -O0 nothing is
// inlined). The namespace is cbrt_detail, not detail: an
// at::vec::CPU_CAPABILITY::detail would hide at::detail from the detail::
// names of functional_base.h.

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <c10/util/bit_cast.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace at::vec {
inline namespace CPU_CAPABILITY {
namespace cbrt_detail {

// NOTE: [Portable cube root]
// Vectorized<T>::cbrt() gives the same bits on every CPU capability and CPU
// architecture, and cbrt_scalar() gives the bits of each of its lanes: both
// instantiate the templates below, with vector or scalar operations. Every
// product that feeds a sum is an explicit fused multiply-add, so
// floating-point contraction cannot change a result; the other operations are
// exact or correctly rounded IEEE operations. Zeros keep their sign,
// cbrt(+-inf) = +-inf, NaN gives NaN (its payload is unspecified).
//
// float, error <= 0.735 ulp on every input (bound: 0.5 + 1/3 ulp + 2^-32):
//   1. r ~= ax^(-1/3) from the bit pattern: bits(r) = K - bits(ax) / 3, the
//      division in floating point; relative error <= 3.5e-2 for normal ax.
//   2. q = r^2 (1 + h P(h)), h = 1 - ax r^3, P the minimax fit of
//      ((1 - h)^(-2/3) - 1) / h on the range of h that step 1 leaves:
//      q ~= ax^(-2/3), relative error 2^-16.8 with a quadratic P.
//   3. y = x q, then one Newton step on the residual: with s = (y^3 - x) q,
//      cbrt(x) = y - s / 3 + O(2^-32 y); s is evaluated as
//      y (y^2 q - 1) - (x q - y), x q - y being the exact rounding error of
//      y, so no term underflows even when denormals are flushed.
//   Subnormal inputs are scaled by 2^24 and their results by 2^-8 (exact).
// bfloat16, correctly rounded: no bfloat16 has its cube root within 2^-19.4
//   (relative) of a midpoint between two bfloat16 values, and y = x q with a
//   cubic P (2^-21.2) is within 2^-21 of it: y rounds as cbrt(x) does.
// half, correctly rounded: half cube roots come within 2^-26.5 of a
//   midpoint, so y (linear P, 2^-12.8) only selects the candidate midpoint m,
//   which has 12 significant bits: m^2 is exact and the sign of the fused
//   m^2 m - ax says on which side of m the cube root lies.
// double, error <= 0.67 ulp (0.5 ulp + 2^-53 / 3):
//   1. as for float, on the high word, with 2^52 as the int/double offset;
//   2. r <- r (1 + h P(h)) with P the cubic minimax fit of
//      ((1 - h)^(-1/3) - 1) / h: relative error <= 2^-22.8;
//   3. y0 = ax r^2 rounded once, h = 1 - y0 r, and
//      y = y0 (1 - h)^(-2/3) = y0 (1 + 2h/3 + 5h^2/9) + O(2^-64 y).
//   Subnormal inputs are scaled by 2^300, refined by a cubic step and a
//   Newton step on an fma-exact residual (error <= 0.5 ulp + 2^-100), and
//   scaled back by 2^-100.

// The operations of the algorithm on one float or double.
template <typename T>
struct ScalarOps {
  using F = T;
  using I = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;

  static T fma(T a, T b, T c) {
    return std::fma(a, b, c);
  }
  static T fms(T a, T b, T c) {
    return fma(a, b, -c);
  }
  static T fnma(T a, T b, T c) {
    return fma(-a, b, c);
  }
  static T mul(T a, T b) {
    return a * b;
  }
  static I bits(T a) {
    return c10::bit_cast<I>(a);
  }
  static T from_bits(I a) {
    return c10::bit_cast<T>(a);
  }
  // Only called on values that convert exactly, or rounded to nearest.
  static T to_float(I a) {
    return static_cast<T>(a);
  }
  static I to_int(T a) {
    return static_cast<I>(a);
  }
  // value where v < 0, else 0.
  static I if_negative(T v, I value) {
    return v < T(0) ? value : I(0);
  }
  static T abs(T a) {
    return from_bits(bits(a) & std::numeric_limits<I>::max());
  }
  // magnitude (sign bit clear) with the sign of x.
  static T with_sign_of(T magnitude, T x) {
    return from_bits(
        bits(magnitude) | (bits(x) & std::numeric_limits<I>::min()));
  }
};

// Step 1 for float: r ~= ax^(-1/3) for normal ax, finite for ax = 0. The
// subtraction result is an integer above 2^29, so its conversion is exact.
template <typename Ops, typename F = typename Ops::F>
inline F rcbrt_estimate_float(const F& ax) {
  const F k = Ops::fnma(
      Ops::to_float(Ops::bits(ax)), F(1.0f / 3), F(float(0x54a21400)));
  return Ops::from_bits(Ops::to_int(k));
}

// Step 2 for float: returns h = 1 - ax r^3 and sets r2 = r^2.
template <typename Ops, typename F = typename Ops::F>
inline F rcbrt_residual_float(const F& ax, F& r2) {
  const F r = rcbrt_estimate_float<Ops>(ax);
  r2 = Ops::mul(r, r);
  return Ops::fnma(Ops::mul(ax, r), r2, F(1.0f));
}

// Minimax coefficients of P for -0.1042 <= h <= 0.1007 (see the note).
template <typename Ops, typename F = typename Ops::F>
inline F rcbrt_squared_float(const F& ax) {
  F r2;
  const F h = rcbrt_residual_float<Ops>(ax, r2);
  const F p =
      Ops::fma(Ops::fma(F(0.49508795f), h, F(0.5595013f)), h, F(0.6666749f));
  return Ops::fma(Ops::mul(r2, h), p, r2);
}

template <typename Ops, typename F = typename Ops::F>
inline F rcbrt_squared_bfloat16(const F& ax) {
  F r2;
  const F h = rcbrt_residual_float<Ops>(ax, r2);
  const F p = Ops::fma(
      Ops::fma(Ops::fma(F(0.45505267f), h, F(0.49936113f)), h, F(0.55556047f)),
      h,
      F(0.6666524f));
  return Ops::fma(Ops::mul(r2, h), p, r2);
}

// P has odd degree: for an infinite input P(-inf) = -inf makes q = +inf.
template <typename Ops, typename F = typename Ops::F>
inline F rcbrt_squared_half(const F& ax) {
  F r2;
  const F h = rcbrt_residual_float<Ops>(ax, r2);
  const F p = Ops::fma(F(0.5574942f), h, F(0.67054576f));
  return Ops::fma(Ops::mul(r2, h), p, r2);
}

// cbrt(x) within 0.74 ulp for normal or zero x, ax = |x|.
template <typename Ops, typename F = typename Ops::F>
inline F cbrt_float_normal(const F& x, const F& ax) {
  const F q = rcbrt_squared_float<Ops>(ax);
  const F y = Ops::mul(x, q);
  const F s =
      Ops::fms(y, Ops::fms(Ops::mul(y, y), q, F(1.0f)), Ops::fms(x, q, y));
  return Ops::fnma(s, F(1.0f / 3), y);
}

// A float that rounds to the same bfloat16 as cbrt(x), for normal or zero x.
template <typename Ops, typename F = typename Ops::F>
inline F cbrt_bfloat16_normal(const F& x, const F& ax) {
  return Ops::mul(x, rcbrt_squared_bfloat16<Ops>(ax));
}

// y rounded to bfloat16, half away from zero (y is never halfway).
template <typename Ops, typename F = typename Ops::F>
inline F round_to_bfloat16(const F& y) {
  using I = typename Ops::I;
  return Ops::from_bits(
      (Ops::bits(y) + I(0x8000)) & I(static_cast<int32_t>(0xffff0000)));
}

// Step 3 of the float cube root, or with kBFloat16 of the bfloat16 one (a
// float that rounds to the same bfloat16 as cbrt(x)), for normal or zero x.
template <bool kBFloat16, typename Ops, typename F = typename Ops::F>
inline F cbrt_float_or_bfloat16_normal(const F& x, const F& ax) {
  if constexpr (kBFloat16) {
    return cbrt_bfloat16_normal<Ops>(x, ax);
  } else {
    return cbrt_float_normal<Ops>(x, ax);
  }
}

// cbrt_float_or_bfloat16_normal on every float: subnormal x is scaled by
// 2^24 and its result by 2^-8, both exactly; infinities and NaNs are returned
// as they are.
template <bool kBFloat16>
inline float cbrt_float_or_bfloat16(float x) {
  using Ops = ScalarOps<float>;
  const float ax = Ops::abs(x);
  if (!(ax <= std::numeric_limits<float>::max())) {
    return x;
  }
  if (ax < std::numeric_limits<float>::min()) {
    const float scaled = Ops::mul(x, 0x1p24f);
    return Ops::mul(
        cbrt_float_or_bfloat16_normal<kBFloat16, Ops>(scaled, Ops::abs(scaled)),
        0x1p-8f);
  }
  return cbrt_float_or_bfloat16_normal<kBFloat16, Ops>(x, ax);
}

// The cube root of a half value x (widened to float), rounded to half.
// Infinities and NaNs pass through: y is then inf or NaN, which the rounding
// keeps (a NaN widened from half has payload bits above those it clears).
template <typename Ops, typename F = typename Ops::F>
inline F cbrt_half(const F& x) {
  using I = typename Ops::I;
  const F ax = Ops::abs(x);
  const F y = Ops::mul(ax, rcbrt_squared_half<Ops>(ax));
  // The half value below y and the midpoint above it.
  const I below = Ops::bits(y) & I(-0x2000);
  const F mid = Ops::from_bits(below | I(0x1000));
  const I up =
      Ops::if_negative(Ops::fms(Ops::mul(mid, mid), mid, ax), I(0x2000));
  return Ops::with_sign_of(Ops::from_bits(below + up), x);
}

// Step 1 for double, on the high word: r ~= ax^(-1/3) for normal ax.
// u = 2^52 + K - hi / 3, rounded to an integer by the magnitude of 2^52.
template <typename Ops, typename F = typename Ops::F>
inline F rcbrt_estimate_double(const F& ax) {
  using I = typename Ops::I;
  const F high_word =
      Ops::from_bits((Ops::bits(ax) >> I(32)) | I(INT64_C(0x4330000000000000)));
  const F u = Ops::fnma(
      high_word, F(1.0 / 3), F(double(0x553eec00) + 0x1p52 + 0x1p52 / 3));
  return Ops::from_bits(Ops::bits(u) << I(32));
}

// Step 2 for double: r (1 + h P(h)) with h = 1 - ax r^3.
template <typename Ops, typename F = typename Ops::F>
inline F rcbrt_step_double(const F& ax, const F& r) {
  const F h = Ops::fnma(Ops::mul(ax, r), Ops::mul(r, r), F(1.0));
  const F p = Ops::fma(
      Ops::fma(
          Ops::fma(F(0.14508438305119006), h, F(0.17450459715425)),
          h,
          F(0.22222074751659837)),
      h,
      F(0.33332884457414264));
  return Ops::fma(Ops::mul(r, h), p, r);
}

// cbrt(ax) within 0.67 ulp for normal or zero ax >= 0.
template <typename Ops, typename F = typename Ops::F>
inline F cbrt_double_normal(const F& ax) {
  const F r = rcbrt_step_double<Ops>(ax, rcbrt_estimate_double<Ops>(ax));
  const F r2 = Ops::mul(r, r);
  // y0 = ax r^2 with a single rounding.
  const F y0 = Ops::fma(ax, r2, Ops::mul(ax, Ops::fms(r, r, r2)));
  const F h = Ops::fnma(y0, r, F(1.0));
  return Ops::fma(Ops::mul(y0, h), Ops::fma(h, F(5.0 / 9), F(2.0 / 3)), y0);
}

// cbrt(a) within 0.5 ulp + 2^-100 for normal a >= 2^-800 (a scaled
// subnormal).
template <typename Ops, typename F = typename Ops::F>
inline F cbrt_double_accurate(const F& a) {
  F r = rcbrt_step_double<Ops>(a, rcbrt_estimate_double<Ops>(a));
  // Cubic step: 2^-22.8 -> ~2^-64.
  const F h = Ops::fnma(Ops::mul(a, r), Ops::mul(r, r), F(1.0));
  r = Ops::fma(Ops::mul(r, h), Ops::fma(h, F(2.0 / 9), F(1.0 / 3)), r);
  // Newton step y -= (y^3 - a) r^2 / 3, y^3 - a exact up to its rounding.
  const F r2 = Ops::mul(r, r);
  const F y = Ops::mul(a, r2);
  const F y2 = Ops::mul(y, y);
  const F residual = Ops::fma(Ops::fms(y, y, y2), y, Ops::fms(y2, y, a));
  return Ops::fnma(residual, Ops::mul(r2, F(1.0 / 3)), y);
}

// Real cube root; see NOTE: [Portable cube root]. The scalar form of
// Vectorized<T>::cbrt(): the same bits as each of its lanes.
inline float cbrt_scalar(float x) {
  return cbrt_float_or_bfloat16<false>(x);
}

inline double cbrt_scalar(double x) {
  using Ops = ScalarOps<double>;
  const double ax = Ops::abs(x);
  if (!(ax <= std::numeric_limits<double>::max())) {
    return x;
  }
  if (ax < std::numeric_limits<double>::min() && ax != 0) {
    const double y = cbrt_double_accurate<Ops>(Ops::mul(ax, 0x1p300));
    return Ops::with_sign_of(Ops::mul(y, 0x1p-100), x);
  }
  return Ops::with_sign_of(cbrt_double_normal<Ops>(ax), x);
}

// Correctly rounded, computed in float: the float result is a half value,
// which the conversion keeps.
inline c10::Half cbrt_scalar(c10::Half x) {
  return static_cast<c10::Half>(
      cbrt_half<ScalarOps<float>>(static_cast<float>(x)));
}

// Correctly rounded, computed in float: the float result is a bfloat16
// value, which the conversion keeps. The rounding keeps infinities and the
// NaNs widened from bfloat16 (their low 16 bits are 0).
inline c10::BFloat16 cbrt_scalar(c10::BFloat16 x) {
  return static_cast<c10::BFloat16>(round_to_bfloat16<ScalarOps<float>>(
      cbrt_float_or_bfloat16<true>(static_cast<float>(x))));
}

} // namespace cbrt_detail
} // namespace CPU_CAPABILITY
} // namespace at::vec

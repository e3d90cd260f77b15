#define TORCH_ASSERT_NO_OPERATORS
#include <ATen/native/UnaryOps.h>

#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <utility>

#include <ATen/Dispatch.h>
#include <ATen/cpu/vec/functional.h>
#include <ATen/cpu/vec/vec.h>
#include <ATen/native/TensorIterator.h>
#include <ATen/native/cpu/Loops.h>
#include <c10/util/BFloat16-math.h>
#include <c10/util/bit_cast.h>

namespace at::native {
inline namespace CPU_CAPABILITY {
namespace {

using namespace vec;

#if defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)

// Vectorized real cube root, division-free.
//
// float, error <= 0.84 ulp (0.5 ulp + 1/3 ulp + 2^-32):
//   1. r ~= |x|^(-1/3) from the bit pattern: bits(r) = K - bits(|x|) / 3,
//      the division done in floating point; relative error <= 3.5e-2, only
//      valid for normal |x|.
//   2. q = r^2 (1 + h P(h)), h = 1 - |x| r^3, where P is the minimax fit of
//      ((1 - h)^(-2/3) - 1) / h on the range of h left by step 1, quadratic:
//      q ~= |x|^(-2/3) with relative error <= 2^-16.8.
//   3. y = x q, then one Newton step on the residual: with s = (y^3 - x) q,
//      cbrt(x) = y - s / 3 + O(2^-32 y). s is evaluated as
//      y (y^2 q - 1) - (x q - y), x q - y being the exact rounding error of
//      y, so no term underflows; rounding y^2 costs at most 1/3 ulp, the
//      final rounding 1/2 ulp.
//   Subnormals, infinities and NaNs take cbrt_accurate(), which evaluates
//   the double path below on the widened input (error ~1.2 * 2^-53).
//   Correct rounding would need y^2 and the result as float pairs and a
//   rounding test: about a third more instructions.
//
// bfloat16 and half are correctly rounded, from y = x q of step 3:
//   bfloat16: cbrt(x) of a bfloat16 x is never within 2^-19.4 (relative) of
//     the midpoint between two bfloat16 values; with a cubic P, y is within
//     2^-21 of cbrt(x), so y rounds as cbrt(x) does.
//   half: cbrt(x) comes within 2^-26.5 of such a midpoint, so y (here from
//     a linear P, error <= 2^-12.8) only selects the candidate midpoint m,
//     which has 12 significant bits: m^2 is exact and the sign of the fma
//     m^2 m - |x| tells on which side cbrt(x) lies.
//   Both were checked on all 2^16 inputs.
//
// double, error <= 0.84 ulp (0.5 ulp + 2^-53 / 3):
//   1. as for float, on the high word, with 2^52 as the int/double offset;
//   2. one step r <- r (1 + h P(h)) with P the minimax fit of
//      ((1 - h)^(-1/3) - 1) / h: relative error <= 2^-22.8;
//   3. y0 = |x| r^2 rounded once, h = 1 - y0 r, and
//      y = y0 (1 - h)^(-2/3) = y0 (1 + 2h/3 + 5h^2/9) + O(2^-64 y).
//      h measures the rounding of y0, so only a third of it remains.
//   Subnormals, infinities and NaNs take cbrt_accurate(), which scales tiny
//   inputs by 2^300 and ends with a Newton step on an fma-exact residual
//   (error <= 0.5 ulp + 2^-100).
//
// Zeros keep their sign.

// K of step 1, as the integer value of a bit pattern (of a float, and of the
// high word of a double).
constexpr float kFloatMagic = 0x54a21400;
constexpr double kDoubleMagic = 0x553eec00;
// Minimax coefficients of P, for -0.1042 <= h <= 0.1007, each of the lowest
// degree its dtype allows: relative error 2^-16.8 for float, 2^-21.2 for
// bfloat16, 2^-12.8 for half.
constexpr float kFloatStep[] = {0.6666749f, 0.5595013f, 0.49508795f};
constexpr float kBFloat16Step[] = {
    0.6666524f,
    0.55556047f,
    0.49936113f,
    0.45505267f};
constexpr float kHalfStep[] = {0.67054576f, 0.5574942f};
// cbrt_for_half() relies on an odd degree: P(-inf) = -inf makes q = +inf
// for an infinite input.
static_assert(std::size(kHalfStep) % 2 == 0);
constexpr double kDoubleStep[] = {
    0.33332884457414264,
    0.22222074751659837,
    0.17450459715425,
    0.14508438305119006};

// Bits of a half value's float below its last place, and its last place.
constexpr int32_t kHalfHalfUlp = 0x1000;
constexpr int32_t kHalfUlp = 0x2000;
// Bits of a bfloat16 value's float below its last place.
constexpr int32_t kBFloat16HalfUlp = 0x8000;

#if defined(CPU_CAPABILITY_AVX512)

// vfpclassps categories.
constexpr int kNaN = 0x81;
constexpr int kInfinity = 0x18;
constexpr int kSubnormal = 0x20;

inline std::pair<Vectorized<double>, Vectorized<double>> to_double(
    const Vectorized<float>& v) {
  const __m512 x = v;
  const __m256 hi =
      _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1));
  return {_mm512_cvtps_pd(_mm512_castps512_ps256(x)), _mm512_cvtps_pd(hi)};
}

inline Vectorized<float> to_float(
    const Vectorized<double>& lo,
    const Vectorized<double>& hi) {
  const __m256 l = _mm512_cvtpd_ps(lo);
  const __m256 h = _mm512_cvtpd_ps(hi);
  return _mm512_castpd_ps(_mm512_insertf64x4(
      _mm512_castps_pd(_mm512_castps256_ps512(l)), _mm256_castps_pd(h), 1));
}

inline __mmask16 special_lanes(const Vectorized<float>& x) {
  return _mm512_fpclass_ps_mask(x, kNaN | kInfinity | kSubnormal);
}

// Whether some lane is subnormal, infinite or NaN.
inline bool any_special(const Vectorized<float>& x) {
  return special_lanes(x) != 0;
}

// special where x is subnormal, infinite or NaN, result elsewhere.
inline Vectorized<float> where_special(
    const Vectorized<float>& x,
    const Vectorized<float>& special,
    const Vectorized<float>& result) {
  return _mm512_mask_blend_ps(special_lanes(x), result, special);
}

// The half value nearest to cbrt(ax), as a float, given y within 2^-12 of it
// (relative), ax >= 0: the midpoint m above the half value below y is the
// only one that can separate y from cbrt(ax).
inline Vectorized<float> round_cbrt_to_half(
    const Vectorized<float>& ax,
    const Vectorized<float>& y) {
  const __m512i below =
      _mm512_and_si512(_mm512_castps_si512(y), _mm512_set1_epi32(-kHalfUlp));
  const __m512 mid = _mm512_castsi512_ps(
      _mm512_or_si512(below, _mm512_set1_epi32(kHalfHalfUlp)));
  const __mmask16 up = _mm512_cmp_ps_mask(
      _mm512_fmsub_ps(_mm512_mul_ps(mid, mid), mid, ax),
      _mm512_setzero_ps(),
      _CMP_LT_OQ);
  return _mm512_castsi512_ps(
      _mm512_mask_add_epi32(below, up, below, _mm512_set1_epi32(kHalfUlp)));
}

// The floats of the even and of the odd bfloat16 elements of a.
inline std::pair<Vectorized<float>, Vectorized<float>> bfloat16_even_odd(
    const Vectorized<BFloat16>& a) {
  const __m512i v = a;
  return {
      _mm512_castsi512_ps(_mm512_slli_epi32(v, 16)),
      _mm512_castsi512_ps(_mm512_and_si512(
          v, _mm512_set1_epi32(static_cast<int32_t>(0xffff0000))))};
}

// The inverse of bfloat16_even_odd, rounding half away from zero: that is
// rounding to nearest for finite floats that are not halfway between two
// bfloat16 values.
inline Vectorized<BFloat16> bfloat16_from_even_odd(
    const Vectorized<float>& even,
    const Vectorized<float>& odd) {
  const __m512i half_ulp = _mm512_set1_epi32(kBFloat16HalfUlp);
  const __m512i low = _mm512_srli_epi32(
      _mm512_add_epi32(_mm512_castps_si512(even), half_ulp), 16);
  const __m512i high = _mm512_add_epi32(_mm512_castps_si512(odd), half_ulp);
  // (high & 0xffff0000) | low
  return _mm512_ternarylogic_epi32(
      high, _mm512_set1_epi32(static_cast<int32_t>(0xffff0000)), low, 0xea);
}

// Whether some lane has a nonzero subnormal, infinite or NaN |x|.
inline bool needs_accurate_path(const Vectorized<double>& ax) {
  const __mmask8 tiny = _mm512_cmp_pd_mask(
      ax, _mm512_set1_pd(std::numeric_limits<double>::min()), _CMP_LT_OQ);
  const __mmask8 subnormal =
      _mm512_mask_cmp_pd_mask(tiny, ax, _mm512_setzero_pd(), _CMP_NEQ_OQ);
  const __mmask8 special = _mm512_cmp_pd_mask(
      ax, _mm512_set1_pd(std::numeric_limits<double>::infinity()), _CMP_NLT_UQ);
  return (subnormal | special) != 0;
}

// 2^52 + (bits(a) >> 32), as a double.
inline Vectorized<double> high_word(const Vectorized<double>& a) {
  const __m512i bits = _mm512_srli_epi64(_mm512_castpd_si512(a), 32);
  return _mm512_castsi512_pd(
      _mm512_or_si512(bits, _mm512_set1_epi64(0x4330000000000000)));
}

// The double whose high word is the low word of bits(u), low word zero.
inline Vectorized<double> from_high_word(const Vectorized<double>& u) {
  return _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_castpd_si512(u), 32));
}

#else // CPU_CAPABILITY_AVX2

inline std::pair<Vectorized<double>, Vectorized<double>> to_double(
    const Vectorized<float>& v) {
  const __m256 x = v;
  return {
      _mm256_cvtps_pd(_mm256_castps256_ps128(x)),
      _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1))};
}

inline Vectorized<float> to_float(
    const Vectorized<double>& lo,
    const Vectorized<double>& hi) {
  const __m128 l = _mm256_cvtpd_ps(lo);
  const __m128 h = _mm256_cvtpd_ps(hi);
  return _mm256_insertf128_ps(_mm256_castps128_ps256(l), h, 1);
}

inline __m256 special_lanes(const Vectorized<float>& x) {
  const __m256 ax = x.abs();
  const __m256 nonfinite = _mm256_cmp_ps(
      ax, _mm256_set1_ps(std::numeric_limits<float>::infinity()), _CMP_NLT_UQ);
  const __m256 subnormal = _mm256_and_ps(
      _mm256_cmp_ps(
          ax, _mm256_set1_ps(std::numeric_limits<float>::min()), _CMP_LT_OQ),
      _mm256_cmp_ps(ax, _mm256_setzero_ps(), _CMP_NEQ_OQ));
  return _mm256_or_ps(nonfinite, subnormal);
}

inline bool any_special(const Vectorized<float>& x) {
  return _mm256_movemask_ps(special_lanes(x)) != 0;
}

inline Vectorized<float> where_special(
    const Vectorized<float>& x,
    const Vectorized<float>& special,
    const Vectorized<float>& result) {
  return _mm256_blendv_ps(result, special, special_lanes(x));
}

inline Vectorized<float> round_cbrt_to_half(
    const Vectorized<float>& ax,
    const Vectorized<float>& y) {
  const __m256i below =
      _mm256_and_si256(_mm256_castps_si256(y), _mm256_set1_epi32(-kHalfUlp));
  const __m256 mid = _mm256_castsi256_ps(
      _mm256_or_si256(below, _mm256_set1_epi32(kHalfHalfUlp)));
  const __m256 up = _mm256_cmp_ps(
      _mm256_fmsub_ps(_mm256_mul_ps(mid, mid), mid, ax),
      _mm256_setzero_ps(),
      _CMP_LT_OQ);
  return _mm256_castsi256_ps(_mm256_add_epi32(
      below,
      _mm256_and_si256(_mm256_castps_si256(up), _mm256_set1_epi32(kHalfUlp))));
}

inline std::pair<Vectorized<float>, Vectorized<float>> bfloat16_even_odd(
    const Vectorized<BFloat16>& a) {
  const __m256i v = a;
  return {
      _mm256_castsi256_ps(_mm256_slli_epi32(v, 16)),
      _mm256_castsi256_ps(_mm256_and_si256(
          v, _mm256_set1_epi32(static_cast<int32_t>(0xffff0000))))};
}

inline Vectorized<BFloat16> bfloat16_from_even_odd(
    const Vectorized<float>& even,
    const Vectorized<float>& odd) {
  const __m256i half_ulp = _mm256_set1_epi32(kBFloat16HalfUlp);
  const __m256i low = _mm256_srli_epi32(
      _mm256_add_epi32(_mm256_castps_si256(even), half_ulp), 16);
  const __m256i high = _mm256_and_si256(
      _mm256_add_epi32(_mm256_castps_si256(odd), half_ulp),
      _mm256_set1_epi32(static_cast<int32_t>(0xffff0000)));
  return _mm256_or_si256(high, low);
}

inline bool needs_accurate_path(const Vectorized<double>& ax) {
  const __m256d subnormal = _mm256_and_pd(
      _mm256_cmp_pd(
          ax, _mm256_set1_pd(std::numeric_limits<double>::min()), _CMP_LT_OQ),
      _mm256_cmp_pd(ax, _mm256_setzero_pd(), _CMP_NEQ_OQ));
  const __m256d special = _mm256_cmp_pd(
      ax, _mm256_set1_pd(std::numeric_limits<double>::infinity()), _CMP_NLT_UQ);
  return _mm256_movemask_pd(_mm256_or_pd(subnormal, special)) != 0;
}

inline Vectorized<double> high_word(const Vectorized<double>& a) {
  const __m256i bits = _mm256_srli_epi64(_mm256_castpd_si256(a), 32);
  return _mm256_castsi256_pd(
      _mm256_or_si256(bits, _mm256_set1_epi64x(0x4330000000000000)));
}

inline Vectorized<double> from_high_word(const Vectorized<double>& u) {
  return _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_castpd_si256(u), 32));
}

#endif // CPU_CAPABILITY_AVX512

// Step 1: estimate of ax^(-1/3) for normal ax (and harmless for zero).
inline Vectorized<float> rcbrt_estimate(const Vectorized<float>& ax) {
  using fVec = Vectorized<float>;
  const fVec bits = convert_to_fp_of_same_size<float>(cast<int32_t>(ax));
  return cast<float>(convert_to_int_of_same_size(
      fnmadd(bits, fVec(1.0f / 3), fVec(kFloatMagic))));
}

inline Vectorized<double> rcbrt_estimate(const Vectorized<double>& ax) {
  using dVec = Vectorized<double>;
  // u = 2^52 + K - hi / 3, rounded to an integer by the addition of 2^52.
  const dVec u = fnmadd(
      high_word(ax), dVec(1.0 / 3), dVec(kDoubleMagic + 0x1p52 + 0x1p52 / 3));
  return from_high_word(u);
}

// P(h) = c[0] + c[1] h + ... by Horner's rule.
template <typename T, size_t N>
inline Vectorized<T> polynomial(const Vectorized<T>& h, const T (&c)[N]) {
  Vectorized<T> p(c[N - 1]);
  for (size_t i = N - 1; i-- > 0;) {
    p = fmadd(p, h, Vectorized<T>(c[i]));
  }
  return p;
}

// Step 2 (float): r^2 (1 + h P(h)) ~= ax^(-2/3) for normal ax, with
// h = 1 - ax r^3 and the coefficients c of P.
template <size_t N>
inline Vectorized<float> rcbrt_squared(
    const Vectorized<float>& ax,
    const float (&c)[N]) {
  using fVec = Vectorized<float>;
  const fVec r = rcbrt_estimate(ax);
  const fVec r2 = r * r;
  const fVec h = fnmadd(ax * r, r2, fVec(1.0f));
  return fmadd(r2 * h, polynomial(h, c), r2);
}

// Step 2 (double): r (1 + h P(h)) with h = 1 - ax r^3.
inline Vectorized<double> rcbrt_step(
    const Vectorized<double>& ax,
    const Vectorized<double>& r) {
  using dVec = Vectorized<double>;
  const dVec h = fnmadd(ax * r, r * r, dVec(1.0));
  return fmadd(r * h, polynomial(h, kDoubleStep), r);
}

// y = x r^2 (1 - h)^(-2/3) with h = 1 - x r^3, for r ~= x^(-1/3).
inline Vectorized<double> cbrt_finish(
    const Vectorized<double>& x,
    const Vectorized<double>& r) {
  using dVec = Vectorized<double>;
  const dVec y = x * (r * r);
  const dVec h = fnmadd(y, r, dVec(1.0));
  return fmadd(y * h, fmadd(h, dVec(5.0 / 9), dVec(2.0 / 3)), y);
}

// Cube root, within about 1.2 * 2^-53, of doubles that hold floats (which
// are normal or zero as doubles).
inline Vectorized<double> cbrt_widened(const Vectorized<double>& x) {
  using dVec = Vectorized<double>;
  const dVec sign = x & dVec(-0.0);
  const dVec ax = x ^ sign;
  const dVec y = cbrt_finish(ax, rcbrt_step(ax, rcbrt_estimate(ax)));
  // The estimate is NaN for infinite inputs.
  return dVec::blendv(
             y, ax, ax == dVec(std::numeric_limits<double>::infinity())) |
      sign;
}

// Float cube root of every input, through double.
inline Vectorized<float> cbrt_accurate(const Vectorized<float>& x) {
  const auto [lo, hi] = to_double(x);
  return to_float(cbrt_widened(lo), cbrt_widened(hi));
}

inline Vectorized<float> cbrt_vec(const Vectorized<float>& x) {
  using fVec = Vectorized<float>;
  const fVec q = rcbrt_squared(x.abs(), kFloatStep);
  const fVec y = x * q;
  // (y^3 - x) q as y (y^2 q - 1) - (x q - y): each term stays normal for
  // normal x, where y^3 - x would underflow below 2^-111.
  const fVec s = fmsub(y, fmsub(y * y, q, fVec(1.0f)), fmsub(x, q, y));
  const fVec result = fnmadd(s, fVec(1.0f / 3), y);
  if (C10_UNLIKELY(any_special(x))) {
    // Only the lanes that need it take the accurate path: a result must not
    // depend on the values that share its vector.
    return where_special(x, cbrt_accurate(x), result);
  }
  return result;
}

// For a normal bfloat16 value x, a float that rounds to the same bfloat16
// as cbrt(x).
inline Vectorized<float> bfloat16_estimate(const Vectorized<float>& x) {
  return x * rcbrt_squared(x.abs(), kBFloat16Step);
}

// A float whose nearest bfloat16 is the cube root of x (a bfloat16 value).
// Both paths round to the same bfloat16, so a whole vector may take either.
inline Vectorized<float> cbrt_for_bfloat16(const Vectorized<float>& x) {
  if (C10_UNLIKELY(any_special(x))) {
    return cbrt_accurate(x);
  }
  return bfloat16_estimate(x);
}

// magnitude (sign bit clear) with the sign of x.
inline Vectorized<float> with_sign_of(
    const Vectorized<float>& magnitude,
    const Vectorized<float>& x) {
  return magnitude | (x & Vectorized<float>(-0.0f));
}

// The cube root of x (a half value) rounded to the nearest half, as a float.
inline Vectorized<float> cbrt_for_half(const Vectorized<float>& x) {
  const Vectorized<float> ax = x.abs();
  // Half values are normal floats. Infinities and NaNs need no test: y is
  // then inf or NaN, which round_cbrt_to_half() keeps (a NaN widened from
  // half has its payload above the bits it clears).
  const Vectorized<float> y = ax * rcbrt_squared(ax, kHalfStep);
  return with_sign_of(round_cbrt_to_half(ax, y), x);
}

// Cube root of every double input with error <= 0.5 ulp + 2^-100.
inline Vectorized<double> cbrt_accurate(const Vectorized<double>& x) {
  using dVec = Vectorized<double>;
  const dVec sign = x & dVec(-0.0);
  const dVec ax = x ^ sign;
  // Below 2^-900 the residual would lose bits to underflow: scale by 2^300.
  const dVec tiny = ax < dVec(0x1p-900);
  const dVec a = dVec::blendv(ax, ax * dVec(0x1p300), tiny);
  dVec r = rcbrt_step(a, rcbrt_estimate(a));
  // Cubic step: 2^-22.8 -> ~2^-64.
  const dVec h = fnmadd(a * r, r * r, dVec(1.0));
  r = fmadd(r * h, fmadd(h, dVec(2.0 / 9), dVec(1.0 / 3)), r);
  // Newton step y -= (y^3 - a) r^2 / 3, y^3 - a exact up to its rounding.
  const dVec r2 = r * r;
  dVec y = a * r2;
  const dVec y2 = y * y;
  const dVec res = fmadd(fmsub(y, y, y2), y, fmsub(y2, y, a));
  y = fnmadd(res, r2 * dVec(1.0 / 3), y);
  y = y * dVec::blendv(dVec(1.0), dVec(0x1p-100), tiny);
  // The residual is NaN for infinite inputs.
  y = dVec::blendv(y, ax, ax == dVec(std::numeric_limits<double>::infinity()));
  return y | sign;
}

inline Vectorized<double> cbrt_vec(const Vectorized<double>& x) {
  using dVec = Vectorized<double>;
  const dVec sign = x & dVec(-0.0);
  const dVec ax = x ^ sign;
  const dVec r = rcbrt_step(ax, rcbrt_estimate(ax));
  // y0 = ax r^2 with a single rounding.
  const dVec r2 = r * r;
  const dVec y0 = fmadd(ax, r2, ax * fmsub(r, r, r2));
  const dVec h = fnmadd(y0, r, dVec(1.0));
  const dVec y = fmadd(y0 * h, fmadd(h, dVec(5.0 / 9), dVec(2.0 / 3)), y0);
  if (C10_UNLIKELY(needs_accurate_path(ax))) {
    // Only the lanes that need it take the accurate path: a result must not
    // depend on the values that share its vector.
    const dVec special = (ax < dVec(std::numeric_limits<double>::min())) |
        (ax == dVec(std::numeric_limits<double>::infinity())) | ax.isnan();
    return dVec::blendv(y | sign, cbrt_accurate(x), special);
  }
  return y | sign;
}

// The scalar paths (strided inputs, loop tails) compute the same values as
// the vectorized ones.
template <typename T, typename F>
T first_lane(F f, T a) {
  __at_align__ T out[Vectorized<T>::size()];
  f(Vectorized<T>(a)).store(out);
  return out[0];
}

template <typename T>
T cbrt_scalar(T a) {
  return first_lane<T>([](const auto& v) { return cbrt_vec(v); }, a);
}

void cbrt_kernel(TensorIteratorBase& iter) {
  const auto dtype = iter.common_dtype();
  if (dtype == kBFloat16) {
    cpu_kernel_vec(
        iter,
        [](BFloat16 a) -> BFloat16 {
          return static_cast<BFloat16>(first_lane<float>(
              [](const auto& v) { return cbrt_for_bfloat16(v); },
              static_cast<float>(a)));
        },
        [](Vectorized<BFloat16> a) {
          const auto [even, odd] = bfloat16_even_odd(a);
          if (C10_UNLIKELY(any_special(even) || any_special(odd))) {
            const auto [lo, hi] = convert_to_float<BFloat16>(a);
            return convert_from_float<BFloat16>(
                cbrt_accurate(lo), cbrt_accurate(hi));
          }
          return bfloat16_from_even_odd(
              bfloat16_estimate(even), bfloat16_estimate(odd));
        });
  } else if (dtype == kHalf) {
    cpu_kernel_vec(
        iter,
        [](Half a) -> Half {
          return static_cast<Half>(first_lane<float>(
              [](const auto& v) { return cbrt_for_half(v); },
              static_cast<float>(a)));
        },
        [](Vectorized<Half> a) {
          const auto [lo, hi] = convert_to_float<Half>(a);
          return convert_from_float<Half>(cbrt_for_half(lo), cbrt_for_half(hi));
        });
  } else {
    AT_DISPATCH_FLOATING_TYPES(dtype, "cbrt_cpu", [&]() {
      cpu_kernel_vec(
          iter,
          [](scalar_t a) -> scalar_t { return cbrt_scalar(a); },
          [](Vectorized<scalar_t> a) { return cbrt_vec(a); });
    });
  }
}

#else

// Other capabilities are scalar. The C library's cbrt is only the seed:
// glibc's double cbrt is off by up to 4 ulp. One Newton step on an fma-exact
// residual brings it within 0.5 ulp + 2^-100, as the vectorized accurate path
// does; float, half and bfloat16 are evaluated in double and rounded once.
double cbrt_refined(double x) {
  if (!std::isfinite(x) || x == 0) {
    return x;
  }
  const double ax = std::fabs(x);
  // Below 2^-900 the residual would lose bits to underflow: scale by 2^300.
  const bool tiny = ax < 0x1p-900;
  const double a = tiny ? ax * 0x1p300 : ax;
  double y = std::cbrt(a);
  const double y2 = y * y;
  const double residual = std::fma(std::fma(y, y, -y2), y, std::fma(y2, y, -a));
  y -= residual / (3 * y2);
  return std::copysign(tiny ? y * 0x1p-100 : y, x);
}

// x rounded to a float with the last bit set when inexact, so that rounding
// the float again to half or bfloat16 rounds x only once.
float round_to_odd_float(double x) {
  float f = static_cast<float>(x);
  if (static_cast<double>(f) != x && (c10::bit_cast<uint32_t>(f) & 1) == 0) {
    const float inf = std::numeric_limits<float>::infinity();
    f = std::nextafter(f, x > f ? inf : -inf);
  }
  return f;
}

void cbrt_kernel(TensorIteratorBase& iter) {
  AT_DISPATCH_FLOATING_TYPES_AND2(
      kBFloat16, kHalf, iter.common_dtype(), "cbrt_cpu", [&]() {
        cpu_kernel(iter, [](scalar_t a) -> scalar_t {
          const double y = cbrt_refined(static_cast<double>(a));
          if constexpr (c10::is_reduced_floating_point_v<scalar_t>) {
            // Half and bfloat16 convert through float.
            return static_cast<scalar_t>(round_to_odd_float(y));
          } else {
            return static_cast<scalar_t>(y);
          }
        });
      });
}

#endif // defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)

} // namespace
} // namespace CPU_CAPABILITY

// The AVX512 build is registered too: it beats AVX2 where both can run.
ALSO_REGISTER_AVX512_DISPATCH(cbrt_stub, &cbrt_kernel)

} // namespace at::native

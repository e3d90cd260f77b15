#define TORCH_ASSERT_NO_OPERATORS
#include <ATen/native/UnaryOps.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/cpu/vec/functional.h>
#include <ATen/cpu/vec/vec.h>
#include <ATen/native/TensorIterator.h>
#include <ATen/native/cpu/Loops.h>

namespace at::native {
inline namespace CPU_CAPABILITY {
namespace {

using namespace vec;

#if defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)

// Vectorized real cube root, division-free.
//
// Both precisions start from r ~= |x|^(-1/3), computed as
//   1. bits(r) = K - bits(|x|) / 3, the division done in floating point
//      (for double, on the high word, with 2^52 as the int/double offset);
//      relative error <= 3.5e-2, only valid for normal |x|;
//   2. one step r <- r (1 + h P(h)), h = 1 - |x| r^3, where P is the minimax
//      fit of ((1 - h)^(-1/3) - 1) / h on the range of h left by step 1;
//      relative error <= 2^-22.8.
//
// float, correctly rounded for every input:
//   3. y + y_lo = |x| r^2 exactly (fma error terms), then one Newton step
//      cbrt(|x|) = y + (2 y h + y_lo) / 3 + O(2^-43 y), h = 1 - y r.
//   4. The result is y + s rounded once. If y + s - e and y + s + e, with
//      e = 2^-41 y above the error bound, round differently, a rounding
//      boundary is too close: the vector then takes cbrt_accurate(), which
//      evaluates step 3 in double (error ~1.2 * 2^-53), as do vectors with
//      subnormals, infinities or NaNs. This happens for about one vector in
//      2^12 of random data. Both paths were checked against an exact
//      midpoint test on all 2^32 inputs: no result is misrounded.
//
// double, error <= 0.84 ulp (0.5 ulp + 2^-53 / 3):
//   3. y0 = |x| r^2 rounded once, h = 1 - y0 r, and
//      y = y0 (1 - h)^(-2/3) = y0 (1 + 2h/3 + 5h^2/9) + O(2^-64 y).
//      h measures the rounding of y0, so only a third of it remains.
//   Subnormals, infinities and NaNs take cbrt_accurate(), which scales tiny
//   inputs by 2^300 and ends with a Newton step on an fma-exact residual
//   (error <= 0.5 ulp + 2^-100).
//
// Zeros keep their sign.

constexpr float kFloatMagic = 0x54a21400;
constexpr double kDoubleMagic = 0x553eec00;
// Minimax coefficients of P, for |h| <= 0.105.
constexpr float kFloatStep[] = {
    0.33332747f,
    0.2222177f,
    0.17467934f,
    0.14535149f};
constexpr double kDoubleStep[] = {
    0.33332884457414264,
    0.22222074751659837,
    0.17450459715425,
    0.14508438305119006};

#if defined(CPU_CAPABILITY_AVX512)

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

// Whether some lane has lo != hi (NaN included) or a nonzero subnormal |x|.
inline bool needs_accurate_path(
    const Vectorized<float>& lo,
    const Vectorized<float>& hi,
    const Vectorized<float>& ax) {
  const __mmask16 tiny = _mm512_cmp_ps_mask(
      ax, _mm512_set1_ps(std::numeric_limits<float>::min()), _CMP_LT_OQ);
  const __mmask16 subnormal =
      _mm512_mask_cmp_ps_mask(tiny, ax, _mm512_setzero_ps(), _CMP_NEQ_OQ);
  return (_mm512_cmp_ps_mask(lo, hi, _CMP_NEQ_UQ) | subnormal) != 0;
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

inline bool needs_accurate_path(
    const Vectorized<float>& lo,
    const Vectorized<float>& hi,
    const Vectorized<float>& ax) {
  const __m256 subnormal = _mm256_and_ps(
      _mm256_cmp_ps(
          ax, _mm256_set1_ps(std::numeric_limits<float>::min()), _CMP_LT_OQ),
      _mm256_cmp_ps(ax, _mm256_setzero_ps(), _CMP_NEQ_OQ));
  return _mm256_movemask_ps(
             _mm256_or_ps(_mm256_cmp_ps(lo, hi, _CMP_NEQ_UQ), subnormal)) != 0;
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

// Step 2: r (1 + h P(h)) with h = 1 - ax r^3.
template <typename T>
inline Vectorized<T> rcbrt_step(
    const Vectorized<T>& ax,
    const Vectorized<T>& r,
    const T (&c)[4]) {
  using Vec = Vectorized<T>;
  const Vec h = fnmadd(ax * r, r * r, Vec(T(1)));
  const Vec p =
      fmadd(fmadd(fmadd(Vec(c[3]), h, Vec(c[2])), h, Vec(c[1])), h, Vec(c[0]));
  return fmadd(r * h, p, r);
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

// Correctly rounded float cube root of every input, through double.
inline Vectorized<float> cbrt_accurate(const Vectorized<float>& x) {
  using fVec = Vectorized<float>;
  const fVec sign = x & fVec(-0.0f);
  const fVec ax = x ^ sign;
  // Subnormals are scaled by 2^24 for the estimate, which is then scaled
  // back by 2^8.
  const fVec tiny = ax < fVec(std::numeric_limits<float>::min());
  fVec r = rcbrt_estimate(fVec::blendv(ax, ax * fVec(0x1p24f), tiny));
  r = fVec::blendv(r, r * fVec(0x1p8f), tiny);
  r = rcbrt_step(ax, r, kFloatStep) | sign;
  const auto [x_lo, x_hi] = to_double(x);
  const auto [r_lo, r_hi] = to_double(r);
  return to_float(cbrt_finish(x_lo, r_lo), cbrt_finish(x_hi, r_hi));
}

inline Vectorized<float> cbrt_vec(const Vectorized<float>& x) {
  using fVec = Vectorized<float>;
  const fVec sign = x & fVec(-0.0f);
  const fVec ax = x ^ sign;
  const fVec r = rcbrt_step(ax, rcbrt_estimate(ax), kFloatStep);
  const fVec t = ax * r;
  const fVec y = t * r;
  const fVec y_lo = fmadd(fmsub(ax, r, t), r, fmsub(t, r, y));
  const fVec h2 = fnmadd(y, r + r, fVec(2.0f));
  const fVec s = fmadd(y, h2, y_lo) * fVec(1.0f / 3);
  const fVec e = y * fVec(0x1p-41f);
  const fVec lo = y + (s - e);
  const fVec hi = y + (s + e);
  if (C10_UNLIKELY(needs_accurate_path(lo, hi, ax))) {
    return cbrt_accurate(x);
  }
  return hi | sign;
}

// Cube root of every double input with error <= 0.5 ulp + 2^-100.
inline Vectorized<double> cbrt_accurate(const Vectorized<double>& x) {
  using dVec = Vectorized<double>;
  const dVec sign = x & dVec(-0.0);
  const dVec ax = x ^ sign;
  // Below 2^-900 the residual would lose bits to underflow: scale by 2^300.
  const dVec tiny = ax < dVec(0x1p-900);
  const dVec a = dVec::blendv(ax, ax * dVec(0x1p300), tiny);
  dVec r = rcbrt_step(a, rcbrt_estimate(a), kDoubleStep);
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
  const dVec r = rcbrt_step(ax, rcbrt_estimate(ax), kDoubleStep);
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

// The scalar path (strided inputs, loop tails) computes the same values as
// the vectorized one.
template <typename T>
T cbrt_scalar(T a) {
  __at_align__ T out[Vectorized<T>::size()];
  cbrt_vec(Vectorized<T>(a)).store(out);
  return out[0];
}

void cbrt_kernel(TensorIteratorBase& iter) {
  const auto dtype = iter.common_dtype();
  if (at::isReducedFloatingType(dtype)) {
    AT_DISPATCH_REDUCED_FLOATING_TYPES(dtype, "cbrt_cpu", [&]() {
      cpu_kernel_vec(
          iter,
          [](scalar_t a) -> scalar_t {
            return cbrt_scalar(static_cast<float>(a));
          },
          [](Vectorized<scalar_t> a) {
            auto [a0, a1] = convert_to_float<scalar_t>(a);
            return convert_from_float<scalar_t>(cbrt_vec(a0), cbrt_vec(a1));
          });
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

void cbrt_kernel(TensorIteratorBase& iter) {
  AT_DISPATCH_FLOATING_TYPES_AND2(
      kBFloat16, kHalf, iter.common_dtype(), "cbrt_cpu", [&]() {
        cpu_kernel(iter, [](scalar_t a) -> scalar_t {
          return static_cast<scalar_t>(cbrt_refined(static_cast<double>(a)));
        });
      });
}

#endif // defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)

} // namespace
} // namespace CPU_CAPABILITY

// The AVX512 build is registered too: it is 1.4-1.6x faster than AVX2.
ALSO_REGISTER_AVX512_DISPATCH(cbrt_stub, &cbrt_kernel)

} // namespace at::native

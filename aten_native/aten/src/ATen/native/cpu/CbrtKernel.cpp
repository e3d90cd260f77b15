#define TORCH_ASSERT_NO_OPERATORS
#include <ATen/native/UnaryOps.h>

#include <cmath>
#include <limits>

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

// Vectorized real cube root.
//
// float: the result is correctly rounded for every input.
//   1. r ~= |x|^(-1/3) from the bit pattern: bits(r) = K - bits(|x|) / 3,
//      the division done in float arithmetic (relative error <= 3.5e-2).
//      Subnormal inputs are scaled by 2^24 first and K absorbs the 2^8 that
//      this takes out of r.
//   2. Two division-free steps in float, r <- r * (1 + h/3 + 2h^2/9) with
//      h = 1 - x r^3 (cubic convergence: 3.5e-2 -> 1.9e-4 -> float rounding).
//   3. In double: y0 = x r^2 and h = 1 - y0 r, so that
//      cbrt(x) = y0 (1 - h)^(-2/3) = y0 (1 + 2h/3 + 5h^2/9 + O(h^3)).
//      Since h is computed from the rounded y0 with an fma, the rounding
//      errors of y0 are divided by 3 and the double result is within
//      ~1.2 * 2^-53 of cbrt(x) (the O(h^3) term is below 2^-60). Rounding it
//      to float is then correctly rounded for all 2^32 inputs (verified
//      exhaustively; no float cube root lies that close to a midpoint).
//
// double: within 0.5 ulp + 2^-100 relative, i.e. faithful and nearly always
// correctly rounded.
//   1. The same bit trick on the high 32 bits of |x| (the division done in
//      double arithmetic, with 2^52 as the int<->double conversion offset).
//      |x| < 2^-900 is scaled by 2^300 so that the residual below stays out
//      of the subnormal range.
//   2. One quartic and one cubic step as above: 3.5e-2 -> 1.6e-5 -> 2e-14.
//   3. y = x r^2, then one Newton step y -= (y^3 - x) r^2 / 3 with y^3 - x
//      evaluated exactly enough using fma-based double-double products.
//
// Zeros keep their sign, infinities and NaNs propagate.

constexpr float kFloatMagic = 0x54a21400;
constexpr uint32_t kDoubleMagic = 0x553eec00;

#if defined(CPU_CAPABILITY_AVX512)

inline std::pair<Vectorized<double>, Vectorized<double>> to_double(
    const Vectorized<float>& v) {
  const __m512 x = v;
  const __m256 hi =
      _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1));
  return {
      _mm512_cvtps_pd(_mm512_castps512_ps256(x)), _mm512_cvtps_pd(hi)};
}

inline Vectorized<float> to_float(
    const Vectorized<double>& lo,
    const Vectorized<double>& hi) {
  const __m256 l = _mm512_cvtpd_ps(lo);
  const __m256 h = _mm512_cvtpd_ps(hi);
  return _mm512_castpd_ps(_mm512_insertf64x4(
      _mm512_castps_pd(_mm512_castps256_ps512(l)), _mm256_castps_pd(h), 1));
}

// 2^52 + (bits(a) >> 32), as a double.
inline Vectorized<double> high_word(const Vectorized<double>& a) {
  const __m512i bits = _mm512_srli_epi64(_mm512_castpd_si512(a), 32);
  return _mm512_castsi512_pd(
      _mm512_or_si512(bits, _mm512_set1_epi64(0x4330000000000000)));
}

// The double whose high word is the low word of bits(u) and whose low word
// is zero.
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

inline Vectorized<double> high_word(const Vectorized<double>& a) {
  const __m256i bits = _mm256_srli_epi64(_mm256_castpd_si256(a), 32);
  return _mm256_castsi256_pd(
      _mm256_or_si256(bits, _mm256_set1_epi64x(0x4330000000000000)));
}

inline Vectorized<double> from_high_word(const Vectorized<double>& u) {
  return _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_castpd_si256(u), 32));
}

#endif // CPU_CAPABILITY_AVX512

// y = x r^2 (1 - h)^(-2/3) with h = 1 - x r^3; r ~= x^(-1/3) to ~1e-7.
inline Vectorized<double> cbrt_finish(
    const Vectorized<double>& x,
    const Vectorized<double>& r) {
  using dVec = Vectorized<double>;
  const dVec y = x * (r * r);
  const dVec h = fnmadd(y, r, dVec(1.0));
  return fmadd(y * h, fmadd(h, dVec(5.0 / 9), dVec(2.0 / 3)), y);
}

inline Vectorized<float> cbrt_vec(const Vectorized<float>& x) {
  using fVec = Vectorized<float>;
  const fVec ax = x.abs();
  const fVec tiny = ax < fVec(std::numeric_limits<float>::min());
  const fVec as = fVec::blendv(ax, ax * fVec(0x1p24f), tiny);
  const fVec magic = fVec::blendv(
      fVec(kFloatMagic), fVec(kFloatMagic + 0x1p26f), tiny);
  const fVec bits = convert_to_fp_of_same_size<float>(cast<int32_t>(as));
  fVec r = cast<float>(
      convert_to_int_of_same_size(fnmadd(bits, fVec(1.0f / 3), magic)));
  for (int i = 0; i < 2; ++i) {
    const fVec h = fnmadd(ax * r * r, r, fVec(1.0f));
    r = fmadd(r * h, fmadd(h, fVec(2.0f / 9), fVec(1.0f / 3)), r);
  }
  // Give r the sign of x so that the double stage works on x directly.
  r = r | (x & fVec(-0.0f));
  const auto [x_lo, x_hi] = to_double(x);
  const auto [r_lo, r_hi] = to_double(r);
  return to_float(cbrt_finish(x_lo, r_lo), cbrt_finish(x_hi, r_hi));
}

inline Vectorized<double> cbrt_vec(const Vectorized<double>& x) {
  using dVec = Vectorized<double>;
  const dVec ax = x.abs();
  const dVec tiny = ax < dVec(0x1p-900);
  const dVec a = dVec::blendv(ax, ax * dVec(0x1p300), tiny);
  const dVec u = fnmadd(
      high_word(a),
      dVec(1.0 / 3),
      dVec(static_cast<double>(kDoubleMagic) + 0x1p52 + 0x1p52 / 3));
  dVec r = from_high_word(u);
  dVec h = fnmadd(a * r * r, r, dVec(1.0));
  r = fmadd(
      r * h,
      fmadd(fmadd(h, dVec(14.0 / 81), dVec(2.0 / 9)), h, dVec(1.0 / 3)),
      r);
  h = fnmadd(a * r * r, r, dVec(1.0));
  r = fmadd(r * h, fmadd(h, dVec(2.0 / 9), dVec(1.0 / 3)), r);
  // Newton step on y^3 = a, with y^3 - a exact up to its final rounding.
  const dVec r2 = r * r;
  dVec y = a * r2;
  const dVec y2 = y * y;
  const dVec y2_lo = fmsub(y, y, y2);
  const dVec res = fmadd(y2_lo, y, fmsub(y2, y, a));
  y = fnmadd(res, r2 * dVec(1.0 / 3), y);
  y = y * dVec::blendv(dVec(1.0), dVec(0x1p-100), tiny);
  // The residual is NaN for infinite inputs.
  y = dVec::blendv(y, ax, ax == dVec(std::numeric_limits<double>::infinity()));
  return y | (x & dVec(-0.0));
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

void cbrt_kernel(TensorIteratorBase& iter) {
  AT_DISPATCH_FLOATING_TYPES_AND2(
      kBFloat16, kHalf, iter.common_dtype(), "cbrt_cpu", [&]() {
        cpu_kernel(iter, [](scalar_t a) -> scalar_t {
          return std::cbrt(static_cast<opmath_type<scalar_t>>(a));
        });
      });
}

#endif // defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)

} // namespace
} // namespace CPU_CAPABILITY

ALSO_REGISTER_AVX512_DISPATCH(cbrt_stub, &cbrt_kernel)

} // namespace at::native

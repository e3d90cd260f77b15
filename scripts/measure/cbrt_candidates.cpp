// Float32 cube roots along the speed/accuracy frontier of torch.cbrt, for
// `python -m scripts.measure.frontier` and test/test_frontier.py. Not upstream
// code: scripts/measure/candidates.py compiles this file once per CPU
// capability (PyTorch's flags for DEFAULT, AVX2 and AVX512) against the
// installed torch's vec headers, which the overlay has patched, so that
// `shipped` is the kernel torch.cbrt runs and the others reuse its building
// blocks (at::vec::cbrt_detail: the algorithm, ScalarOps and CbrtOps).
//
// The candidates, from the shipped kernel to a correctly rounded one; each adds
// one ingredient to the one before (see docs/CBRT_KERNEL.md, "The frontier"):
//   shipped            Vectorized<float>::cbrt(): quadratic q ~ |x|^(-2/3),
//                      Newton step with y^2 rounded (0.735 ulp);
//   exact_square       the same, y^2 carried exactly as y2 + fms(y, y, y2);
//   cubic_residual     cubic q (2^-21.2) and the residual y^3 - x rounded
//                      once, from an exact y^2;
//   correctly_rounded  the cubic step, rounded twice with the correction
//                      perturbed by +-2^-17 of itself: where both roundings
//                      agree the result is the rounding of the cube root, and
//                      the other lanes (about 1 in 27,000) decide exactly on
//                      which side of the midpoint between the two the cube root
//                      lies, by the sign of m^3 - x in double.
// Every candidate computes the same bits in its vector loop and its scalar
// path (strided inputs and loop tails of a real kernel).

#include <ATen/cpu/vec/cbrt_algorithm.h>
#include <ATen/cpu/vec/vec.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace {

using at::vec::Vectorized;
using F = Vectorized<float>;
namespace detail = at::vec::cbrt_detail;

#if defined(CPU_CAPABILITY_AVX2) || defined(CPU_CAPABILITY_AVX512)
constexpr bool kFmaddIsFused = true;
#else
constexpr bool kFmaddIsFused = false;
#endif
using VecOps = detail::CbrtOps<float, kFmaddIsFused>;
using ScalarOps = detail::ScalarOps<float>;

constexpr float kThird = 1.0f / 3;
// Below 2^-56 the residual y^3 - x of the cubic candidates could be
// subnormal: such inputs are scaled by 2^96 and their results by 2^-32, both
// exactly (the cube root of the smallest subnormal is normal).
constexpr float kTiny = 0x1p-56f;
constexpr float kTinyScale = 0x1p96f;
constexpr float kTinyResultScale = 0x1p-32f;
constexpr int32_t kTinyBits = 0x23800000; // the bits of kTiny
// The correction -s/3 perturbed by +-2^-17 of itself: more than its error
// bound (docs/CBRT_KERNEL.md), so the cube root lies between the two.
constexpr float kPerturbation = 0x1p-17f;
constexpr float kThirdAbove = -kThird * (1 + kPerturbation);
constexpr float kThirdBelow = -kThird * (1 - kPerturbation);

// y = x q with q ~ |x|^(-2/3) (cubic step, 2^-21.2) and s = (y^3 - x) q: the
// Newton step is y - s / 3. y^2 = y2 + fms(y, y, y2) exactly, so y^3 - x is
// rounded once (twice when the first fma's result is not exact).
template <typename Ops, typename T>
inline void cubic_newton_terms(const T& x, const T& ax, T& y, T& s) {
  const T q = detail::rcbrt_squared_bfloat16<Ops>(ax);
  y = Ops::mul(x, q);
  const T y2 = Ops::mul(y, y);
  const T residual = Ops::fma(y, Ops::fms(y, y, y2), Ops::fms(y, y2, x));
  s = Ops::mul(residual, q);
}

template <typename Ops, typename T>
inline T exact_square_normal(const T& x, const T& ax) {
  const T q = detail::rcbrt_squared_float<Ops>(ax);
  const T y = Ops::mul(x, q);
  const T y2 = Ops::mul(y, y);
  // y^2 q - 1 with y^2 = y2 + fms(y, y, y2)
  const T w = Ops::fma(Ops::fms(y, y, y2), q, Ops::fms(y2, q, T(1.0f)));
  const T s = Ops::fms(y, w, Ops::fms(x, q, y));
  return Ops::fnma(s, T(kThird), y);
}

template <typename Ops, typename T>
inline T cubic_residual_normal(const T& x, const T& ax) {
  T y, s;
  cubic_newton_terms<Ops>(x, ax, y, s);
  return Ops::fnma(s, T(kThird), y);
}

// The cubic Newton step rounded twice, its correction -s/3 perturbed by
// +-kPerturbation of itself: cbrt(x) lies between the two exact values.
template <typename Ops, typename T>
inline void perturbed_roundings(const T& x, const T& ax, T& above, T& below) {
  T y, s;
  cubic_newton_terms<Ops>(x, ax, y, s);
  above = Ops::fma(s, T(kThirdAbove), y);
  below = Ops::fma(s, T(kThirdBelow), y);
}

// Which of the adjacent floats a and b is the rounding of cbrt(x): m, their
// midpoint, has 25 significant bits, so m and m^2 are exact in double and the
// sign of the fused m^2 m - x is exact (m^3 != x: m^3 has over 24 bits).
inline float nearer_to_cube_root(float x, float a, float b) {
  const double m = 0.5 * (static_cast<double>(a) + static_cast<double>(b));
  const double above = std::fma(m * m, m, -static_cast<double>(x));
  return above > 0 ? std::min(a, b) : std::max(a, b);
}

inline float correctly_rounded_normal(float x, float ax) {
  float above, below;
  perturbed_roundings<ScalarOps>(x, ax, above, below);
  return above == below ? above : nearer_to_cube_root(x, above, below);
}

// The scalar path of a candidate: zeros, infinities and NaN are their own
// cube roots. Inputs below `tiny` are scaled by `scale`, their results by
// `result_scale`: the shipped kernel's subnormal scaling for exact_square,
// kTiny's for the cubic candidates.
template <float (*normal)(float, float), bool kCubic>
inline float scalar_path(float x) {
  constexpr float tiny = kCubic ? kTiny : std::numeric_limits<float>::min();
  constexpr float scale = kCubic ? kTinyScale : 0x1p24f;
  constexpr float result_scale = kCubic ? kTinyResultScale : 0x1p-8f;
  const float ax = ScalarOps::abs(x);
  if (!(ax <= std::numeric_limits<float>::max()) || ax == 0) {
    return x;
  }
  if (ax < tiny) {
    const float scaled = x * scale;
    return normal(scaled, ScalarOps::abs(scaled)) * result_scale;
  }
  return normal(x, ax);
}

inline float exact_square_scalar_normal(float x, float ax) {
  return exact_square_normal<ScalarOps>(x, ax);
}
inline float cubic_residual_scalar_normal(float x, float ax) {
  return cubic_residual_normal<ScalarOps>(x, ax);
}

template <float (*scalar)(float)>
__attribute__((noinline)) F per_lane(const F& x) {
  __at_align__ float lanes[F::size()];
  x.store(lanes);
  for (int i = 0; i < F::size(); i++) {
    lanes[i] = scalar(lanes[i]);
  }
  return F::loadu(lanes);
}

float exact_square_scalar(float x) {
  return scalar_path<exact_square_scalar_normal, false>(x);
}
float cubic_residual_scalar(float x) {
  return scalar_path<cubic_residual_scalar_normal, true>(x);
}
float correctly_rounded_scalar(float x) {
  return scalar_path<correctly_rounded_normal, true>(x);
}

// The lane tests, each in its cheapest form measured here: one mask test on
// AVX512, integer lanes and one VecMask test elsewhere. Zeros need no test:
// every candidate gives +-0 for +-0 on its vector path.

// Some lane is subnormal, infinite or NaN (the shipped kernel's test).
inline bool any_subnormal_or_special(const F& ax) {
  return VecOps::any_not_normal(ax) && VecOps::any_special(ax);
}

// The lanes where 0 < ax < kTiny, by one unsigned range comparison: a mask on
// AVX512, nonzero integer lanes elsewhere.
#if defined(CPU_CAPABILITY_AVX512)
inline __mmask16 tiny_lanes(const F& ax) {
  return _mm512_cmp_epu32_mask(
      _mm512_sub_epi32(_mm512_castps_si512(ax), _mm512_set1_epi32(1)),
      _mm512_set1_epi32(kTinyBits - 1),
      _MM_CMPINT_LT);
}
#else
inline Vectorized<int32_t> tiny_lanes(const F& ax) {
  using I = Vectorized<int32_t>;
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  return ((VecOps::bits(ax) - I(1)) ^ I(kMin)) < I(kMin + kTinyBits - 1);
}
#endif

// Some lane is tiny (not zero), infinite or NaN.
inline bool any_tiny_or_special(const F& ax) {
#if defined(CPU_CAPABILITY_AVX512)
  // QNaN | SNaN (0x81), +-infinity (0x18)
  return !_kortestz_mask16_u8(tiny_lanes(ax), _mm512_fpclass_ps_mask(ax, 0x99));
#else
  const F special = ~(ax <= F(std::numeric_limits<float>::max()));
  return !at::vec::VecMask<int32_t, 1>(tiny_lanes(ax) | VecOps::bits(special))
              .all_zero();
#endif
}

// Some lane is tiny (not zero), or its two perturbed roundings differ: NaN
// and infinite inputs make both NaN, which compare unequal.
inline bool any_tiny_or_undecided(const F& ax, const F& above, const F& below) {
#if defined(CPU_CAPABILITY_AVX512)
  return !_kortestz_mask16_u8(
      tiny_lanes(ax), _mm512_cmp_ps_mask(above, below, _CMP_NEQ_UQ));
#else
  const F differ = above != below;
  return !at::vec::VecMask<int32_t, 1>(tiny_lanes(ax) | VecOps::bits(differ))
              .all_zero();
#endif
}

F exact_square_vector(const F& x) {
  const F ax = VecOps::abs(x);
  if (C10_UNLIKELY(any_subnormal_or_special(ax))) {
    return per_lane<exact_square_scalar>(x);
  }
  return exact_square_normal<VecOps>(x, ax);
}

F cubic_residual_vector(const F& x) {
  const F ax = VecOps::abs(x);
  if (C10_UNLIKELY(any_tiny_or_special(ax))) {
    return per_lane<cubic_residual_scalar>(x);
  }
  return cubic_residual_normal<VecOps>(x, ax);
}

F correctly_rounded_vector(const F& x) {
  const F ax = VecOps::abs(x);
  F above, below;
  perturbed_roundings<VecOps>(x, ax, above, below);
  if (C10_UNLIKELY(any_tiny_or_undecided(ax, above, below))) {
    return per_lane<correctly_rounded_scalar>(x);
  }
  return above;
}

F shipped_vector(const F& x) {
  return x.cbrt();
}
float shipped_scalar(float x) {
  return detail::cbrt_scalar(x);
}

// A contiguous loop as cpu_kernel_vec runs it: whole vectors, then the tail
// through the scalar path.
template <F (*vector)(const F&), float (*scalar)(float)>
void contiguous_loop(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + F::size() <= n; i += F::size()) {
    vector(F::loadu(x + i)).store(y + i);
  }
  for (; i < n; i++) {
    y[i] = scalar(x[i]);
  }
}

template <float (*scalar)(float)>
void scalar_loop(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    y[i] = scalar(x[i]);
  }
}

} // namespace

extern "C" {

#define CANDIDATE(NAME)                                            \
  void cbrt_##NAME(const float* x, float* y, int64_t n) {          \
    contiguous_loop<NAME##_vector, NAME##_scalar>(x, y, n);        \
  }                                                                \
  void cbrt_##NAME##_scalar(const float* x, float* y, int64_t n) { \
    scalar_loop<NAME##_scalar>(x, y, n);                           \
  }

CANDIDATE(shipped)
CANDIDATE(exact_square)
CANDIDATE(cubic_residual)
CANDIDATE(correctly_rounded)

#undef CANDIDATE

// Whether each input takes the correctly rounded candidate's exact path: in
// the fast range, with two perturbed roundings that differ.
inline bool takes_exact_path(float x) {
  const float ax = ScalarOps::abs(x);
  if (!(ax >= kTiny && ax <= std::numeric_limits<float>::max())) {
    return false;
  }
  float above, below;
  perturbed_roundings<ScalarOps>(x, ax, above, below);
  return above != below;
}

int64_t correctly_rounded_exact_path_count(const float* x, int64_t n) {
  int64_t count = 0;
  for (int64_t i = 0; i < n; i++) {
    count += takes_exact_path(x[i]);
  }
  return count;
}

void correctly_rounded_exact_path_mask(
    const float* x,
    uint8_t* mask,
    int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    mask[i] = takes_exact_path(x[i]);
  }
}

// The largest |cbrt(x) - (y - s/3)| / |s/3| over the n inputs in the fast
// range: the relative error of the correction, which the perturbation must
// exceed. cbrt(x) in x87 long double by two Newton steps from y (2^-21 ->
// 2^-63 relative): corrections below 2^-36 |y|, whose ratio that could not
// resolve to 2^-27, are left out.
double correctly_rounded_correction_error(const float* x, int64_t n) {
  double worst = 0;
  for (int64_t i = 0; i < n; i++) {
    float ax = ScalarOps::abs(x[i]);
    if (!(ax >= kTiny && ax <= std::numeric_limits<float>::max())) {
      continue;
    }
    float y, s;
    cubic_newton_terms<ScalarOps>(ax, ax, y, s);
    if (!(std::fabs(s) / 3 >= 0x1p-36f * y)) {
      continue;
    }
    long double c = y;
    for (int step = 0; step < 2; step++) {
      c -= (c * c * c - static_cast<long double>(ax)) / (3 * c * c);
    }
    const long double correction = -static_cast<long double>(s) / 3;
    const long double error = c - (static_cast<long double>(y) + correction);
    worst = std::max(
        worst, static_cast<double>(std::fabs(error) / std::fabs(correction)));
  }
  return worst;
}

} // extern "C"

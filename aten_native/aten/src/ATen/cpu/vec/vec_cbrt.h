#pragma once

// Vectorized<T>::cbrt(): the cube root of cbrt_algorithm.h on vectors.
// Included at the end of vec_base.h, so that the architecture headers'
// cbrt() members can call cbrt_detail::cbrt_with_fmadd.

#include <ATen/cpu/vec/cbrt_algorithm.h>
#include <ATen/cpu/vec/vec_base.h>
#include <ATen/cpu/vec/vec_mask.h>

namespace at::vec {
inline namespace CPU_CAPABILITY {
namespace cbrt_detail {

// The operations of ScalarOps (NOTE: [Portable cube root] in
// cbrt_algorithm.h) on vectors, so that Vectorized<T>::cbrt() computes the
// bits of cbrt_scalar in every lane. kFmaddIsFused says whether
// fmadd, fmsub and fnmadd of Vectorized<T> round once; otherwise each lane
// computes the fused result itself (fma_per_lane).
template <typename T, bool kFmaddIsFused>
struct CbrtOps {
  using F = Vectorized<T>;
  using int_t = int_same_size_t<T>;
  using I = Vectorized<int_t>;

  // Float lanes compute in double, which the compiler vectorizes where
  // std::fma would be a library call per lane (x86 without FMA): the product
  // of two floats is exact in double, so only the sum is rounded before the
  // rounding to float. That double rounding gives the fused result on every
  // input of the float, half and bfloat16 cube roots; all of those inputs
  // are enumerated by the identity tests of the CPU capabilities.
  template <bool kNegateProduct, bool kNegateAddend>
  static F fma_per_lane(const F& a, const F& b, const F& c) {
    __at_align__ T a_lanes[F::size()];
    __at_align__ T b_lanes[F::size()];
    __at_align__ T c_lanes[F::size()];
    a.store(a_lanes);
    b.store(b_lanes);
    c.store(c_lanes);
    for (const auto i : c10::irange(F::size())) {
      const T product_factor = kNegateProduct ? -a_lanes[i] : a_lanes[i];
      const T addend = kNegateAddend ? -c_lanes[i] : c_lanes[i];
      if constexpr (std::is_same_v<T, float>) {
        a_lanes[i] = static_cast<float>(
            static_cast<double>(product_factor) * b_lanes[i] + addend);
      } else {
        a_lanes[i] = std::fma(product_factor, b_lanes[i], addend);
      }
    }
    return F::loadu(a_lanes);
  }
  static F fma(const F& a, const F& b, const F& c) {
    if constexpr (kFmaddIsFused) {
      return fmadd(a, b, c);
    } else {
      return fma_per_lane<false, false>(a, b, c);
    }
  }
  static F fms(const F& a, const F& b, const F& c) {
    if constexpr (kFmaddIsFused) {
      return fmsub(a, b, c);
    } else {
      return fma_per_lane<false, true>(a, b, c);
    }
  }
  static F fnma(const F& a, const F& b, const F& c) {
    if constexpr (kFmaddIsFused) {
      return fnmadd(a, b, c);
    } else {
      return fma_per_lane<true, false>(a, b, c);
    }
  }
  static F mul(const F& a, const F& b) {
    return a * b;
  }
  static I bits(const F& a) {
    return cast<int_t>(a);
  }
  static F from_bits(const I& a) {
    return cast<T>(a);
  }
  static F to_float(const I& a) {
    return convert_to_fp_of_same_size<T>(a);
  }
  static I to_int(const F& a) {
    return convert_to_int_of_same_size(a);
  }
  static I if_negative(const F& v, const I& value) {
    return cast<int_t>(v < F(T(0))) & value;
  }
  static F abs(const F& a) {
    return from_bits(bits(a) & I(std::numeric_limits<int_t>::max()));
  }
  static F with_sign_of(const F& magnitude, const F& x) {
    return from_bits(
        bits(magnitude) | (bits(x) & I(std::numeric_limits<int_t>::min())));
  }
  // Whether some lane of ax (sign bit clear) is not normal: zero, subnormal,
  // infinite or NaN, by one integer comparison.
  static bool any_not_normal(const F& ax) {
    // The bits of the smallest normal value and of infinity.
    constexpr int digits = std::numeric_limits<T>::digits;
    constexpr int_t kMinNormal = int_t(1) << (digits - 1);
    constexpr int_t kInfinity =
        int_t(2 * std::numeric_limits<T>::max_exponent - 1) << (digits - 1);
    // Normal lanes map to the lowest kInfinity - kMinNormal integers.
    const I offset =
        (bits(ax) - I(kMinNormal)) ^ I(std::numeric_limits<int_t>::min());
    const I not_normal = offset >=
        I(std::numeric_limits<int_t>::min() + (kInfinity - kMinNormal));
    return !VecMask<int_t, 1>(not_normal).all_zero();
  }
  // Whether some lane of ax is subnormal, infinite or NaN.
  static bool any_special(const F& ax) {
    const F normal = (ax >= F(std::numeric_limits<T>::min())) &
        (ax <= F(std::numeric_limits<T>::max()));
    return (normal | (ax == F(T(0)))).zero_mask() != 0;
  }
};

// T is float (a parameter so that nothing here instantiates Vectorized<float>
// before the architecture headers specialize it). With kBFloat16, for
// bfloat16 values widened to float: floats that round to their bfloat16
// results.
template <typename T, bool kFmaddIsFused, bool kBFloat16 = false>
Vectorized<T> inline cbrt_float(const Vectorized<T>& x) {
  using Ops = CbrtOps<T, kFmaddIsFused>;
  using F = Vectorized<T>;
  const F ax = Ops::abs(x);
  const F y = cbrt_float_or_bfloat16_normal<kBFloat16, Ops>(x, ax);
  if (C10_UNLIKELY(Ops::any_not_normal(ax)) && Ops::any_special(ax)) {
    const F tiny = ax < F(std::numeric_limits<T>::min());
    const F scaled = F::blendv(x, x * F(T(0x1p24f)), tiny);
    const F y_scaled = cbrt_float_or_bfloat16_normal<kBFloat16, Ops>(
                           scaled, Ops::abs(scaled)) *
        F(T(0x1p-8f));
    return F::blendv(
        x,
        F::blendv(y, y_scaled, tiny),
        ax <= F(std::numeric_limits<T>::max()));
  }
  return y;
}

template <typename T, bool kFmaddIsFused>
Vectorized<T> inline cbrt_double(const Vectorized<T>& x) {
  using Ops = CbrtOps<T, kFmaddIsFused>;
  using F = Vectorized<T>;
  const F ax = Ops::abs(x);
  const F y = Ops::with_sign_of(cbrt_double_normal<Ops>(ax), x);
  if (C10_UNLIKELY(Ops::any_not_normal(ax)) && Ops::any_special(ax)) {
    const F tiny = ax < F(std::numeric_limits<T>::min());
    const F y_tiny = Ops::with_sign_of(
        cbrt_double_accurate<Ops>(ax * F(T(0x1p300))) * F(T(0x1p-100)), x);
    return F::blendv(
        x, F::blendv(y, y_tiny, tiny), ax <= F(std::numeric_limits<T>::max()));
  }
  return y;
}

template <typename T, bool kFmaddIsFused>
Vectorized<T> inline cbrt_vectorized(const Vectorized<T>& a) {
  if constexpr (std::is_same_v<T, float>) {
    return cbrt_float<T, kFmaddIsFused>(a);
  } else if constexpr (std::is_same_v<T, double>) {
    return cbrt_double<T, kFmaddIsFused>(a);
  } else if constexpr (std::is_same_v<T, c10::Half>) {
    using Ops = CbrtOps<float, kFmaddIsFused>;
    const auto [lo, hi] = convert_half_float(a);
    return convert_float_half(cbrt_half<Ops>(lo), cbrt_half<Ops>(hi));
  } else {
    static_assert(
        std::is_same_v<T, c10::BFloat16>,
        "cbrt is implemented for float, double, Half and BFloat16");
    // Each 32-bit lane holds two bfloat16 values: with the other half cleared
    // or shifted out, each is a float, whose cube root is rounded to bfloat16
    // (infinities and NaNs keep their bits: the low 16 are 0). The results
    // are bfloat16 values, so they pack back without rounding.
    using Ops = CbrtOps<float, kFmaddIsFused>;
    using I = typename Ops::I;
    const auto bfloat16_results = [](const I& widened) {
      return cast<int32_t>(round_to_bfloat16<Ops>(
          cbrt_float<float, kFmaddIsFused, true>(cast<float>(widened))));
    };
    const I pairs = cast<int32_t>(a);
    const I high =
        bfloat16_results(pairs & I(static_cast<int32_t>(0xffff0000)));
    const I low = bfloat16_results(pairs << I(16));
    return cast<T>(high | ((low >> I(16)) & I(0xffff)));
  }
}

// Vectorized<T>::cbrt() where Vectorized<T> (for Half and BFloat16: the
// Vectorized<float> they convert to) has fused fmadd, fmsub and fnmadd.
template <typename T>
Vectorized<T> inline cbrt_with_fmadd(const Vectorized<T>& a) {
  return cbrt_vectorized<T, true>(a);
}

// The generic Vectorized<T>::cbrt(): its fmadd rounds twice, so each lane
// fuses. Declared in vec_base.h before Vectorized, hence V.
template <typename V>
V cbrt_with_fma_per_lane(const V& a) {
  return cbrt_vectorized<typename V::value_type, false>(a);
}

} // namespace cbrt_detail
} // namespace CPU_CAPABILITY
} // namespace at::vec

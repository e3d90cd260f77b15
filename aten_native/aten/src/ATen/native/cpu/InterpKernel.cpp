#define TORCH_ASSERT_NO_OPERATORS
#include <ATen/native/Interp.h>

#include <cmath>
#include <cstdint>

#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/Parallel.h>
#include <ATen/TensorIterator.h>
#include <ATen/core/TensorBase.h>
#include <c10/core/Scalar.h>
#include <c10/util/complex.h>

namespace at::native {
inline namespace CPU_CAPABILITY {
namespace {

// NOTE: [interp is numpy.interp]
// For float64 the result is numpy.interp's, bit for bit: the search and the
// arithmetic below are those of numpy's arr_interp and arr_interp_complex
// (numpy/_core/src/multiarray/compiled_base.c), operation for operation.
// Other dtypes run the same steps in their opmath type.
//
// The search: numpy's binary_search_with_guess, which first tries the index
// found for the previous query and its neighbours, then a window of 8 around
// it, then bisects; sorted queries (the common case: resampling a signal)
// walk through the sample points instead of searching. For increasing xp
// every search gives the same index, the last j with xp[j] <= x, so the
// guess changes the speed, never the result.

constexpr int64_t kLikelyInCacheSize = 8;

template <typename opmath_t, typename position_t>
inline bool at_or_above(opmath_t key, const position_t* xp, int64_t i) {
  return key >= static_cast<opmath_t>(xp[i]);
}

// The last j with xp[j] <= key, -1 below xp[0], n above xp[n - 1].
template <typename opmath_t, typename position_t>
int64_t search_with_guess(
    opmath_t key,
    const position_t* xp,
    int64_t n,
    int64_t guess) {
  if (key > static_cast<opmath_t>(xp[n - 1])) {
    return n;
  } else if (key < static_cast<opmath_t>(xp[0])) {
    return -1;
  }
  if (n <= 4) {
    // key >= xp[0] from above
    int64_t i = 1;
    while (i < n && at_or_above(key, xp, i)) {
      i++;
    }
    return i - 1;
  }
  guess = std::min(guess, n - 3);
  guess = std::max<int64_t>(guess, 1);
  int64_t low = 0;
  int64_t high = n;
  if (!at_or_above(key, xp, guess)) {
    if (at_or_above(key, xp, guess - 1)) {
      return guess - 1;
    }
    high = guess - 1;
    if (guess > kLikelyInCacheSize &&
        at_or_above(key, xp, guess - kLikelyInCacheSize)) {
      low = guess - kLikelyInCacheSize;
    }
  } else {
    if (!at_or_above(key, xp, guess + 1)) {
      return guess;
    }
    if (!at_or_above(key, xp, guess + 2)) {
      return guess + 1;
    }
    low = guess + 2;
    if (guess < n - kLikelyInCacheSize - 1 &&
        !at_or_above(key, xp, guess + kLikelyInCacheSize)) {
      high = guess + kLikelyInCacheSize;
    }
  }
  while (low < high) {
    const int64_t mid = low + ((high - low) >> 1);
    if (at_or_above(key, xp, mid)) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  return low - 1;
}

// numpy rounds slope * (x - xp[j]) before adding fp[j]. GCC in its GNU modes
// (-ffp-contract=fast) and clang (-ffp-contract=on) may fuse the two into one
// FMA, which rounds once and changes the result; the product is passed
// through an empty asm statement the compiler cannot see into, so it is
// rounded as written whatever the flags.
template <typename T>
inline T rounded(T value) {
#if defined(__GNUC__)
  __asm__("" : "+m"(value));
#endif
  return value;
}

template <typename T>
inline T line(T slope, T x, T xp_j, T fp_j) {
  return rounded(slope * (x - xp_j)) + fp_j;
}

// One part (the real number, or the real or imaginary part of a complex one)
// between two sample points: numpy's "if we get nan in one direction, try the
// other", and the value of a flat segment whose slope is NaN (infinite fp).
template <typename T>
inline T between(T slope, T x, T xp0, T xp1, T fp0, T fp1) {
  T result = line(slope, x, xp0, fp0);
  if (C10_UNLIKELY(std::isnan(result))) {
    result = line(slope, x, xp1, fp1);
    if (C10_UNLIKELY(std::isnan(result)) && fp0 == fp1) {
      result = fp0;
    }
  }
  return result;
}

template <typename scalar_t>
struct InterpReal {
  using opmath_t = at::opmath_type<scalar_t>;
  using position_t = scalar_t;
  using value_t = opmath_t;

  static value_t load(scalar_t v) {
    return static_cast<opmath_t>(v);
  }
  static value_t nan_query(opmath_t x) {
    return x;
  }
  static value_t interpolate(
      opmath_t x,
      opmath_t xp0,
      opmath_t xp1,
      value_t fp0,
      value_t fp1) {
    const opmath_t slope = (fp1 - fp0) / (xp1 - xp0);
    return between(slope, x, xp0, xp1, fp0, fp1);
  }
};

template <typename scalar_t>
struct InterpComplex {
  using real_t = typename scalar_t::value_type;
  using opmath_t = at::opmath_type<real_t>;
  using position_t = real_t;
  using value_t = c10::complex<opmath_t>;

  static value_t load(scalar_t v) {
    return value_t(v);
  }
  static value_t nan_query(opmath_t x) {
    return value_t(x, 0);
  }
  // numpy's complex loop multiplies by the inverse width, where the real one
  // divides.
  static value_t interpolate(
      opmath_t x,
      opmath_t xp0,
      opmath_t xp1,
      value_t fp0,
      value_t fp1) {
    const opmath_t inv_width = opmath_t(1) / (xp1 - xp0);
    const opmath_t slope_real = (fp1.real() - fp0.real()) * inv_width;
    const opmath_t slope_imag = (fp1.imag() - fp0.imag()) * inv_width;
    return value_t(
        between(slope_real, x, xp0, xp1, fp0.real(), fp1.real()),
        between(slope_imag, x, xp0, xp1, fp0.imag(), fp1.imag()));
  }
};

template <typename scalar_t, typename Ops>
void interp_rows(
    const TensorBase& result,
    const TensorBase& x,
    const TensorBase& xp,
    const TensorBase& fp,
    const std::optional<c10::Scalar>& left,
    const std::optional<c10::Scalar>& right) {
  using opmath_t = typename Ops::opmath_t;
  using position_t = typename Ops::position_t;
  using value_t = typename Ops::value_t;
  const int64_t queries = result.size(1);
  const int64_t n = xp.size(1);
  // a tensor of one row serves every row
  const int64_t x_row_stride = x.size(0) == 1 ? 0 : queries;
  const int64_t xp_row_stride = xp.size(0) == 1 ? 0 : n;
  const int64_t fp_row_stride = fp.size(0) == 1 ? 0 : n;
  const position_t* x_data = x.const_data_ptr<position_t>();
  const position_t* xp_data = xp.const_data_ptr<position_t>();
  const scalar_t* fp_data = fp.const_data_ptr<scalar_t>();
  scalar_t* result_data = result.mutable_data_ptr<scalar_t>();
  const std::optional<value_t> left_value = left.has_value()
      ? std::optional<value_t>(left->to<value_t>())
      : std::nullopt;
  const std::optional<value_t> right_value = right.has_value()
      ? std::optional<value_t>(right->to<value_t>())
      : std::nullopt;

  // Each task takes a run of queries; the guess starts again at every row.
  const int64_t grain_size = std::max<int64_t>(internal::GRAIN_SIZE / 4, 1);
  at::parallel_for(
      0, result.numel(), grain_size, [&](int64_t begin, int64_t end) {
        int64_t index = begin;
        while (index < end) {
          const int64_t row = index / queries;
          const int64_t row_end = std::min(end, (row + 1) * queries);
          const position_t* xs = x_data + row * x_row_stride;
          const position_t* xps = xp_data + row * xp_row_stride;
          const scalar_t* fps = fp_data + row * fp_row_stride;
          const value_t first = Ops::load(fps[0]);
          const value_t last = Ops::load(fps[n - 1]);
          const value_t left_fill = left_value.value_or(first);
          const value_t right_fill = right_value.value_or(last);
          if (n == 1) {
            // numpy's one-point case: a NaN query is neither below nor above
            const opmath_t xp0 = static_cast<opmath_t>(xps[0]);
            for (; index < row_end; index++) {
              const opmath_t x_value =
                  static_cast<opmath_t>(xs[index - row * queries]);
              const value_t value = x_value < xp0
                  ? left_fill
                  : (x_value > xp0 ? right_fill : first);
              result_data[index] = static_cast<scalar_t>(value);
            }
            continue;
          }
          int64_t j = 0;
          for (; index < row_end; index++) {
            const opmath_t x_value =
                static_cast<opmath_t>(xs[index - row * queries]);
            value_t value;
            if (std::isnan(x_value)) {
              value = Ops::nan_query(x_value);
            } else {
              j = search_with_guess(x_value, xps, n, j);
              if (j == -1) {
                value = left_fill;
              } else if (j == n) {
                value = right_fill;
              } else if (j == n - 1) {
                value = last;
              } else if (static_cast<opmath_t>(xps[j]) == x_value) {
                // a sample point: its value, not a product with a possibly
                // infinite slope
                value = Ops::load(fps[j]);
              } else {
                value = Ops::interpolate(
                    x_value,
                    static_cast<opmath_t>(xps[j]),
                    static_cast<opmath_t>(xps[j + 1]),
                    Ops::load(fps[j]),
                    Ops::load(fps[j + 1]));
              }
            }
            result_data[index] = static_cast<scalar_t>(value);
          }
        }
      });
}

void interp_kernel(
    const TensorBase& result,
    const TensorBase& x,
    const TensorBase& xp,
    const TensorBase& fp,
    const std::optional<c10::Scalar>& left,
    const std::optional<c10::Scalar>& right) {
  AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(
      kHalf, kBFloat16, result.scalar_type(), "interp_cpu", [&] {
        if constexpr (c10::is_complex<scalar_t>::value) {
          interp_rows<scalar_t, InterpComplex<scalar_t>>(
              result, x, xp, fp, left, right);
        } else {
          interp_rows<scalar_t, InterpReal<scalar_t>>(
              result, x, xp, fp, left, right);
        }
      });
}

} // namespace
} // namespace CPU_CAPABILITY

REGISTER_DISPATCH(interp_stub, &interp_kernel)

} // namespace at::native

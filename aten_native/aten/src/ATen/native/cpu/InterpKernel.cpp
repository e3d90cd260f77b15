#define TORCH_ASSERT_NO_OPERATORS
#include <ATen/native/Interp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/Parallel.h>
#include <ATen/TensorIterator.h>
#include <ATen/core/TensorBase.h>
#include <ATen/cpu/vec/vec.h>
#include <c10/core/Scalar.h>
#include <c10/util/complex.h>
#include <c10/util/irange.h>

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
//
// Where a row has at least as many queries as sample points, numpy computes
// the slopes once, as (fp[j+1] - fp[j]) / (xp[j+1] - xp[j]); so does this
// kernel (the same division, so the same bits). A row whose xp is
// non-decreasing (no NaN) then takes the fast path: random queries bisect
// without branches, and a run of queries inside one segment, or beyond one
// end, is computed a vector at a time with the scalar operations lane by
// lane. Where xp is not sorted numpy's result depends on its search path,
// and the row keeps numpy's steps.

constexpr int64_t kLikelyInCacheSize = 8;

// numpy's two comparisons, each written as numpy writes it: where xp holds a
// NaN, key < xp[i] and key >= xp[i] are both false, so neither is the
// negation of the other.
template <typename opmath_t, typename position_t>
inline bool at_or_above(opmath_t key, const position_t* xp, int64_t i) {
  return key >= static_cast<opmath_t>(xp[i]);
}

template <typename opmath_t, typename position_t>
inline bool below(opmath_t key, const position_t* xp, int64_t i) {
  return key < static_cast<opmath_t>(xp[i]);
}

// numpy's bisection of xp[low, high): the last j with xp[j] <= key where xp
// is non-decreasing.
template <typename opmath_t, typename position_t>
inline int64_t bisect(
    opmath_t key,
    const position_t* xp,
    int64_t low,
    int64_t high) {
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

// The last j with xp[j] <= key, -1 below xp[0], n above xp[n - 1], where xp
// is non-decreasing; elsewhere the j numpy's search finds from this guess.
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
  if (below(key, xp, guess)) {
    if (!below(key, xp, guess - 1)) {
      return guess - 1;
    }
    high = guess - 1;
    if (guess > kLikelyInCacheSize &&
        at_or_above(key, xp, guess - kLikelyInCacheSize)) {
      low = guess - kLikelyInCacheSize;
    }
  } else {
    if (below(key, xp, guess + 1)) {
      return guess;
    }
    if (below(key, xp, guess + 2)) {
      return guess + 1;
    }
    low = guess + 2;
    if (guess < n - kLikelyInCacheSize - 1 &&
        below(key, xp, guess + kLikelyInCacheSize)) {
      high = guess + kLikelyInCacheSize;
    }
  }
  return bisect(key, xp, low, high);
}

// Beyond this many bytes of sample points a search's last steps miss the
// caches (and the TLB) on random queries: a branch-free bisection waits for
// each of those misses in turn, while a branch lets the CPU run ahead on its
// guess and overlap them. Below it, the branch-free one is faster, as it
// never mispredicts (make bench, docs/INTERP_BENCHMARKS.md: random queries
// into 2^17 to 2^20 sample points).
constexpr int64_t kBranchFreeBytes = int64_t{4} << 20;

// The last j with xp[j] <= key, for xp[0] <= key <= xp[n - 1] and a
// non-decreasing xp: the index every search finds, without a branch to
// mispredict on random queries where xp fits the caches.
template <typename opmath_t, typename position_t>
inline int64_t bisect_sorted(opmath_t key, const position_t* xp, int64_t n) {
  if (n * static_cast<int64_t>(sizeof(position_t)) > kBranchFreeBytes) {
    return bisect(key, xp, 0, n);
  }
  const position_t* base = xp;
  int64_t length = n;
  while (length > 1) {
    const int64_t half = length / 2;
    base += at_or_above(key, base, half) ? half : 0;
    length -= half;
  }
  return base - xp;
}

// The same index for a query a few sample points on from the last one's, as
// sorted queries are: the segment of `from` itself (many sorted queries per
// segment), else the points of the kLikelyInCacheSize after it that key
// reaches, counted, not searched, so that no branch depends on how far it
// went. -1 where key lies before xp[from] or beyond the window.
template <typename opmath_t, typename position_t>
inline int64_t step_sorted(
    opmath_t key,
    const position_t* xp,
    int64_t n,
    int64_t from) {
  from = std::clamp<int64_t>(from, 0, n - 1);
  if (!at_or_above(key, xp, from)) {
    return -1;
  }
  if (from == n - 1 || !at_or_above(key, xp, from + 1)) {
    return from;
  }
  const int64_t top = std::min(from + kLikelyInCacheSize, n - 1);
  if (top < n - 1 && at_or_above(key, xp, top + 1)) {
    return -1;
  }
  int64_t j = from + 1;
  for (int64_t i = from + 2; i <= top; i++) {
    j += at_or_above(key, xp, i);
  }
  return j;
}

// Whether xp[0] <= xp[1] <= ... <= xp[n - 1]; a NaN fails every comparison,
// so it makes a row of two or more points unsorted.
template <typename opmath_t, typename position_t>
bool is_non_decreasing(const position_t* xp, int64_t n) {
  return std::adjacent_find(xp, xp + n, [](position_t a, position_t b) {
           return !(static_cast<opmath_t>(a) <= static_cast<opmath_t>(b));
         }) == xp + n;
}

// The end of the run of a row's queries, [index, end), that the task holding
// [index, task_end) computes. numpy searches a row's queries in order, each
// from the index found for the one before; where xp is non-decreasing every
// search finds the same index, so the row may be split between tasks, but
// where it is not the index depends on that path. Then the task that holds
// the row's first query computes the whole row and the others none of it
// (index itself), so that no result depends on the number of threads.
template <typename IsSorted>
int64_t row_run_end(
    int64_t index,
    int64_t task_end,
    int64_t row_begin,
    int64_t row_end,
    const IsSorted& is_sorted) {
  const int64_t run_end = std::min(task_end, row_end);
  if ((index == row_begin && run_end == row_end) || is_sorted()) {
    return run_end;
  }
  return index == row_begin ? row_end : index;
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

// The row of x, xp and fp that each row of the result reads (Interp.h).
enum InterpInput { kX = 0, kXp = 1, kFp = 2 };

struct RowMap {
  const int64_t* index; // (rows, 3), or null
  std::array<int64_t, 3> rows; // the rows of x, xp and fp

  int64_t of(int64_t row, InterpInput input) const {
    if (index != nullptr) {
      return index[3 * row + input];
    }
    return rows[input] == 1 ? 0 : row;
  }
};

RowMap row_map(
    const TensorBase& x,
    const TensorBase& xp,
    const TensorBase& fp,
    const TensorBase& row_index) {
  return {
      row_index.defined() ? row_index.const_data_ptr<int64_t>() : nullptr,
      {x.size(0), xp.size(0), fp.size(0)}};
}

// left or right as the value type, where given (fp[0] or fp[n - 1] otherwise)
template <typename value_t>
std::optional<value_t> fill_value(const std::optional<c10::Scalar>& fill) {
  return fill.has_value() ? std::optional<value_t>(fill->to<value_t>())
                          : std::nullopt;
}

template <typename scalar_t, typename Ops>
void interp_rows(
    const TensorBase& result,
    const TensorBase& x,
    const TensorBase& xp,
    const TensorBase& fp,
    const RowMap& rows,
    const std::optional<c10::Scalar>& left,
    const std::optional<c10::Scalar>& right) {
  using opmath_t = typename Ops::opmath_t;
  using position_t = typename Ops::position_t;
  using value_t = typename Ops::value_t;
  const int64_t queries = result.size(1);
  const int64_t n = xp.size(1);
  const position_t* x_data = x.const_data_ptr<position_t>();
  const position_t* xp_data = xp.const_data_ptr<position_t>();
  const scalar_t* fp_data = fp.const_data_ptr<scalar_t>();
  scalar_t* result_data = result.mutable_data_ptr<scalar_t>();
  const auto left_value = fill_value<value_t>(left);
  const auto right_value = fill_value<value_t>(right);

  // Each task takes a run of queries; the guess starts again at every row.
  const int64_t grain_size = std::max<int64_t>(internal::GRAIN_SIZE / 4, 1);
  at::parallel_for(
      0, result.numel(), grain_size, [&](int64_t begin, int64_t end) {
        int64_t index = begin;
        while (index < end) {
          const int64_t row = index / queries;
          const position_t* xs = x_data + rows.of(row, kX) * queries;
          const position_t* xps = xp_data + rows.of(row, kXp) * n;
          const int64_t row_end =
              row_run_end(index, end, row * queries, (row + 1) * queries, [&] {
                return is_non_decreasing<opmath_t>(xps, n);
              });
          if (row_end == index) {
            index = (row + 1) * queries;
            continue;
          }
          const scalar_t* fps = fp_data + rows.of(row, kFp) * n;
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

// One row's sample points with numpy's precomputed slopes (slopes[j] that of
// segment j). run() is the fast path, for xp non-decreasing without NaN.
template <typename scalar_t>
struct SlopedRow {
  using opmath_t = at::opmath_type<scalar_t>;
  const scalar_t* xp;
  const scalar_t* fp;
  const opmath_t* slopes;
  int64_t n;
  opmath_t left_fill;
  opmath_t right_fill;

  // numpy's steps after its search, for the index j every search finds
  opmath_t at(opmath_t x, int64_t j) const {
    if (j == -1) {
      return left_fill;
    } else if (j == n) {
      return right_fill;
    } else if (j == n - 1) {
      return static_cast<opmath_t>(fp[n - 1]);
    } else if (static_cast<opmath_t>(xp[j]) == x) {
      return static_cast<opmath_t>(fp[j]);
    }
    return between(
        slopes[j],
        x,
        static_cast<opmath_t>(xp[j]),
        static_cast<opmath_t>(xp[j + 1]),
        static_cast<opmath_t>(fp[j]),
        static_cast<opmath_t>(fp[j + 1]));
  }

  // The first and last sample points bound the search, as in
  // search_with_guess; a NaN query is its own result. `near` is a two-bit
  // saturating counter of searches that ended a few points on from the last
  // one, as sorted queries do: while it is high, the next is looked for there
  // first (step_sorted); while it is low (random queries), bisection is
  // faster. A counter, not the last search alone, so that a sorted run's
  // occasional longer step keeps the walk.
  static constexpr int kNearMax = 3;
  static constexpr int kNearForWalk = 2;

  opmath_t scalar(opmath_t x, int64_t& j, int& near) const {
    if (std::isnan(x)) {
      return x;
    }
    if (x > static_cast<opmath_t>(xp[n - 1])) {
      j = n;
    } else if (x < static_cast<opmath_t>(xp[0])) {
      j = -1;
    } else {
      const int64_t last = j;
      j = near >= kNearForWalk ? step_sorted(x, xp, n, last) : -1;
      if (j < 0) {
        j = bisect_sorted(x, xp, n);
      }
      const bool walked =
          static_cast<uint64_t>(j - last) <= uint64_t{kLikelyInCacheSize};
      near = walked ? std::min(near + 1, kNearMax) : std::max(near - 1, 0);
    }
    return at(x, j);
  }

  // A vector of queries that all lie in the segment of the first or the one
  // after it, or all beyond one end: the scalar steps lane by lane (the same
  // operations, so the same bits). The second segment serves sorted queries
  // a few per segment, whose vectors mostly straddle a sample point. False,
  // with nothing written, where the lanes spread wider or a line gives NaN
  // (numpy's retry rule, left to the scalar steps).
  bool vector(const scalar_t* x, scalar_t* out, int64_t& j) const {
    using Vec = vec::Vectorized<scalar_t>;
    constexpr int all_lanes = (1 << Vec::size()) - 1;
    const scalar_t first = x[0];
    if (std::isnan(first)) {
      return false;
    }
    const Vec queries = Vec::loadu(x);
    if (first < xp[0] || first > xp[n - 1]) {
      const bool below = first < xp[0];
      const Vec outside =
          below ? queries < Vec(xp[0]) : queries > Vec(xp[n - 1]);
      if (outside.zero_mask() != 0) {
        return false;
      }
      Vec(below ? left_fill : right_fill).store(out);
      return true;
    }
    j = search_with_guess(first, xp, n, j);
    if (j == n - 1) {
      return false;
    }
    const Vec low(xp[j]);
    if ((queries >= low).zero_mask() != 0) {
      return false;
    }
    const Vec middle(xp[j + 1]);
    const Vec below_middle = queries < middle;
    Vec value = segment(queries, low, j);
    if (below_middle.zero_mask() != 0) {
      // some lanes lie at or beyond xp[j + 1]: in segment j + 1, which
      // search_with_guess would find for them, if below xp[j + 2]
      if (j + 2 >= n || (queries < Vec(xp[j + 2])).zero_mask() != 0) {
        return false;
      }
      value = Vec::blendv(segment(queries, middle, j + 1), value, below_middle);
    }
    if (value.isnan().zero_mask() != all_lanes) {
      return false;
    }
    value.store(out);
    return true;
  }

  // Segment j's line at each query; a query on the sample point takes its
  // value, as in at().
  vec::Vectorized<scalar_t> segment(
      const vec::Vectorized<scalar_t>& queries,
      const vec::Vectorized<scalar_t>& low,
      int64_t j) const {
    using Vec = vec::Vectorized<scalar_t>;
    const Vec fp_j(fp[j]);
    return Vec::blendv(
        line(Vec(slopes[j]), queries, low, fp_j), fp_j, queries == low);
  }

  void run(const scalar_t* x, scalar_t* out, int64_t count) const {
    int64_t index = 0;
    int64_t j = 0;
    int near = kNearMax;
    if constexpr (std::is_same_v<scalar_t, opmath_t>) {
      // Vectors while queries keep to one segment (sorted queries, or a run
      // beyond an end); after a miss, the next vector is tried once a
      // vector's worth of queries has gone scalar. Where the queries are not
      // walking (random ones, which never keep to a segment), each further
      // miss in a row sends twice as many scalar first (up to 64 vectors),
      // so that they pay for an attempt rarely.
      constexpr int64_t lanes = vec::Vectorized<scalar_t>::size();
      int64_t misses = 0;
      while (index + lanes <= count) {
        if (vector(x + index, out + index, j)) {
          misses = 0;
          near = kNearMax;
          index += lanes;
          continue;
        }
        // sorted queries that straddle two segments retry at the next vector
        const int64_t backoff = near >= kNearForWalk
            ? 1
            : int64_t{1} << std::min<int64_t>(misses, 6);
        const int64_t scalar_end = std::min(count, index + lanes * backoff);
        misses++;
        for (; index < scalar_end; index++) {
          out[index] = scalar(x[index], j, near);
        }
      }
    }
    for (; index < count; index++) {
      out[index] = static_cast<scalar_t>(
          scalar(static_cast<opmath_t>(x[index]), j, near));
    }
  }
};

// Real rows with at least as many queries as sample points (n >= 2): numpy's
// precomputed slopes, and the fast path where xp is sorted.
template <typename scalar_t>
void interp_sorted_rows(
    const TensorBase& result,
    const TensorBase& x,
    const TensorBase& xp,
    const TensorBase& fp,
    const RowMap& row_of,
    const std::optional<c10::Scalar>& left,
    const std::optional<c10::Scalar>& right) {
  using opmath_t = at::opmath_type<scalar_t>;
  const int64_t rows = result.size(0);
  const int64_t queries = result.size(1);
  const int64_t n = xp.size(1);
  const int64_t xp_rows = xp.size(0);
  // one row of slopes where every result row reads the same sample points,
  // else one per result row (at most the result's size: queries >= n)
  const int64_t slope_rows = xp_rows == 1 && fp.size(0) == 1 ? 1 : rows;
  const scalar_t* x_data = x.const_data_ptr<scalar_t>();
  const scalar_t* xp_data = xp.const_data_ptr<scalar_t>();
  const scalar_t* fp_data = fp.const_data_ptr<scalar_t>();
  scalar_t* result_data = result.mutable_data_ptr<scalar_t>();

  std::vector<opmath_t> slopes(slope_rows * (n - 1));
  at::parallel_for(
      0,
      slope_rows,
      internal::GRAIN_SIZE / n + 1,
      [&](int64_t begin, int64_t end) {
        for (const auto row : c10::irange(begin, end)) {
          const scalar_t* xps = xp_data + row_of.of(row, kXp) * n;
          const scalar_t* fps = fp_data + row_of.of(row, kFp) * n;
          opmath_t* row_slopes = slopes.data() + row * (n - 1);
          for (const auto j : c10::irange(n - 1)) {
            row_slopes[j] = (static_cast<opmath_t>(fps[j + 1]) -
                             static_cast<opmath_t>(fps[j])) /
                (static_cast<opmath_t>(xps[j + 1]) -
                 static_cast<opmath_t>(xps[j]));
          }
        }
      });
  std::vector<char> xp_sorted(xp_rows);
  for (const auto row : c10::irange(xp_rows)) {
    xp_sorted[row] = is_non_decreasing<opmath_t>(xp_data + row * n, n);
  }

  const auto left_value = fill_value<opmath_t>(left);
  const auto right_value = fill_value<opmath_t>(right);
  const int64_t grain_size = std::max<int64_t>(internal::GRAIN_SIZE / 4, 1);
  at::parallel_for(
      0, rows * queries, grain_size, [&](int64_t begin, int64_t end) {
        int64_t index = begin;
        while (index < end) {
          const int64_t row = index / queries;
          const int64_t xp_row = row_of.of(row, kXp);
          const int64_t row_end =
              row_run_end(index, end, row * queries, (row + 1) * queries, [&] {
                return static_cast<bool>(xp_sorted[xp_row]);
              });
          if (row_end == index) {
            index = (row + 1) * queries;
            continue;
          }
          const scalar_t* xps = xp_data + xp_row * n;
          const scalar_t* fps = fp_data + row_of.of(row, kFp) * n;
          const opmath_t* row_slopes =
              slopes.data() + (slope_rows == 1 ? 0 : row * (n - 1));
          const scalar_t* xs =
              x_data + row_of.of(row, kX) * queries + (index - row * queries);
          const opmath_t left_fill =
              left_value.value_or(static_cast<opmath_t>(fps[0]));
          const opmath_t right_fill =
              right_value.value_or(static_cast<opmath_t>(fps[n - 1]));
          const SlopedRow<scalar_t> sloped_row{
              xps, fps, row_slopes, n, left_fill, right_fill};
          if (xp_sorted[xp_row]) {
            sloped_row.run(xs, result_data + index, row_end - index);
          } else {
            // numpy's steps, whose search path decides the segment
            int64_t j = 0;
            for (int64_t i = 0; i < row_end - index; i++) {
              const opmath_t x_value = static_cast<opmath_t>(xs[i]);
              opmath_t value;
              if (std::isnan(x_value)) {
                value = x_value;
              } else {
                j = search_with_guess(x_value, xps, n, j);
                value = sloped_row.at(x_value, j);
              }
              result_data[index + i] = static_cast<scalar_t>(value);
            }
          }
          index = row_end;
        }
      });
}

void interp_kernel(
    const TensorBase& result,
    const TensorBase& x,
    const TensorBase& xp,
    const TensorBase& fp,
    const TensorBase& row_index,
    const std::optional<c10::Scalar>& left,
    const std::optional<c10::Scalar>& right) {
  const RowMap rows = row_map(x, xp, fp, row_index);
  AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(
      kHalf, kBFloat16, result.scalar_type(), "interp_cpu", [&] {
        if constexpr (c10::is_complex<scalar_t>::value) {
          interp_rows<scalar_t, InterpComplex<scalar_t>>(
              result, x, xp, fp, rows, left, right);
        } else if (xp.size(1) >= 2 && result.size(1) >= xp.size(1)) {
          interp_sorted_rows<scalar_t>(result, x, xp, fp, rows, left, right);
        } else {
          interp_rows<scalar_t, InterpReal<scalar_t>>(
              result, x, xp, fp, rows, left, right);
        }
      });
}

} // namespace
} // namespace CPU_CAPABILITY

REGISTER_DISPATCH(interp_stub, &interp_kernel)

} // namespace at::native

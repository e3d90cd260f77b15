#define TORCH_ASSERT_NO_OPERATORS
#include <ATen/native/ReduceOps.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <ATen/cpu/vec/vec.h>
#include <ATen/native/TensorIterator.h>
#include <c10/util/irange.h>
#include <c10/util/llvmMathExtras.h>

namespace at::native {
inline namespace CPU_CAPABILITY {
namespace {

// NOTE: [nanvar and nanstd give the same bits on any thread count and CPU]
// Each output reduces its elements in their logical order (the caller builds
// the iterator with the reduced dimensions innermost and a linear iteration
// order), split into blocks of kBlockSize elements counted from the first.
// Every block's count, mean and sum of squared deviations (M2) is computed in
// double, two passes over the block in cache, and the blocks are merged with
// Chan et al.'s formulas in a fixed pairwise order. Neither the split nor the
// order depends on the thread count, the layout or the vector width:
// - the passes keep kLanes partial sums whatever Vectorized<double>::size()
//   is, element i of a block going to lane i % kLanes, and add the lanes up
//   in their order;
// - no product is left for the compiler to fuse into an addition (GCC's GNU
//   modes and clang contract a * b + c into an FMA on builds whose ISA has
//   one): products are rounded as written (rounded()) or fused explicitly
//   (std::fma) on every build.
// The elements are shifted by the first non-NaN one before any sum: data far
// from zero (1e6 +- 1) then loses no digits in the block means, whose
// differences Chan's merge multiplies.

using vec::Vectorized;

constexpr int64_t kBlockSize = 2048;
constexpr int64_t kLanes = 16;

struct NanMoments {
  int64_t count = 0;
  double mean = 0;
  double m2 = 0;
};

template <typename T>
inline T rounded(T value) {
#if defined(__GNUC__)
  __asm__("" : "+m"(value));
#endif
  return value;
}

inline NanMoments merge(const NanMoments& a, const NanMoments& b) {
  if (a.count == 0) {
    return b;
  }
  if (b.count == 0) {
    return a;
  }
  const int64_t count = a.count + b.count;
  const double delta = b.mean - a.mean;
  const double b_share =
      static_cast<double>(b.count) / static_cast<double>(count);
  const double spread = delta * delta * static_cast<double>(a.count);
  return {
      count,
      std::fma(delta, b_share, a.mean),
      std::fma(spread, b_share, a.m2 + b.m2)};
}

// Merges adjacent blocks, then adjacent pairs, and so on: the order is fixed
// by the number of blocks alone.
inline NanMoments merge_in_pairs(std::vector<NanMoments>& blocks) {
  for (size_t width = blocks.size(); width > 1; width = (width + 1) / 2) {
    for (const auto i : c10::irange(width / 2)) {
      blocks[i] = merge(blocks[2 * i], blocks[2 * i + 1]);
    }
    if (width % 2 == 1) {
      blocks[width / 2] = blocks[width - 1];
    }
  }
  return blocks.empty() ? NanMoments{} : blocks[0];
}

// The moments of `padded` elements (a multiple of kLanes) of which the NaNs
// are skipped.
inline NanMoments block_moments(const double* values, int64_t padded) {
  using Vec = Vectorized<double>;
  static_assert(kLanes % Vec::size() == 0);
  constexpr int64_t kVecs = kLanes / Vec::size();
  const Vec zero(0.0);
  const Vec one(1.0);
  std::array<Vec, kVecs> sums;
  std::array<Vec, kVecs> counts;
  sums.fill(zero);
  counts.fill(zero);
  for (int64_t i = 0; i < padded; i += kLanes) {
    for (const auto v : c10::irange(kVecs)) {
      const auto x = Vec::loadu(values + i + v * Vec::size());
      const auto is_nan = x.isnan();
      sums[v] = sums[v] + Vec::blendv(x, zero, is_nan);
      counts[v] = counts[v] + Vec::blendv(one, zero, is_nan);
    }
  }
  std::array<double, kLanes> lanes{};
  std::array<double, kLanes> lane_counts{};
  for (const auto v : c10::irange(kVecs)) {
    sums[v].store(lanes.data() + v * Vec::size());
    counts[v].store(lane_counts.data() + v * Vec::size());
  }
  double sum = 0;
  double count = 0;
  for (const auto lane : c10::irange(kLanes)) {
    sum += lanes[lane];
    count += lane_counts[lane];
  }
  if (count == 0) {
    return {};
  }
  const double mean = sum / count;
  const Vec mean_vec(mean);
  std::array<Vec, kVecs> m2s;
  m2s.fill(zero);
  for (int64_t i = 0; i < padded; i += kLanes) {
    std::array<Vec, kVecs> squares;
    for (const auto v : c10::irange(kVecs)) {
      const auto x = Vec::loadu(values + i + v * Vec::size());
      const auto deviation = Vec::blendv(x - mean_vec, zero, x.isnan());
      squares[v] = deviation * deviation;
    }
    squares = rounded(squares);
    for (const auto v : c10::irange(kVecs)) {
      m2s[v] = m2s[v] + squares[v];
    }
  }
  for (const auto v : c10::irange(kVecs)) {
    m2s[v].store(lanes.data() + v * Vec::size());
  }
  double m2 = 0;
  for (const auto lane : c10::irange(kLanes)) {
    m2 += lanes[lane];
  }
  return {static_cast<int64_t>(count), mean, m2};
}

// Copies elements [begin, end) of the slice, in their order, into `values`
// as doubles minus `shift`, NaN-padded to a multiple of kLanes; returns the
// padded length.
template <typename scalar_t>
int64_t gather(
    const TensorIteratorBase& slice,
    int64_t begin,
    int64_t end,
    double shift,
    double* values) {
  double* out = values;
  slice.serial_for_each(
      [&](char** data, const int64_t* strides, int64_t size0, int64_t size1) {
        // operand 0 is the output, operand 1 the input
        const int64_t inner = strides[1];
        const int64_t outer = strides[3];
        for (const auto i : c10::irange(size1)) {
          const char* row = data[1] + i * outer;
          if (inner == sizeof(scalar_t)) {
            const auto* elements = reinterpret_cast<const scalar_t*>(row);
            for (const auto j : c10::irange(size0)) {
              out[j] = static_cast<double>(elements[j]) - shift;
            }
          } else {
            for (const auto j : c10::irange(size0)) {
              out[j] = static_cast<double>(*reinterpret_cast<const scalar_t*>(
                           row + j * inner)) -
                  shift;
            }
          }
          out += size0;
        }
      },
      {begin, end});
  const int64_t count = end - begin;
  const int64_t padded = divup(count, kLanes) * kLanes;
  std::fill(
      values + count,
      values + padded,
      std::numeric_limits<double>::quiet_NaN());
  return padded;
}

template <typename scalar_t>
NanMoments slice_moments(const TensorIteratorBase& slice) {
  const int64_t numel = slice.numel();
  const int64_t num_blocks = divup(numel, kBlockSize);
  std::vector<NanMoments> blocks(num_blocks);
  std::array<double, kBlockSize> values;
  // The shift is the first non-NaN element, or 0 if it is not finite (an
  // infinite element makes the result NaN whatever the shift). The blocks
  // before it hold only NaNs: their moments are empty whatever the shift.
  double shift = 0;
  int64_t block = 0;
  for (; block < num_blocks; ++block) {
    const int64_t begin = block * kBlockSize;
    const int64_t end = std::min(numel, begin + kBlockSize);
    const int64_t padded =
        gather<scalar_t>(slice, begin, end, 0, values.data());
    const auto* first =
        std::find_if(values.data(), values.data() + padded, [](double x) {
          return !std::isnan(x);
        });
    if (first != values.data() + padded) {
      shift = std::isfinite(*first) ? *first : 0;
      std::transform(
          values.data(), values.data() + padded, values.data(), [&](double x) {
            return x - shift;
          });
      blocks[block] = block_moments(values.data(), padded);
      ++block;
      break;
    }
  }
  // within a long reduction, the blocks in parallel; each block's moments do
  // not depend on which thread computes it
  const int64_t grain = divup(at::internal::GRAIN_SIZE, kBlockSize);
  at::parallel_for(block, num_blocks, grain, [&](int64_t first, int64_t last) {
    std::array<double, kBlockSize> local;
    for (const auto b : c10::irange(first, last)) {
      const int64_t begin = b * kBlockSize;
      const int64_t end = std::min(numel, begin + kBlockSize);
      const int64_t padded =
          gather<scalar_t>(slice, begin, end, shift, local.data());
      blocks[b] = block_moments(local.data(), padded);
    }
  });
  return merge_in_pairs(blocks);
}

void nanstd_var_kernel(
    TensorIterator& iter,
    double correction,
    bool take_sqrt) {
  AT_DISPATCH_FLOATING_TYPES_AND2(
      kHalf, kBFloat16, iter.input_dtype(), "nanstd_var_cpu", [&] {
        // parallel over the outputs, and within each output over its blocks
        iter.foreach_reduced_elt([&](TensorIteratorBase& slice) {
          const auto moments = slice_moments<scalar_t>(slice);
          // numpy.nanvar: no degrees of freedom left gives NaN
          const double dof = static_cast<double>(moments.count) - correction;
          const double var = dof > 0 ? moments.m2 / dof
                                     : std::numeric_limits<double>::quiet_NaN();
          *reinterpret_cast<scalar_t*>(slice.data_ptr(0)) =
              static_cast<scalar_t>(take_sqrt ? std::sqrt(var) : var);
        });
      });
}

} // namespace
} // namespace CPU_CAPABILITY

REGISTER_DISPATCH(nanstd_var_stub, &nanstd_var_kernel)

} // namespace at::native

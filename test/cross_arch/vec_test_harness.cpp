// What the vec tests of aten/src/ATen/test/vec_test_all_types.cpp take from
// that file and from vec_test_all_types.h (which the wheel does not ship),
// around the typed tests the patch set adds: scripts/cross_arch/vec_tests.py
// writes those tests to vec_tests.inc and compiles this file once per build.
#include <ATen/cpu/vec/vec.h>
#include <c10/util/bit_cast.h>
#include <c10/util/irange.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#if defined(CPU_CAPABILITY_AVX512)
#define CACHE_LINE 64
#else
#define CACHE_LINE 32
#endif
#define CACHE_ALIGN __attribute__((aligned(CACHE_LINE)))

template <typename T>
using VecType = typename at::vec::Vectorized<T>;

using vfloat = VecType<float>;
using vdouble = VecType<double>;
using vBFloat16 = VecType<c10::BFloat16>;
using vHalf = VecType<c10::Half>;

template <typename T>
using ValueType = typename T::value_type;

template <int N>
struct BitStr {
  using type = uintmax_t;
};
template <>
struct BitStr<8> {
  using type = uint64_t;
};
template <>
struct BitStr<4> {
  using type = uint32_t;
};
template <>
struct BitStr<2> {
  using type = uint16_t;
};

template <typename T>
using BitType = typename BitStr<sizeof(T)>::type;

namespace {
using RealFloatTestedTypes = ::testing::Types<vfloat, vdouble>;
#include "vec_tests.inc"
} // namespace

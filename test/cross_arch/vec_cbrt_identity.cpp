// Vectorized<T>::cbrt() on a fixed, portable set of inputs, for one CPU
// capability.
//
// Built once per architecture and capability (see
// scripts/cross_arch/targets.py) and run natively or under qemu-user. For each
// dtype it writes the input and result bit patterns, little-endian whatever the
// target's byte order, to <out_dir>/<dtype>.in and <out_dir>/<dtype>.out; the
// driver compares them across builds. The program itself checks that every tail
// length (loadu/store with a count) gives the bits of the full-vector pass, and
// exits non-zero naming the first element that does not.
//
// Inputs: every half and bfloat16 bit pattern; for float and double a block of
// special classes (signed zeros, infinities, NaNs, subnormals, the
// normal/subnormal boundary, exact cubes and their neighbours) placed side by
// side so that they share vectors, followed by random bit patterns from
// splitmix64.

#include <ATen/cpu/vec/vec.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#ifndef CROSS_ARCH_OP
#define CROSS_ARCH_OP cbrt
#endif

namespace {

using at::vec::Vectorized;

template <typename T>
using Bits = std::conditional_t<
    sizeof(T) == 2,
    uint16_t,
    std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;

template <typename T>
T from_bits(Bits<T> bits) {
  T value;
  std::memcpy(&value, &bits, sizeof(T));
  return value;
}

template <typename T>
Bits<T> to_bits(T value) {
  Bits<T> bits;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
}

// Bitwise equal, except that any NaN equals any NaN: payloads are not portable
// across hardware.
template <typename T>
bool same_result(T a, T b) {
  const bool a_nan = std::isnan(static_cast<double>(a));
  const bool b_nan = std::isnan(static_cast<double>(b));
  return a_nan || b_nan ? a_nan && b_nan : to_bits(a) == to_bits(b);
}

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Bit patterns of the special classes of float or double, each with its two
// neighbours and both signs.
template <typename T>
std::vector<T> special_inputs() {
  using U = Bits<T>;
  constexpr int total_bits = 8 * sizeof(T);
  constexpr int mantissa_bits = std::numeric_limits<T>::digits - 1;
  const U sign = U(1) << (total_bits - 1);
  const U exponent_mask = U(~U(0) << mantissa_bits) & U(~sign);
  const U infinity = exponent_mask;
  const U quiet_nan = infinity | (U(1) << (mantissa_bits - 1));
  const U signaling_nan = infinity | U(1);
  const U max_subnormal = (U(1) << mantissa_bits) - 1;
  const U min_normal = U(1) << mantissa_bits;
  std::vector<U> centres = {
      0,
      1,
      2,
      3,
      max_subnormal - 1,
      max_subnormal,
      min_normal,
      min_normal + 1,
      to_bits(T(1)),
      to_bits(T(8)),
      to_bits(T(27)),
      to_bits(T(0.125)),
      to_bits(T(1000)),
      U(infinity - 1),
      infinity,
      quiet_nan,
      signaling_nan,
      U(quiet_nan | max_subnormal)};
  std::vector<T> inputs;
  for (U centre : centres) {
    for (U neighbour : {U(centre - 1), centre, U(centre + 1)}) {
      inputs.push_back(from_bits<T>(neighbour));
      inputs.push_back(from_bits<T>(U(neighbour ^ sign)));
    }
  }
  return inputs;
}

template <typename T>
std::vector<T> inputs_for(uint64_t sample, uint64_t seed) {
  using U = Bits<T>;
  std::vector<T> inputs;
  if constexpr (sizeof(T) == 2) {
    for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
      inputs.push_back(from_bits<T>(U(bits)));
    }
  } else {
    inputs = special_inputs<T>();
    uint64_t state = seed;
    for (uint64_t i = 0; i < sample; ++i) {
      inputs.push_back(from_bits<T>(U(splitmix64(state))));
    }
  }
  return inputs;
}

// Results of `inputs` computed `chunk` elements at a time: whole vectors, or
// loadu/store with a count.
template <typename T>
std::vector<T> apply_in_chunks(const std::vector<T>& inputs, int64_t chunk) {
  std::vector<T> results(inputs.size());
  const int64_t total = static_cast<int64_t>(inputs.size());
  for (int64_t i = 0; i < total; i += chunk) {
    const int64_t count = std::min(chunk, total - i);
    if (count == Vectorized<T>::size()) {
      Vectorized<T>::loadu(inputs.data() + i)
          .CROSS_ARCH_OP()
          .store(results.data() + i);
    } else {
      Vectorized<T>::loadu(inputs.data() + i, count)
          .CROSS_ARCH_OP()
          .store(results.data() + i, static_cast<int>(count));
    }
  }
  return results;
}

template <typename T>
bool write_little_endian(
    const std::string& path,
    const std::vector<T>& values) {
  std::vector<unsigned char> bytes;
  bytes.reserve(values.size() * sizeof(T));
  for (T value : values) {
    const uint64_t bits = to_bits(value);
    for (size_t byte = 0; byte < sizeof(T); ++byte) {
      bytes.push_back(static_cast<unsigned char>(bits >> (8 * byte)));
    }
  }
  FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    return false;
  }
  const bool written =
      std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  return std::fclose(file) == 0 && written;
}

// Every tail length gives the bits of the full-vector pass, on a prefix that
// holds the special classes.
template <typename T>
bool tails_match(
    const std::vector<T>& inputs,
    const std::vector<T>& full,
    const char* name) {
  const std::vector<T> prefix(
      inputs.begin(), inputs.begin() + std::min<size_t>(inputs.size(), 4096));
  for (int64_t chunk = 1; chunk < Vectorized<T>::size(); ++chunk) {
    const std::vector<T> tails = apply_in_chunks(prefix, chunk);
    for (size_t i = 0; i < prefix.size(); ++i) {
      if (!same_result(tails[i], full[i])) {
        std::fprintf(
            stderr,
            "%s: tail of %lld lanes gives 0x%llx for input 0x%llx, full vectors 0x%llx\n",
            name,
            static_cast<long long>(chunk),
            static_cast<unsigned long long>(to_bits(tails[i])),
            static_cast<unsigned long long>(to_bits(prefix[i])),
            static_cast<unsigned long long>(to_bits(full[i])));
        return false;
      }
    }
  }
  return true;
}

template <typename T>
bool run(
    const std::string& out_dir,
    const char* name,
    uint64_t sample,
    uint64_t seed) {
  const std::vector<T> inputs = inputs_for<T>(sample, seed);
  const std::vector<T> results = apply_in_chunks(inputs, Vectorized<T>::size());
  // Written even when a tail differs, so that the driver also compares the
  // full-vector results.
  const bool tails_agree = tails_match(inputs, results, name);
  const std::string stem = out_dir + "/" + name;
  if (!write_little_endian(stem + ".in", inputs) ||
      !write_little_endian(stem + ".out", results)) {
    std::fprintf(stderr, "cannot write %s.in/.out\n", stem.c_str());
    return false;
  }
  std::printf(
      "%s: %zu inputs, %d lanes per vector\n",
      name,
      inputs.size(),
      Vectorized<T>::size());
  return tails_agree;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s OUT_DIR FLOAT_SAMPLE SEED\n", argv[0]);
    return 2;
  }
  const std::string out_dir = argv[1];
  const uint64_t sample = std::strtoull(argv[2], nullptr, 10);
  const uint64_t seed = std::strtoull(argv[3], nullptr, 10);
  // Every dtype runs, so that one failure does not hide another.
  const bool ok[] = {
      run<float>(out_dir, "float32", sample, seed),
      run<double>(out_dir, "float64", sample, seed + 1),
      run<c10::Half>(out_dir, "float16", 0, 0),
      run<c10::BFloat16>(out_dir, "bfloat16", 0, 0)};
  return std::all_of(std::begin(ok), std::end(ok), [](bool b) { return b; })
      ? 0
      : 1;
}

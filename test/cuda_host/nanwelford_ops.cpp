// The reduction ops of nanvar's and nanstd's CUDA kernel (NanWelfordOps, ATen/native/SharedReduceOps.h) run on the
// host, with the accumulate type the kernel takes (at::acc_type<scalar_t, /*is_cuda=*/true>):
//   nanwelford_ops DTYPE ROWS COLUMNS ACCUMULATORS CORRECTION TAKE_SQRT INPUT OUTPUT
// INPUT holds ROWS x COLUMNS values of DTYPE, raw (float16 and bfloat16 as their 16-bit storage); OUTPUT gets one
// double per row. Each row is reduced as gpu_reduce_kernel spreads a reduction over threads: element j goes to
// accumulator j % ACCUMULATORS, each accumulator taking its elements in order (ops.reduce), then the accumulators
// are combined as the warp shuffles and the block and grid steps combine them (accumulator i with i + offset, the
// offset halving from half the accumulators, padded with empty ones to a power of two), then projected.
#include <ATen/AccumulateType.h>
#include <ATen/native/SharedReduceOps.h>

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace {

template <typename scalar_t>
std::vector<double> run(const std::vector<char>& input, size_t rows, size_t columns, size_t accumulators,
                        double correction, bool take_sqrt) {
  using accscalar_t = at::acc_type<scalar_t, /*is_cuda=*/true>;
  using ops_t = at::native::NanWelfordOps<scalar_t, accscalar_t, int32_t, std::pair<scalar_t, scalar_t>>;
  using acc_t = typename ops_t::acc_t;
  const ops_t ops(static_cast<accscalar_t>(correction), take_sqrt);
  size_t padded = 1;
  while (padded < accumulators) {
    padded *= 2;
  }
  std::vector<scalar_t> values(rows * columns);
  std::memcpy(values.data(), input.data(), values.size() * sizeof(scalar_t));
  std::vector<double> results(rows);
  for (size_t row = 0; row < rows; ++row) {
    std::vector<acc_t> accs(padded, acc_t{});
    for (size_t j = 0; j < columns; ++j) {
      acc_t& acc = accs[j % accumulators];
      acc = ops.reduce(acc, values[row * columns + j], static_cast<int32_t>(j));
    }
    for (size_t offset = padded / 2; offset > 0; offset /= 2) {
      for (size_t i = 0; i < offset; ++i) {
        accs[i] = ops.combine(accs[i], accs[i + offset]);
      }
    }
    results[row] = static_cast<double>(ops.project(accs[0]).first);
  }
  return results;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 9) {
    std::fprintf(stderr, "usage: %s DTYPE ROWS COLUMNS ACCUMULATORS CORRECTION TAKE_SQRT INPUT OUTPUT\n", argv[0]);
    return 2;
  }
  const std::string dtype = argv[1];
  const size_t rows = std::strtoull(argv[2], nullptr, 10);
  const size_t columns = std::strtoull(argv[3], nullptr, 10);
  const size_t accumulators = std::strtoull(argv[4], nullptr, 10);
  const double correction = std::strtod(argv[5], nullptr);
  const bool take_sqrt = std::string(argv[6]) == "1";
  std::ifstream in(argv[7], std::ios::binary);
  const std::vector<char> input((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<double> results;
  if (dtype == "float64") {
    results = run<double>(input, rows, columns, accumulators, correction, take_sqrt);
  } else if (dtype == "float32") {
    results = run<float>(input, rows, columns, accumulators, correction, take_sqrt);
  } else if (dtype == "float16") {
    results = run<c10::Half>(input, rows, columns, accumulators, correction, take_sqrt);
  } else if (dtype == "bfloat16") {
    results = run<c10::BFloat16>(input, rows, columns, accumulators, correction, take_sqrt);
  } else {
    std::fprintf(stderr, "unknown dtype %s\n", dtype.c_str());
    return 2;
  }
  std::ofstream out(argv[8], std::ios::binary);
  out.write(reinterpret_cast<const char*>(results.data()), static_cast<std::streamsize>(results.size() * sizeof(double)));
  return out ? 0 : 1;
}

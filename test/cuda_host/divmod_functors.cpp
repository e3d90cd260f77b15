// divmod's CUDA element functions (ATen/native/cuda/DivMod.cuh) run on the host:
//   divmod_functors DTYPE MODE INPUT OUTPUT
// INPUT holds n elements of a then n of b, raw, of DTYPE; OUTPUT gets n quotients then n remainders.
// MODE "tensors" is the kernel's tensor-divisor lambda; "scalar" takes each b as a
// CPU scalar divisor, read in scalar_t for the remainder and in accscalar_t for the quotient, as the kernel reads
// iter.scalar_value. An integer b of 0 must not be given (the host traps on a % 0).
#include <ATen/native/cuda/DivMod.cuh>

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

// The kernel's translation unit has no std::fmod for Half or BFloat16 (c10/util/BFloat16-math.h is CPU-only), so
// their fmod is fmod(float, float) on the device; this must hold here too, or the host would compute other steps.
static_assert(std::is_same_v<decltype(std::fmod(c10::Half(), c10::Half())), float>);
static_assert(std::is_same_v<decltype(std::fmod(c10::BFloat16(), float())), float>);

namespace {

template <typename scalar_t>
void run(const std::string& mode, const std::vector<char>& input, std::vector<char>& output) {
  const size_t n = input.size() / (2 * sizeof(scalar_t));
  std::vector<scalar_t> a(n), b(n), quotient(n), remainder(n);
  std::memcpy(a.data(), input.data(), n * sizeof(scalar_t));
  std::memcpy(b.data(), input.data() + n * sizeof(scalar_t), n * sizeof(scalar_t));
  for (size_t i = 0; i < n; ++i) {
    if constexpr (std::is_integral_v<scalar_t>) {
      // The kernel's integer lambdas are the same for a tensor and a scalar divisor.
      quotient[i] = at::native::divmod_quotient(a[i], b[i]);
    } else if (mode == "scalar") {
      using accscalar_t = at::acc_type<scalar_t, /*is_cuda=*/true>;
      const auto b_acc = static_cast<accscalar_t>(b[i]);
      quotient[i] = at::native::divmod_quotient_by_scalar(a[i], b_acc, accscalar_t(1.0) / b_acc);
    } else {
      quotient[i] = at::native::divmod_quotient(a[i], b[i]);
    }
    remainder[i] = at::native::divmod_remainder(a[i], b[i]);
  }
  output.resize(2 * n * sizeof(scalar_t));
  std::memcpy(output.data(), quotient.data(), n * sizeof(scalar_t));
  std::memcpy(output.data() + n * sizeof(scalar_t), remainder.data(), n * sizeof(scalar_t));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s DTYPE MODE INPUT OUTPUT\n", argv[0]);
    return 2;
  }
  const std::string dtype = argv[1], mode = argv[2];
  std::ifstream in(argv[3], std::ios::binary);
  const std::vector<char> input((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<char> output;
  if (dtype == "uint8") run<uint8_t>(mode, input, output);
  else if (dtype == "int8") run<int8_t>(mode, input, output);
  else if (dtype == "int16") run<int16_t>(mode, input, output);
  else if (dtype == "int32") run<int32_t>(mode, input, output);
  else if (dtype == "int64") run<int64_t>(mode, input, output);
  else if (dtype == "float16") run<c10::Half>(mode, input, output);
  else if (dtype == "bfloat16") run<c10::BFloat16>(mode, input, output);
  else if (dtype == "float32") run<float>(mode, input, output);
  else if (dtype == "float64") run<double>(mode, input, output);
  else {
    std::fprintf(stderr, "unknown dtype %s\n", argv[1]);
    return 2;
  }
  std::ofstream(argv[4], std::ios::binary).write(output.data(), static_cast<std::streamsize>(output.size()));
  return 0;
}

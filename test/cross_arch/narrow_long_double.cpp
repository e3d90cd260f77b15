// The long double functions of an x86-64 build compiled with
// -mlong-double-64, as the C and C++ libraries of MSVC x64 and Apple arm64
// have them: there `long double` is an IEEE double, and cbrtl, frexpl, ldexpl
// are cbrt, frexp, ldexp. A test whose reference computes in long double gets
// only double's precision on those platforms, while Linux x86 (x87's 64-bit
// significand) and aarch64 (IEEE quad) give it more: the build of
// scripts/cross_arch/targets.py that links this file is how this repository
// sees such a test fail without an MSVC or macOS machine.
//
// With -mlong-double-64 GCC passes a long double as a double, but glibc's *l
// functions and libstdc++'s long double output on x86-64 take x87 values: the
// executable defines the ones the vec tests call instead (it is linked
// dynamically, so these definitions win over the libraries' for its calls).
// scripts/cross_arch/vec_tests.py fails the build when it still imports
// another long double function from the libraries.
#include <cmath>
#include <ostream>

static_assert(
    sizeof(long double) == sizeof(double),
    "compile with -mlong-double-64");

extern "C" {
long double cbrtl(long double x) noexcept {
  return std::cbrt(static_cast<double>(x));
}
long double frexpl(long double x, int* exponent) noexcept {
  return std::frexp(static_cast<double>(x), exponent);
}
long double ldexpl(long double x, int exponent) noexcept {
  return std::ldexp(static_cast<double>(x), exponent);
}
long double fabsl(long double x) noexcept {
  return std::fabs(static_cast<double>(x));
}
long double sqrtl(long double x) noexcept {
  return std::sqrt(static_cast<double>(x));
}
long double fmal(long double x, long double y, long double z) noexcept {
  return std::fma(
      static_cast<double>(x), static_cast<double>(y), static_cast<double>(z));
}
long double nextafterl(long double x, long double y) noexcept {
  return std::nextafter(static_cast<double>(x), static_cast<double>(y));
}
}

// std::ostream::operator<<(long double) calls libstdc++'s
// ostream::_M_insert<long double>, which reads an x87 value: printed as the
// double it is (gtest prints the operands of a failed ASSERT_LE this way).
std::ostream& insert_long_double(std::ostream* os, long double value) __asm__(
    "_ZNSo9_M_insertIeEERSoT_");
std::ostream& insert_long_double(std::ostream* os, long double value) {
  return *os << static_cast<double>(value);
}

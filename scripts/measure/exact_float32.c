/* Exact scoring of float32 cube roots, and a digest of result bits, for the exhaustive sweeps.

   No cube root is computed here: a result a of cbrt(x) is correctly rounded exactly when x lies
   strictly between the cubes of the two midpoints around a, and those cubes are compared with x
   in 128-bit integer arithmetic (a midpoint has at most 26 significant bits, its cube 78). The
   size of an error, in units of the last place of the exact cube root, comes from the residual
   a^3 - x in double, to about 2^-30 ULP; the residual settles correct rounding on its own only
   when it is more than 2^-20 (relative) away from that of a half-ULP error, and the exact
   comparison decides the rest.

   Built with -ffp-contract=off and without -march flags: every build does the same arithmetic. */

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef unsigned __int128 u128;

typedef struct {
  double max_ulp;                /* the worst error, in ULPs of the exact cube root; inf for NaN or inf */
  int64_t not_correctly_rounded; /* results other than the float32 rounding of the exact cube root */
  int64_t over_one_ulp;          /* results more than 1 ULP away (decided exactly) */
} Score;

enum { SIGN = 0x80000000u, EXPONENT = 0x7f800000u, FRACTION = 0x007fffffu };

static int is_nan(uint32_t bits) { return (bits & ~SIGN) > EXPONENT; }

/* |value| = significand * 2^exponent for a finite float: an integer significand below 2^24. */
static void split(uint32_t bits, uint64_t *significand, int *exponent) {
  uint32_t biased = (bits & EXPONENT) >> 23;
  *significand = biased ? (uint64_t)((bits & FRACTION) | 0x00800000u) : (uint64_t)(bits & FRACTION);
  *exponent = (biased ? (int)biased : 1) - 150;
}

/* The sign of m^3 2^(3 e) - n 2^f, for 0 < m < 2^26 and 0 < n < 2^24. */
static int compare_cube(uint64_t m, int e, uint64_t n, int f) {
  u128 cube = (u128)m * m * m; /* below 2^78 */
  u128 other = n;
  int shift = 3 * e - f;
  if (shift > 48) return 1; /* cube << shift >= 2^49 > n */
  if (shift < -100) return -1; /* n << -shift >= 2^101 > cube */
  if (shift >= 0)
    cube <<= shift;
  else
    other <<= -shift;
  return cube > other ? 1 : cube < other ? -1 : 0;
}

/* Whether the positive normal float a (significand A, exponent e) is the rounding of cbrt(x), x > 0. */
static int rounds_correctly(uint64_t A, int e, uint64_t X, int f) {
  int below = A == 0x00800000u ? /* a power of two: the float below is half as far */
                  compare_cube(4 * A - 1, e - 2, X, f)
                               : compare_cube(2 * A - 1, e - 1, X, f);
  return below < 0 && compare_cube(2 * A + 1, e - 1, X, f) > 0;
}

static double widened(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof value);
  return fabs((double)value);
}

/* The unit in the last place of a float32 of the binade of the positive normal double c. */
static double float32_ulp_at(double c) {
  uint64_t bits;
  memcpy(&bits, &c, sizeof bits);
  bits &= 0x7ff0000000000000ull; /* the power of two at or below c */
  double power;
  memcpy(&power, &bits, sizeof power);
  return power * 0x1p-23;
}

/* Whether the positive normal float with bits `bits` is more than one unit in the last place of cbrt(x) away from
   it, x > 0: cbrt(x) lies below the float under it, or above the float over it (above the midpoint past it when
   that float is a power of two, whose binade has twice the unit). Exact, like rounds_correctly. */
static int more_than_one_ulp(uint32_t bits, uint64_t X, int f) {
  uint64_t A;
  int e;
  split(bits - 1, &A, &e);
  if (compare_cube(A, e, X, f) > 0) return 1;
  split(bits + 1, &A, &e);
  if (((bits + 1) & FRACTION) == 0) return compare_cube(2 * A + 1, e - 1, X, f) < 0;
  return compare_cube(A, e, X, f) < 0;
}

/* |a - cbrt(x)| in ULPs of cbrt(x), for positive normal a and positive x. */
static double ulp_error(double a, double x) {
  double residual = a * a * a - x;        /* a^2 is exact, a^3 rounded once; the difference is exact (Sterbenz) */
  double first = residual / (3 * a * a);  /* a - cbrt(x), to first order */
  double error = first * (1 + first / a); /* to second order: a relative error of (first / a)^2 < 2^-40 */
  return fabs(error) / float32_ulp_at(a - error);
}

/* Whether |residual| = |a^3 - x| is below 3 a^2 ulp(a) / 2, the residual of an error of half an ULP, by a margin
   that covers its rounding and the second-order term (both below 2^-23 relative): 1 yes, 0 no, -1 too close to
   tell. Division-free, since most results are correctly rounded. */
static int under_half_ulp(double a, double x) {
  double residual = fabs(a * a * a - x);
  double half_ulp = 1.5 * a * a * float32_ulp_at(a);
  if (residual < half_ulp * (1 - 0x1p-20)) return 1;
  if (residual > half_ulp * (1 + 0x1p-20)) return 0;
  return -1;
}

/* The error, the correct-rounding verdict and whether the error exceeds one ULP, of one result y = cbrt(x). */
static void score_one(uint32_t x, uint32_t y, double *error, int *correct, int *over_one) {
  if (is_nan(x) || is_nan(y)) {
    *correct = is_nan(x) && is_nan(y);
    *error = *correct ? 0.0 : INFINITY;
  } else if ((x & ~SIGN) == EXPONENT || (x & ~SIGN) == 0) { /* +-inf and +-0 are their own cube roots */
    *correct = x == y;
    *error = (y & ~SIGN) == (x & ~SIGN) ? 0.0 : INFINITY;
  } else if ((x ^ y) & SIGN || (y & EXPONENT) == 0 || (y & EXPONENT) == EXPONENT) {
    /* wrong sign, zero, subnormal or infinite: the cube root of a finite nonzero float is normal */
    *correct = 0;
    *error = INFINITY;
  } else {
    double a = widened(y), b = widened(x);
    uint64_t X;
    int f;
    split(x, &X, &f);
    /* At a power of two the float below is half as far: the exact comparison decides. */
    int verdict = (y & FRACTION) == 0 ? -1 : under_half_ulp(a, b);
    if (verdict < 0) {
      uint64_t A;
      int e;
      split(y, &A, &e);
      verdict = rounds_correctly(A, e, X, f);
    }
    *correct = verdict;
    *error = verdict ? 0.5 : ulp_error(a, b);
    *over_one = !verdict && more_than_one_ulp(y & ~SIGN, X, f);
    return;
  }
  *over_one = *error > 1.0;
}

static void add(Score *score, double error, int correct, int over_one) {
  if (error > score->max_ulp) score->max_ulp = error;
  score->not_correctly_rounded += !correct;
  score->over_one_ulp += over_one;
}

/* Scores results[0..layouts) of cbrt(x[i]) for n inputs: an input's error is its worst over the layouts, and it
   counts as not correctly rounded when any layout's result is not. Layouts whose bits equal the first are not
   scored again. A correctly rounded result counts as 0.5 ULP. */
void score_float32(const uint32_t *x, const uint32_t *const *results, int layouts, int64_t n, Score *score) {
  for (int64_t i = 0; i < n; ++i) {
    double worst;
    int all_correct, any_over;
    score_one(x[i], results[0][i], &worst, &all_correct, &any_over);
    for (int layout = 1; layout < layouts; ++layout) {
      if (results[layout][i] == results[0][i]) continue;
      double error;
      int correct, over_one;
      score_one(x[i], results[layout][i], &error, &correct, &over_one);
      if (error > worst) worst = error;
      all_correct &= correct;
      any_over |= over_one;
    }
    add(score, worst, all_correct, any_over);
  }
}

/* The correctly rounded float32 cube root of x, as bits, found by bisection on the ordered bit patterns with the
   exact cube comparison: an independent reference, slow (about 30 comparisons), for samples. */
uint32_t correctly_rounded_cbrt_float32(uint32_t x) {
  if (is_nan(x)) return 0x7fc00000u | (x & SIGN);
  if ((x & ~SIGN) == EXPONENT || (x & ~SIGN) == 0) return x;
  uint64_t X;
  int f;
  split(x, &X, &f);
  uint32_t low = 0x00800000u, high = 0x7f7fffffu; /* the answer is a normal float */
  while (low < high) { /* the smallest normal float whose upper midpoint cubes above x */
    uint32_t mid = low + (high - low) / 2;
    uint64_t A;
    int e;
    split(mid, &A, &e);
    if (compare_cube(2 * A + 1, e - 1, X, f) > 0)
      high = mid;
    else
      low = mid + 1;
  }
  return low | (x & SIGN);
}

static uint64_t mix(uint64_t z) { /* splitmix64's finalizer */
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* An order-sensitive 64-bit digest of n result bit patterns, every NaN counted as one value (payloads are not
   portable), starting at position `offset` of a longer sequence; *nan_for_number counts NaN results for inputs
   that are not NaN. */
uint64_t digest_float32(const uint32_t *x, const uint32_t *y, int64_t n, int64_t offset, int64_t *nan_for_number) {
  uint64_t sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits = y[i];
    if (is_nan(bits)) {
      *nan_for_number += !is_nan(x[i]);
      bits = 0x7fc00000u;
    }
    sum += mix(((uint64_t)(offset + i) << 32) ^ bits);
  }
  return sum;
}

#define TORCH_ASSERT_NO_OPERATORS
#include <ATen/native/BinaryOps.h>

#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/cpu/vec/vec.h>
#include <ATen/native/TensorIterator.h>
#include <c10/util/TypeSafeSignMath.h>
#include <c10/util/generic_math.h>
#include <c10/util/irange.h>

namespace at::native {
inline namespace CPU_CAPABILITY {
namespace {

// NOTE: [divmod is floor_divide and remainder in one pass]
// divmod(a, b) returns (floor_divide(a, b), remainder(a, b)) bit for bit: each
// output is computed with the operations, precision and roundings of
// div_floor_kernel and remainder_kernel (BinaryOpsKernel.cpp), so no caller
// can tell the fused kernel from the two calls. What is fused is what both
// start from: the integer division, or fmod(a, b) for floating types, is done
// once, and the inputs are read once.
//
// The vectorized loop, its scalar tail and the choice between them follow
// cpu_kernel_vec (vectorized_loop in cpu/Loops.h), element for element: the
// remainder of a Half or BFloat16 element can differ between the vector body
// (vectorized fmod) and the tail (std::fmod), and divmod gives it the bits
// remainder gives it.

using vec::Vectorized;

template <typename T>
using QuotientRemainder = std::pair<T, T>;

template <typename scalar_t>
QuotientRemainder<scalar_t> divmod_integer(scalar_t a, scalar_t b) {
  TORCH_CHECK(b != 0, "ZeroDivisionError");
  if constexpr (std::is_signed_v<scalar_t>) {
    if (b == scalar_t(-1)) {
      // a / -1 overflows for the most negative a (and traps on x86): the
      // quotient wraps, as floor_divide's does, and the remainder is 0.
      using unsigned_t = std::make_unsigned_t<scalar_t>;
      return {
          static_cast<scalar_t>(unsigned_t(0) - static_cast<unsigned_t>(a)),
          scalar_t(0)};
    }
  }
  scalar_t quotient = a / b;
  scalar_t remainder = a % b;
  if (remainder != 0 && c10::is_negative(remainder) != c10::is_negative(b)) {
    quotient -= 1;
    remainder += b;
  }
  return {quotient, remainder};
}

// float and double: c10::div_floor_floating and remainder_kernel's scalar
// lambda, sharing fmod(a, b).
template <typename scalar_t>
QuotientRemainder<scalar_t> divmod_floating(scalar_t a, scalar_t b)
    __ubsan_ignore_float_divide_by_zero__ {
  const scalar_t mod = std::fmod(a, b);
  const bool adjust = (mod != 0) && ((b < 0) != (mod < 0));
  const scalar_t remainder = adjust ? scalar_t(mod + b) : mod;
  if (C10_UNLIKELY(b == 0)) {
    return {a / b, remainder};
  }
  scalar_t div = (a - mod) / b;
  if (adjust) {
    div -= scalar_t(1);
  }
  scalar_t floordiv;
  if (div != 0) {
    floordiv = std::floor(div);
    if (div - floordiv > scalar_t(0.5)) {
      floordiv += scalar_t(1.0);
    }
  } else {
    floordiv = c10::copysign(scalar_t(0), a / b);
  }
  return {floordiv, remainder};
}

// Half and BFloat16: floor_divide's scalar path is c10::div_floor_floating on
// the 16-bit type (its intermediates are float); remainder computes fmod and
// the correction in float and rounds once.
template <typename scalar_t>
QuotientRemainder<scalar_t> divmod_reduced_floating(scalar_t a, scalar_t b)
    __ubsan_ignore_float_divide_by_zero__ {
  const float a0 = static_cast<float>(a);
  const float b0 = static_cast<float>(b);
  float mod = std::fmod(a0, b0);
  if ((mod != 0) && ((b0 < 0) != (mod < 0))) {
    mod += b0;
  }
  return {c10::div_floor_floating(a, b), static_cast<scalar_t>(mod)};
}

// c10::div_floor_floating's steps, vectorized, and remainder_kernel's
// vectorized lambda, sharing a.fmod(b) and the sign mask. The quotient is
// floor_divide's only where a.fmod(b) is exact (see divmod_floating_vec); for
// Half and BFloat16 only the remainder is taken from here (each
// Vectorized<Half> operation rounds once, as remainder's does).
template <typename scalar_t>
QuotientRemainder<Vectorized<scalar_t>> divmod_vec(
    const Vectorized<scalar_t>& a,
    const Vectorized<scalar_t>& b) {
  using vec_t = Vectorized<scalar_t>;
  const auto zero = vec_t(0);
  const auto one = vec_t(1);
  const auto mod = a.fmod(b);
  const auto adjust = (mod != zero) & ((b < zero) ^ (mod < zero));
  const auto remainder = vec_t::blendv(mod, mod + b, adjust);
  auto div = (a - mod) / b;
  div = vec_t::blendv(div, div - one, adjust);
  auto floordiv = div.floor();
  floordiv =
      vec_t::blendv(floordiv, floordiv + one, (div - floordiv) > vec_t(0.5));
  const auto basic_div = a / b;
  floordiv = vec_t::blendv(floordiv, zero.copysign(basic_div), div == zero);
  floordiv = vec_t::blendv(floordiv, basic_div, b == zero);
  return {floordiv, remainder};
}

// float and double. The remainder is remainder_kernel's vectorized one, from
// Vectorized::fmod. floor_divide's quotient is c10::div_floor_floating's with
// an exact fmod, which Vectorized::fmod is wherever |a / b| is below
// 1 / min() (2^126, 2^1022) and b is a normal number (Sleef's fmod is exact
// there; past it, or for a subnormal b, it can return NaN). In those lanes,
// nearly all of them, the quotient is div_floor_floating's steps on that fmod,
// vectorized; the other lanes (a or b not finite, b zero or subnormal, a
// quotient near overflow) take c10::div_floor_floating one by one.
template <typename scalar_t>
QuotientRemainder<Vectorized<scalar_t>> divmod_floating_vec(
    const Vectorized<scalar_t>& a,
    const Vectorized<scalar_t>& b) {
  using vec_t = Vectorized<scalar_t>;
  using limits = std::numeric_limits<scalar_t>;
  auto [quotient, remainder] = divmod_vec<scalar_t>(a, b);
  const auto abs_b = b.abs();
  const auto exact_fmod = (abs_b >= vec_t(limits::min())) &
      (abs_b <= vec_t(limits::max())) &
      (a.abs() * vec_t(limits::min()) < abs_b);
  if (const auto other_lanes = exact_fmod.zero_mask()) {
    __at_align__ scalar_t lanes_a[vec_t::size()];
    __at_align__ scalar_t lanes_b[vec_t::size()];
    __at_align__ scalar_t lanes_quotient[vec_t::size()];
    a.store(lanes_a);
    b.store(lanes_b);
    quotient.store(lanes_quotient);
    for (const auto lane : c10::irange(vec_t::size())) {
      if (other_lanes & (decltype(other_lanes)(1) << lane)) {
        lanes_quotient[lane] =
            c10::div_floor_floating(lanes_a[lane], lanes_b[lane]);
      }
    }
    quotient = vec_t::loadu(lanes_quotient);
  }
  return {quotient, remainder};
}

// Half and BFloat16: floor_divide gives c10::div_floor_floating's bits lane by
// lane in the vector body too (each operation rounded to the 16-bit type, with
// an exact fmod, which the vectorized fmod is not for every BFloat16 pair:
// 1 / 2^-133 overflows inside it), so the quotient is computed lane by lane;
// the remainder is remainder_kernel's vectorized one.
template <typename scalar_t>
QuotientRemainder<Vectorized<scalar_t>> divmod_lanewise_quotient_vec(
    const Vectorized<scalar_t>& a,
    const Vectorized<scalar_t>& b) {
  using vec_t = Vectorized<scalar_t>;
  __at_align__ scalar_t lanes_a[vec_t::size()];
  __at_align__ scalar_t lanes_b[vec_t::size()];
  __at_align__ scalar_t quotient[vec_t::size()];
  a.store(lanes_a);
  b.store(lanes_b);
  for (const auto lane : c10::irange(vec_t::size())) {
    quotient[lane] = c10::div_floor_floating(lanes_a[lane], lanes_b[lane]);
  }
  return {vec_t::loadu(quotient), divmod_vec<scalar_t>(a, b).second};
}

// One row of a two-output, two-input TensorIterator loop (operands: quotient,
// remainder, a, b). Floating types are vectorized when every operand is
// contiguous or one input is broadcast (stride 0) and the rest are contiguous,
// two vectors per step; otherwise, and for the tail, element by element.
template <typename scalar_t, typename scalar_op_t, typename vec_op_t>
void divmod_row(
    char* C10_RESTRICT data[4],
    const int64_t* strides,
    int64_t n,
    const scalar_op_t& op,
    const vec_op_t& vop) {
  int64_t i = 0;
  if constexpr (!std::is_integral_v<scalar_t>) {
    using vec_t = Vectorized<scalar_t>;
    constexpr int64_t s = sizeof(scalar_t);
    const bool outputs_contiguous = strides[0] == s && strides[1] == s;
    const bool inputs_vectorizable = (strides[2] == s && strides[3] == s) ||
        (strides[2] == 0 && strides[3] == s) ||
        (strides[2] == s && strides[3] == 0);
    auto load = [&](int arg, int64_t at) {
      return strides[arg] == 0
          ? vec_t(*reinterpret_cast<const scalar_t*>(data[arg]))
          : vec_t::loadu(data[arg] + at * s);
    };
    if (outputs_contiguous && inputs_vectorizable) {
      for (; i <= n - 2 * vec_t::size(); i += 2 * vec_t::size()) {
        for (const int64_t at : {i, i + vec_t::size()}) {
          const auto [quotient, remainder] = vop(load(2, at), load(3, at));
          quotient.store(data[0] + at * s);
          remainder.store(data[1] + at * s);
        }
      }
    }
  }
  for (; i < n; i++) {
    const auto a = *reinterpret_cast<const scalar_t*>(data[2] + i * strides[2]);
    const auto b = *reinterpret_cast<const scalar_t*>(data[3] + i * strides[3]);
    const auto [quotient, remainder] = op(a, b);
    *reinterpret_cast<scalar_t*>(data[0] + i * strides[0]) = quotient;
    *reinterpret_cast<scalar_t*>(data[1] + i * strides[1]) = remainder;
  }
}

// Each row of the iterator's 2-D loop (operands: quotient, remainder, a, b),
// the pointers advanced along the outer dimension between rows.
template <typename row_fn_t>
void for_each_row(TensorIteratorBase& iter, const row_fn_t& row) {
  iter.for_each(
      [&](char** base, const int64_t* strides, int64_t size0, int64_t size1) {
        char* data[4] = {base[0], base[1], base[2], base[3]};
        const int64_t* outer_strides = strides + 4;
        for (const auto j : c10::irange(size1)) {
          if (j > 0) {
            for (const auto arg : c10::irange(4)) {
              data[arg] += outer_strides[arg];
            }
          }
          row(data, strides, size0);
        }
      });
}

template <typename scalar_t, typename scalar_op_t, typename vec_op_t>
void divmod_loop(
    TensorIteratorBase& iter,
    const scalar_op_t& op,
    const vec_op_t& vop) {
  for_each_row(iter, [&](char** data, const int64_t* strides, int64_t n) {
    divmod_row<scalar_t>(data, strides, n, op, vop);
  });
}

// floor_divide of a Half or BFloat16 tensor by a scalar divides in float by
// the scalar's own value (TensorIterator::original_scalar_value); remainder
// runs its usual kernel on the broadcast divisor rounded to the tensor's dtype.
template <typename scalar_t>
void divmod_reduced_by_scalar(TensorIteratorBase& iter) {
  using opmath_t = at::opmath_type<scalar_t>;
  using vec_t = Vectorized<scalar_t>;
  const opmath_t divisor = iter.original_scalar_value<opmath_t>(3);
  auto quotient_of = [divisor](scalar_t a) -> scalar_t {
    return c10::div_floor_floating(static_cast<opmath_t>(a), divisor);
  };
  divmod_loop<scalar_t>(
      iter,
      [=](scalar_t a, scalar_t b) -> QuotientRemainder<scalar_t> {
        return {quotient_of(a), divmod_reduced_floating(a, b).second};
      },
      [=](const vec_t& a, const vec_t& b) -> QuotientRemainder<vec_t> {
        __at_align__ scalar_t lanes[vec_t::size()];
        a.store(lanes);
        for (const auto lane : c10::irange(vec_t::size())) {
          lanes[lane] = quotient_of(lanes[lane]);
        }
        return {vec_t::loadu(lanes), divmod_vec<scalar_t>(a, b).second};
      });
}

// Integers, contiguous or divided by one broadcast value. Up to 32 bits,
// floor(a / b) computed in double (float for 8 and 16 bits) is the exact
// floor quotient, since |a| < 2^53 (2^24): the rounding error of a / b,
// |a / b| * 2^-53, is below 1 / |b|, the least distance from a non-integral
// a / b to an integer. There is no SIMD integer division; that loop has no
// branch and vectorizes. int64 divides once per element, its remainder taken
// from the quotient. A zero divisor raises after the row is done.
template <typename scalar_t>
using integer_quotient_t =
    std::conditional_t<(sizeof(scalar_t) <= 2), float, double>;

template <
    typename scalar_t,
    int64_t b_stride> // b_stride 0: a broadcast divisor
void divmod_integer_row(
    const scalar_t* C10_RESTRICT a,
    const scalar_t* C10_RESTRICT b,
    scalar_t* C10_RESTRICT quotient,
    scalar_t* C10_RESTRICT remainder,
    int64_t n) {
  using float_t = integer_quotient_t<scalar_t>;
  using unsigned_t = std::make_unsigned_t<scalar_t>;
  bool zero_divisor = false;
  for (const auto i : c10::irange(n)) {
    const scalar_t divisor = b[i * b_stride];
    zero_divisor |= divisor == 0;
    const scalar_t d = divisor == 0 ? scalar_t(1) : divisor;
    // a / -1 overflows for the most negative a: the quotient wraps, as
    // floor_divide's does (neither the cast nor the division would).
    const bool negate = std::is_signed_v<scalar_t> && d == scalar_t(-1);
    const scalar_t negated =
        static_cast<scalar_t>(unsigned_t(0) - static_cast<unsigned_t>(a[i]));
    scalar_t qi;
    if constexpr (sizeof(scalar_t) == 8) {
      // int64: one hardware division, its truncated quotient floored
      const scalar_t t = a[i] / (negate ? scalar_t(1) : d);
      const scalar_t r = static_cast<scalar_t>(
          static_cast<unsigned_t>(a[i]) -
          static_cast<unsigned_t>(t) * static_cast<unsigned_t>(d));
      qi = negate ? negated
                  : scalar_t(t - ((r != 0) && ((r < 0) != (d < 0)) ? 1 : 0));
    } else {
      const float_t q =
          std::floor(static_cast<float_t>(a[i]) / static_cast<float_t>(d));
      qi = negate ? negated : static_cast<scalar_t>(q);
    }
    quotient[i] = qi;
    remainder[i] = static_cast<scalar_t>(
        static_cast<unsigned_t>(a[i]) -
        static_cast<unsigned_t>(qi) * static_cast<unsigned_t>(d));
  }
  TORCH_CHECK(!zero_divisor, "ZeroDivisionError");
}

template <typename scalar_t>
void divmod_integer_kernel(TensorIteratorBase& iter) {
  constexpr int64_t s = sizeof(scalar_t);
  for_each_row(iter, [](char** data, const int64_t* strides, int64_t n) {
    const bool row_contiguous = strides[0] == s && strides[1] == s &&
        strides[2] == s && (strides[3] == s || strides[3] == 0);
    if (!row_contiguous) {
      divmod_row<scalar_t>(
          data,
          strides,
          n,
          [](scalar_t a, scalar_t b) { return divmod_integer(a, b); },
          /*vop=*/nullptr);
      return;
    }
    const auto* a = reinterpret_cast<const scalar_t*>(data[2]);
    const auto* b = reinterpret_cast<const scalar_t*>(data[3]);
    auto* quotient = reinterpret_cast<scalar_t*>(data[0]);
    auto* remainder = reinterpret_cast<scalar_t*>(data[1]);
    if (strides[3] == 0) {
      divmod_integer_row<scalar_t, 0>(a, b, quotient, remainder, n);
    } else {
      divmod_integer_row<scalar_t, 1>(a, b, quotient, remainder, n);
    }
  });
}

void divmod_kernel(TensorIteratorBase& iter) {
  const auto dtype = iter.common_dtype();
  if (isIntegralType(dtype, /*includeBool=*/false)) {
    AT_DISPATCH_INTEGRAL_TYPES(
        dtype, "divmod_cpu", [&]() { divmod_integer_kernel<scalar_t>(iter); });
  } else if (iter.is_scalar(3) && at::isReducedFloatingType(dtype)) {
    AT_DISPATCH_REDUCED_FLOATING_TYPES(
        dtype, "divmod_cpu_reduced_float", [&]() {
          divmod_reduced_by_scalar<scalar_t>(iter);
        });
  } else if (at::isReducedFloatingType(dtype)) {
    AT_DISPATCH_REDUCED_FLOATING_TYPES(dtype, "divmod_cpu", [&]() {
      divmod_loop<scalar_t>(
          iter,
          [](scalar_t a, scalar_t b) { return divmod_reduced_floating(a, b); },
          [](const Vectorized<scalar_t>& a, const Vectorized<scalar_t>& b) {
            return divmod_lanewise_quotient_vec<scalar_t>(a, b);
          });
    });
  } else {
    AT_DISPATCH_FLOATING_TYPES(dtype, "divmod_cpu", [&]() {
      divmod_loop<scalar_t>(
          iter,
          [](scalar_t a, scalar_t b) { return divmod_floating(a, b); },
          [](const Vectorized<scalar_t>& a, const Vectorized<scalar_t>& b) {
            return divmod_floating_vec<scalar_t>(a, b);
          });
    });
  }
}

} // namespace
} // namespace CPU_CAPABILITY

REGISTER_DISPATCH(divmod_stub, &divmod_kernel)

} // namespace at::native

#pragma once

#include <ATen/AccumulateType.h>
#include <c10/macros/Macros.h>
#include <c10/util/TypeSafeSignMath.h>
#include <c10/util/generic_math.h>

#include <cmath>
#include <type_traits>

namespace at::native {

// NOTE: [divmod on CUDA is floor_divide and remainder]
// Each output of divmod's CUDA kernel is computed as the CUDA kernels of
// floor_divide (BinaryDivFloorKernel.cu) and remainder
// (BinaryRemainderKernel.cu) compute it on the same operands: the same
// branches, and the same operations in the same types.
//
// - A tensor divisor (or a CPU scalar dividend): the quotient is
//   divmod_quotient below and the remainder divmod_remainder.
// - A CPU scalar divisor of a floating type: the quotient is
//   divmod_quotient_by_scalar below, floor_divide's a * (1 / b).
// - An integer zero divisor: floor_divide's integer lambda has a TORCH_CHECK
//   for it and divmod's has none. The quotient is c10::div_floor_integer's 0
//   and the remainder is a % 0, as remainder's kernel computes it.
//
// These are host-device functions, so that their arithmetic can be compared
// with those kernels' on the host.

// floor_divide: c10::div_floor_integer, or c10::div_floor_floating on
// scalar_t, so that each step of a Half or BFloat16 quotient rounds to
// scalar_t where floor_divide's does.
template <typename scalar_t>
C10_HOST_DEVICE scalar_t divmod_quotient(scalar_t a, scalar_t b) {
  if constexpr (std::is_integral_v<scalar_t>) {
    return c10::div_floor_integer(a, b);
  } else {
    return c10::div_floor_floating(a, b);
  }
}

// remainder: the sign of the divisor. A floating remainder is computed in
// accscalar_t and rounded once, as remainder's lambda computes it (its
// ::fmod(a, b) of Half or BFloat16 operands is fmod(float, float)).
template <typename scalar_t>
C10_HOST_DEVICE scalar_t divmod_remainder(scalar_t a, scalar_t b)
    __ubsan_ignore_float_divide_by_zero__ {
  if constexpr (std::is_integral_v<scalar_t>) {
    scalar_t r = a % b;
    if (r != 0 && c10::signs_differ(r, b)) {
      r += b;
    }
    return r;
  } else {
    using accscalar_t = at::acc_type<scalar_t, /*is_cuda=*/true>;
    const auto b_acc = static_cast<accscalar_t>(b);
    auto mod = ::fmod(static_cast<accscalar_t>(a), b_acc);
    if (mod != 0 && c10::signs_differ(b_acc, mod)) {
      mod += b_acc;
    }
    return static_cast<scalar_t>(mod);
  }
}

// floor_divide by a CPU scalar b, read in accscalar_t: a * inv_b with
// inv_b = 1 / b, then floor. floordiv is scalar_t, so a Half or BFloat16
// quotient rounds after the floor and after the correction, as floor_divide's
// does. A zero b takes floor_divide's fallback, true division, which for a
// CPU scalar is a * inv_b in accscalar_t.
template <typename scalar_t, typename accscalar_t>
C10_HOST_DEVICE scalar_t
divmod_quotient_by_scalar(scalar_t a, accscalar_t b, accscalar_t inv_b) {
  if (C10_UNLIKELY(b == 0)) {
    return static_cast<scalar_t>(static_cast<accscalar_t>(a) * inv_b);
  }
  auto mod = std::fmod(a, b);
  auto div = (a - mod) * inv_b;
  if ((mod != 0) && (b < 0) != (mod < 0)) {
    div -= scalar_t(1);
  }

  scalar_t floordiv;
  if (div != 0) {
    floordiv = std::floor(div);
    if (div - floordiv > scalar_t(0.5)) {
      floordiv += scalar_t(1.0);
    }
  } else {
    floordiv = C10_COMPAT_COPYSIGN(scalar_t(0), a * inv_b);
  }
  return floordiv;
}

} // namespace at::native

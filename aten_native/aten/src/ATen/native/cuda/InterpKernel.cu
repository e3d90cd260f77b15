#define TORCH_ASSERT_NO_OPERATORS
#include <ATen/native/Interp.h>

#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/core/TensorBase.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/core/Scalar.h>
#include <c10/cuda/CUDAException.h>
#include <c10/util/complex.h>

#include <algorithm>

namespace at::native {

namespace {

// The steps of the CPU kernel (cpu/InterpKernel.cpp, NOTE: [interp is
// numpy.interp]), one thread per query. nvcc fuses a * b + c into an FMA by
// default; the __*_rn intrinsics are never fused, so each product is rounded
// before the sum, as numpy computes. The search bisects: for increasing xp it
// finds the index numpy's guessed search finds.

__device__ __forceinline__ float mul_rn(float a, float b) {
  return __fmul_rn(a, b);
}
__device__ __forceinline__ double mul_rn(double a, double b) {
  return __dmul_rn(a, b);
}
__device__ __forceinline__ float add_rn(float a, float b) {
  return __fadd_rn(a, b);
}
__device__ __forceinline__ double add_rn(double a, double b) {
  return __dadd_rn(a, b);
}

template <typename T>
__device__ __forceinline__ T between(T slope, T x, T xp0, T xp1, T fp0, T fp1) {
  T result = add_rn(mul_rn(slope, x - xp0), fp0);
  if (::isnan(result)) {
    result = add_rn(mul_rn(slope, x - xp1), fp1);
    if (::isnan(result) && fp0 == fp1) {
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

  __device__ static value_t load(scalar_t v) {
    return static_cast<opmath_t>(v);
  }
  __device__ static value_t nan_query(opmath_t x) {
    return x;
  }
  __device__ static value_t interpolate(
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

  __device__ static value_t load(scalar_t v) {
    return value_t(v);
  }
  __device__ static value_t nan_query(opmath_t x) {
    return value_t(x, 0);
  }
  __device__ static value_t interpolate(
      opmath_t x,
      opmath_t xp0,
      opmath_t xp1,
      value_t fp0,
      value_t fp1) {
    const opmath_t inv_width = opmath_t(1) / (xp1 - xp0);
    const opmath_t slope_real = mul_rn(fp1.real() - fp0.real(), inv_width);
    const opmath_t slope_imag = mul_rn(fp1.imag() - fp0.imag(), inv_width);
    return value_t(
        between(slope_real, x, xp0, xp1, fp0.real(), fp1.real()),
        between(slope_imag, x, xp0, xp1, fp0.imag(), fp1.imag()));
  }
};

template <typename scalar_t, typename Ops>
__global__ void interp_cuda_kernel(
    scalar_t* result,
    const typename Ops::position_t* x,
    const typename Ops::position_t* xp,
    const scalar_t* fp,
    int64_t numel,
    int64_t queries,
    int64_t n,
    const int64_t* row_index,
    int64_t x_row_stride,
    int64_t xp_row_stride,
    int64_t fp_row_stride,
    bool has_left,
    typename Ops::value_t left,
    bool has_right,
    typename Ops::value_t right) {
  using opmath_t = typename Ops::opmath_t;
  using value_t = typename Ops::value_t;
  const int64_t index =
      static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= numel) {
    return;
  }
  const int64_t row = index / queries;
  // the row of x, xp and fp this row of the result reads (Interp.h)
  const int64_t x_row =
      row_index ? row_index[3 * row] * queries : row * x_row_stride;
  const int64_t xp_row =
      row_index ? row_index[3 * row + 1] * n : row * xp_row_stride;
  const int64_t fp_row =
      row_index ? row_index[3 * row + 2] * n : row * fp_row_stride;
  const auto* xps = xp + xp_row;
  const auto* fps = fp + fp_row;
  const opmath_t x_value = static_cast<opmath_t>(x[x_row + index % queries]);
  const value_t first = Ops::load(fps[0]);
  const value_t last = Ops::load(fps[n - 1]);
  const value_t left_fill = has_left ? left : first;
  const value_t right_fill = has_right ? right : last;
  value_t value;
  if (n == 1) {
    const opmath_t xp0 = static_cast<opmath_t>(xps[0]);
    value = x_value < xp0 ? left_fill : (x_value > xp0 ? right_fill : first);
  } else if (::isnan(x_value)) {
    value = Ops::nan_query(x_value);
  } else if (x_value > static_cast<opmath_t>(xps[n - 1])) {
    value = right_fill;
  } else if (x_value < static_cast<opmath_t>(xps[0])) {
    value = left_fill;
  } else {
    // the last j with xp[j] <= x
    int64_t low = 0;
    int64_t high = n;
    while (low < high) {
      const int64_t mid = low + ((high - low) >> 1);
      if (x_value >= static_cast<opmath_t>(xps[mid])) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    const int64_t j = low - 1;
    if (j == n - 1) {
      value = last;
    } else if (static_cast<opmath_t>(xps[j]) == x_value) {
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
  result[index] = static_cast<scalar_t>(value);
}

template <typename scalar_t, typename Ops>
void launch_interp(
    const TensorBase& result,
    const TensorBase& x,
    const TensorBase& xp,
    const TensorBase& fp,
    const TensorBase& row_index,
    const std::optional<c10::Scalar>& left,
    const std::optional<c10::Scalar>& right) {
  using position_t = typename Ops::position_t;
  using value_t = typename Ops::value_t;
  const int64_t numel = result.numel();
  const int64_t queries = result.size(1);
  const int64_t n = xp.size(1);
  constexpr int threads = 256;
  const int64_t blocks = (numel + threads - 1) / threads;
  interp_cuda_kernel<scalar_t, Ops>
      <<<blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
          result.mutable_data_ptr<scalar_t>(),
          x.const_data_ptr<position_t>(),
          xp.const_data_ptr<position_t>(),
          fp.const_data_ptr<scalar_t>(),
          numel,
          queries,
          n,
          row_index.defined() ? row_index.const_data_ptr<int64_t>() : nullptr,
          x.size(0) == 1 ? 0 : queries,
          xp.size(0) == 1 ? 0 : n,
          fp.size(0) == 1 ? 0 : n,
          left.has_value(),
          left.has_value() ? left->to<value_t>() : value_t(0),
          right.has_value(),
          right.has_value() ? right->to<value_t>() : value_t(0));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void interp_kernel_cuda(
    const TensorBase& result,
    const TensorBase& x,
    const TensorBase& xp,
    const TensorBase& fp,
    const TensorBase& row_index,
    const std::optional<c10::Scalar>& left,
    const std::optional<c10::Scalar>& right) {
  AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(
      kHalf, kBFloat16, result.scalar_type(), "interp_cuda", [&] {
        if constexpr (c10::is_complex<scalar_t>::value) {
          launch_interp<scalar_t, InterpComplex<scalar_t>>(
              result, x, xp, fp, row_index, left, right);
        } else {
          launch_interp<scalar_t, InterpReal<scalar_t>>(
              result, x, xp, fp, row_index, left, right);
        }
      });
}

} // namespace

REGISTER_DISPATCH(interp_stub, &interp_kernel_cuda)

} // namespace at::native

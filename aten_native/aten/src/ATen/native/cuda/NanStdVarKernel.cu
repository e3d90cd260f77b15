#define TORCH_ASSERT_NO_OPERATORS
#include <ATen/AccumulateType.h>
#include <ATen/Dispatch.h>
#include <ATen/native/DispatchStub.h>
#include <ATen/native/ReduceOps.h>
#include <ATen/native/SharedReduceOps.h>
#include <ATen/native/TensorIterator.h>
#include <ATen/native/cuda/Reduce.cuh>

namespace at::native {

namespace {

// nanvar and nanstd reduce as var and std do on CUDA (ReduceMomentKernel.cu):
// Welford's updates in the accumulate type, merged with Chan et al.'s
// formulas, NanWelfordOps leaving the NaN elements out. nanstd_var_out has
// split a complex input into its real and imaginary parts, so the input and
// the result have one real dtype.
template <typename scalar_t>
void nanstd_var_kernel_impl(
    TensorIterator& iter,
    double correction,
    bool take_sqrt) {
  using accscalar_t = at::acc_type<scalar_t, /*is_cuda=*/true>;
  using ops_t = NanWelfordOps<
      scalar_t,
      accscalar_t,
      int32_t,
      thrust::pair<scalar_t, scalar_t>>;
  ops_t ops(static_cast<accscalar_t>(correction), take_sqrt);
  // An unroll factor of 2, as for var: Welford's accumulator is four values,
  // and more of them in flight spill registers.
  gpu_reduce_kernel<scalar_t, scalar_t, 2>(iter, ops, typename ops_t::acc_t{});
}

void nanstd_var_kernel_cuda(
    TensorIterator& iter,
    double correction,
    bool take_sqrt) {
  AT_DISPATCH_FLOATING_TYPES_AND2(
      kHalf, kBFloat16, iter.dtype(), "nanstd_var_cuda", [&]() {
        nanstd_var_kernel_impl<scalar_t>(iter, correction, take_sqrt);
      });
}

} // namespace

REGISTER_DISPATCH(nanstd_var_stub, &nanstd_var_kernel_cuda)

} // namespace at::native

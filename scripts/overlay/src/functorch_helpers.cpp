// The functorch batch-rule templates (BatchRulesHelper.h, PlumbingHelper.h)
// call these helpers, which libtorch_cpu defines
// (aten/src/ATen/functorch/{BatchRulesHelper,PlumbingHelper}.cpp) but does
// not export. Same behaviour; the library is built with hidden visibility, so
// these copies stay private to it.

#include <ATen/functorch/BatchRulesHelper.h>
#include <ATen/functorch/PlumbingHelper.h>
#include <ATen/native/TypeProperties.h>

namespace at::functorch {

void vmap_check_escaped(
    const std::optional<DynamicLayer>& layer,
    const char* what){TORCH_CHECK(
    layer.has_value(),
    "Either your tensor may have escaped from inside a function being vmapped and this is a user error ",
    "(see https://pytorch.org/functorch/stable/ux_limitations.html), "
    "or there is an internal functorch error in `",
    what,
    "` Please file an issue if it looks like the latter")}

Tensor
    moveBatchDimToFront(Tensor tensor, std::optional<int64_t> maybe_batch_dim) {
  if (!maybe_batch_dim.has_value() || maybe_batch_dim.value() == 0) {
    return tensor;
  }
  return tensor.movedim(maybe_batch_dim.value(), 0);
}

int64_t rankWithoutBatchDim(
    const Tensor& tensor,
    std::optional<int64_t> maybe_batch_dim) {
  int64_t result = tensor.dim();
  if (maybe_batch_dim.has_value()) {
    result -= 1;
  }
  return result;
}

Tensor maybePadToLogicalRank(
    const Tensor& tensor,
    std::optional<int64_t> has_bdim,
    int64_t logical_rank) {
  if (!has_bdim) {
    return tensor;
  }
  auto tensor_logical_rank = rankWithoutBatchDim(tensor, has_bdim);
  if (tensor_logical_rank >= logical_rank) {
    return tensor;
  }
  VmapSymDimVector new_sizes(
      tensor.sym_sizes().begin(), tensor.sym_sizes().end());
  for (int64_t i = 0; i < logical_rank - tensor_logical_rank; i++) {
    new_sizes.insert(new_sizes.begin() + 1, 1);
  }
  return tensor.view_symint(SymIntArrayRef{new_sizes.begin(), new_sizes.end()});
}

// A batched 0-d tensor is 1-d physically, which would change its category in
// type promotion next to a tensor of higher rank: promote the pair as if the
// logical scalar were one element.
static void promote_logical_scalar(Tensor& logical_scalar, Tensor& other) {
  const auto dtype = at::native::result_type(logical_scalar[0], other);
  if (logical_scalar.scalar_type() != dtype) {
    logical_scalar = logical_scalar.to(dtype);
  }
  if (other.scalar_type() != dtype) {
    other = other.to(dtype);
  }
}

std::tuple<Tensor, Tensor> _binary_pointwise_helper(
    const Tensor& tensor,
    std::optional<int64_t> tensor_batch_dim,
    const Tensor& other,
    std::optional<int64_t> other_batch_dim,
    bool do_type_promotion) {
  const auto tensor_rank = rankWithoutBatchDim(tensor, tensor_batch_dim);
  const auto other_rank = rankWithoutBatchDim(other, other_batch_dim);
  auto tensor_ = moveBatchDimToFront(tensor, tensor_batch_dim);
  auto other_ = moveBatchDimToFront(other, other_batch_dim);
  if (do_type_promotion) {
    const bool tensor_is_logical_scalar = tensor_rank == 0 && tensor_batch_dim.has_value();
    const bool other_is_logical_scalar = other_rank == 0 && other_batch_dim.has_value();
    if (tensor_is_logical_scalar && !other_is_logical_scalar) {
      promote_logical_scalar(tensor_, other_);
    }
    if (other_is_logical_scalar && !tensor_is_logical_scalar) {
      promote_logical_scalar(other_, tensor_);
    }
  }
  const auto rank = std::max(tensor_rank, other_rank);
  tensor_ = maybePadToLogicalRank(tensor_, tensor_batch_dim, rank);
  other_ = maybePadToLogicalRank(other_, other_batch_dim, rank);
  return std::make_tuple(std::move(tensor_), std::move(other_));
}

} // namespace at::functorch

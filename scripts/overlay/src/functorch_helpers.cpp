// The functorch batch-rule templates (BatchRulesHelper.h, PlumbingHelper.h)
// call these helpers, which libtorch_cpu defines
// (aten/src/ATen/functorch/{BatchRulesHelper,PlumbingHelper}.cpp) but does
// not export. Same behaviour; the library is built with hidden visibility, so
// these copies stay private to it.

#include <ATen/functorch/BatchRulesHelper.h>
#include <ATen/functorch/PlumbingHelper.h>

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

} // namespace at::functorch

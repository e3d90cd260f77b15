// ${generated_comment}

// The overlay's additions to functorch's BatchRulesReduceOps.cpp (not shipped
// in the wheel): its registration block, with the file-local names its lines
// use (REDUCTION_BOXED_ARGS and its keepdim cases). The boxed rule here is the
// overlay's own: it reduces over a list of dims (or one dim, or none for all of
// them) at dim_arg_pos, with keepdim at maybe_keepdim_arg_pos or fixed by
// keepdim_case, and moves the batch dimension to the front of every result.

#include <ATen/functorch/BatchRulesHelper.h>
#include <ATen/functorch/PlumbingHelper.h>
#include <ATen/core/dispatch/Dispatcher.h>

namespace at::functorch {

static constexpr int KEEPDIM_CASE_FALSE = 0;
static constexpr int KEEPDIM_CASE_TRUE = 1;
static constexpr int KEEPDIM_CASE_VARIABLE = 2;

template <int dim_arg_pos, int keepdim_case, int maybe_keepdim_arg_pos>
static void boxed_reduction_batch_rule(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const auto& schema = op.schema();
  const auto num_arguments = schema.arguments().size();
  const auto num_returns = schema.returns().size();
  c10::impl::ExcludeDispatchKeyGuard guard(DispatchKey::FuncTorchBatched);
  auto maybe_layer = maybeCurrentDynamicLayer();
  vmap_check_escaped(maybe_layer, "boxed_reduction_batch_rule");
  const auto level = maybe_layer->layerId();

  auto arguments = torch::jit::pop(*stack, num_arguments);
  auto [self, self_bdim] = unwrapTensorAtLevel(arguments[0].toTensor(), level);
  if (!self_bdim.has_value()) {
    arguments[0] = self;
    for (auto& argument : arguments) {
      torch::jit::push(stack, std::move(argument));
    }
    op.callBoxed(stack);
    return;
  }
  self = moveBatchDimToFront(self, self_bdim);
  const auto logical_rank = rankWithoutBatchDim(self, self_bdim);

  // the logical dims reduced: those given, or all of them for None or []
  std::vector<int64_t> dims;
  const auto& dim_argument = arguments[dim_arg_pos];
  const bool dim_is_int = dim_argument.isInt();
  if (dim_is_int) {
    dims = {dim_argument.toInt()};
  } else if (dim_argument.isIntList()) {
    dims = dim_argument.toIntVector();
  } else {
    TORCH_INTERNAL_ASSERT(
        dim_argument.isNone() &&
            schema.arguments()[dim_arg_pos].type()->expect<OptionalType>()->getElementType()->kind() ==
                ListType::Kind,
        "the overlay's boxed_reduction_batch_rule takes a dim list, a dim or None for a dim list");
  }
  if (dims.empty()) {
    for (const auto dim : c10::irange(std::max<int64_t>(logical_rank, 1))) {
      dims.push_back(dim);
    }
  }

  // a 0-d logical tensor reduces over dim 0 or -1: it gets a dimension of size
  // one to reduce, taken back from the results when keepdim is true
  const bool scalar_case = logical_rank == 0;
  bool keepdim = keepdim_case == KEEPDIM_CASE_TRUE;
  if constexpr (keepdim_case == KEEPDIM_CASE_VARIABLE) {
    keepdim = arguments[maybe_keepdim_arg_pos].toBool();
  }
  std::vector<int64_t> physical_dims;
  if (scalar_case) {
    self = self.unsqueeze(-1);
    physical_dims = {1};
  } else {
    for (const auto dim : dims) {
      // the batch dimension is in front
      physical_dims.push_back(c10::maybe_wrap_dim(dim, logical_rank) + 1);
    }
  }
  arguments[0] = self;
  if (dim_is_int) {
    arguments[dim_arg_pos] = physical_dims[0];
  } else {
    arguments[dim_arg_pos] = physical_dims;
  }
  for (auto& argument : arguments) {
    torch::jit::push(stack, std::move(argument));
  }
  op.callBoxed(stack);

  auto returns = torch::jit::pop(*stack, num_returns);
  for (auto& value : returns) {
    TORCH_INTERNAL_ASSERT(value.isTensor(), "the overlay's boxed_reduction_batch_rule returns tensors only");
    auto result = value.toTensor();
    if (scalar_case && keepdim) {
      result = result.squeeze(-1);
    }
    torch::jit::push(stack, makeBatched(result, 0, level));
  }
}

#define REDUCTION_BOXED_ARGS(op, dim_pos, keepdim_case, maybe_keepdim_pos) \
  m.impl(#op, torch::CppFunction::makeFromBoxedFunction<                 \
      SINGLE_ARG(boxed_reduction_batch_rule<dim_pos, keepdim_case, maybe_keepdim_pos>)>());
#define REDUCTION_WITH_KEEPDIM_ARG(op) REDUCTION_BOXED_ARGS(op, 1, KEEPDIM_CASE_VARIABLE, 2)
#define REDUCTION_NO_KEEPDIM_ARG(op) REDUCTION_BOXED_ARGS(op, 1, KEEPDIM_CASE_TRUE, -1)

TORCH_LIBRARY_IMPL(aten, FuncTorchBatched, m) {
${batch_rule_registrations}
}

#undef REDUCTION_BOXED_ARGS
#undef REDUCTION_WITH_KEEPDIM_ARG
#undef REDUCTION_NO_KEEPDIM_ARG

} // namespace at::functorch

// ${generated_comment}

// The overlay's additions to functorch's BatchRulesBinaryOps.cpp (not shipped
// in the wheel): its batch rules at namespace scope, and its registrations in
// the file's FuncTorchBatched block.

#include <ATen/functorch/BatchRulesHelper.h>
#include <ATen/functorch/PlumbingHelper.h>

namespace at::functorch {

${batch_rule_definitions}

TORCH_LIBRARY_IMPL(aten, FuncTorchBatched, m) {
${batch_rule_registrations}
}

} // namespace at::functorch

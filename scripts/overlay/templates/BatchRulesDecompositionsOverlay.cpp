// ${generated_comment}

// The overlay's additions to functorch's BatchRulesDecompositions.cpp (not
// shipped in the wheel): its FuncTorchBatchedDecomposition block, where a
// CompositeImplicitAutograd operator is registered so that vmap runs its
// decomposition instead of the batched fallback, with the file-local macros
// it uses.

#include <ATen/NativeFunctions.h>
#include <ATen/Operators.h>
#include <ATen/functorch/BatchRulesHelper.h>
#include <ATen/functorch/PlumbingHelper.h>

namespace at { namespace functorch {

#define OP_DECOMPOSE(op)  m.impl(#op, static_cast<decltype(&ATEN_FN(op))>(native::op));
#define OP_DECOMPOSE2(op, overload)  m.impl(#op"."#overload, static_cast<decltype(&ATEN_FN2(op, overload))>(native::op));

TORCH_LIBRARY_IMPL(aten, FuncTorchBatchedDecomposition, m) {
${batch_rule_registrations}
}

#undef OP_DECOMPOSE
#undef OP_DECOMPOSE2

}}

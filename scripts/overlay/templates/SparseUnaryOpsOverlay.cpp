// ${generated_comment}

// The overlay's additions to ATen/native/sparse/SparseUnaryOps.cpp (not shipped
// in the wheel): the fragments' lines, compiled with a COALESCED_UNARY_UFUNC
// that keeps that file's contract. For an op with op(0) == 0 it defines
// op_sparse, op_sparse_out and op_sparse_: the op runs on the values of the
// coalesced input and the result keeps its indices; in place and same-tensor
// out= need a coalesced input.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/native/SparseTensorUtils.h>

#include <ATen/ops/_sparse_coo_tensor_with_dims_and_tensors.h>

${includes}

namespace at::native {
namespace {

template <typename Functional>
Tensor overlay_coalesced_functional(const Tensor& self, const Functional& op) {
  TORCH_INTERNAL_ASSERT(self.is_sparse());
  const Tensor input = self.coalesce();
  const Tensor values = op(input._values());
  return at::_sparse_coo_tensor_with_dims_and_tensors(
      input.sparse_dim(),
      input.dense_dim(),
      input.sizes(),
      input._indices().clone(),
      values,
      input.options().dtype(values.scalar_type()),
      /*is_coalesced=*/true);
}

template <typename Out>
Tensor& overlay_coalesced_out(const Tensor& self, Tensor& result, const Out& op_out) {
  if (self.is_same(result)) {
    TORCH_CHECK(self.is_coalesced(), "expected coalesced tensor for inplace operation");
    Tensor values = self._values();
    op_out(values, values);
    return result;
  }
  TORCH_CHECK(self.is_sparse() && result.is_sparse());
  const Tensor input = self.coalesce();
  result.sparse_resize_(input.sizes(), input.sparse_dim(), input.dense_dim());
  // The tensors owned by result: its _values() and _indices() are aliases
  // that resize_ would detach.
  auto* result_impl = sparse::get_sparse_impl(result);
  Tensor result_values = result_impl->values();
  result_values.resize_(input._values().sizes());
  op_out(input._values(), result_values);
  Tensor result_indices = result_impl->indices();
  result_indices.resize_(input._indices().sizes());
  result_indices.copy_(input._indices());
  result._coalesced_(true);
  return result;
}

} // namespace

#define COALESCED_UNARY_UFUNC(op_name)                                        \
  Tensor op_name##_sparse(const Tensor& self) {                               \
    return overlay_coalesced_functional(                                      \
        self, [](const Tensor& values) { return at::op_name(values); });      \
  }                                                                           \
  Tensor& op_name##_sparse_out(const Tensor& self, Tensor& out) {             \
    return overlay_coalesced_out(                                             \
        self, out, [](const Tensor& values, Tensor& out_values) {             \
          return at::op_name##_outf(values, out_values);                      \
        });                                                                   \
  }                                                                           \
  Tensor& op_name##_sparse_(Tensor& self) {                                   \
    TORCH_CHECK(self.is_coalesced(), #op_name "_ requires coalesced input"); \
    TORCH_INTERNAL_ASSERT(self.is_sparse());                                  \
    self._values().op_name##_();                                              \
    return self;                                                              \
  }

${native_definitions}

#undef COALESCED_UNARY_UFUNC

} // namespace at::native

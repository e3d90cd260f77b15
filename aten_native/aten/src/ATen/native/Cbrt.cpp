#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/SparseCsrTensorUtils.h>
#include <ATen/TensorIterator.h>
#include <ATen/TensorMeta.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/SparseTensorUtils.h>
#include <ATen/native/UnaryOps.h>

#ifndef AT_PER_OPERATOR_HEADERS
#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#else
#include <ATen/ops/_sparse_compressed_tensor_unsafe.h>
#include <ATen/ops/_sparse_coo_tensor_with_dims_and_tensors.h>
#include <ATen/ops/cbrt.h>
#include <ATen/ops/cbrt_native.h>
#endif

namespace at::meta {

TORCH_META_FUNC(cbrt)(const Tensor& self) {
  TORCH_CHECK(
      !self.is_complex(),
      "cbrt is not implemented for '",
      self.scalar_type(),
      "': it is the real cube root. For the principal complex cube root, "
      "use torch.pow(input, 1.0 / 3).");
  build_borrowing_unary_float_op(maybe_get_output(), self);
}

} // namespace at::meta

namespace at::native {

DEFINE_DISPATCH(cbrt_stub);

TORCH_IMPL_FUNC(cbrt_out)(const Tensor& self, const Tensor& result) {
  cbrt_stub(device_type(), *this);
}

// cbrt maps 0 to 0, so on sparse inputs it only transforms the specified
// values and keeps the sparsity pattern. Being nonlinear, it needs the
// values of a COO tensor coalesced first (duplicate entries summed).

Tensor cbrt_sparse(const Tensor& self) {
  TORCH_INTERNAL_ASSERT(self.is_sparse());
  const Tensor input = self.coalesce();
  const Tensor values = at::cbrt(input._values());
  return at::_sparse_coo_tensor_with_dims_and_tensors(
      input.sparse_dim(),
      input.dense_dim(),
      input.sizes(),
      input._indices().clone(),
      values,
      input.options().dtype(values.scalar_type()),
      /*is_coalesced=*/true);
}

Tensor& cbrt_sparse_out(const Tensor& self, Tensor& result) {
  if (self.is_same(result)) {
    TORCH_CHECK(
        self.is_coalesced(), "cbrt_: expected a coalesced sparse tensor");
    Tensor values = self._values();
    at::cbrt_outf(values, values);
    return result;
  }
  TORCH_CHECK(
      self.is_sparse() && result.is_sparse(),
      "cbrt: expected sparse COO input and output, got ",
      self.layout(),
      " and ",
      result.layout());
  const Tensor input = self.coalesce();
  result.sparse_resize_(input.sizes(), input.sparse_dim(), input.dense_dim());
  // Write into the tensors owned by `result` (its _values() and _indices()
  // are aliases that resize_ would detach).
  auto* result_impl = at::sparse::get_sparse_impl(result);
  const Tensor& input_values = input._values();
  Tensor result_values = result_impl->values();
  result_values.resize_(input_values.sizes());
  at::cbrt_outf(input_values, result_values);
  const Tensor& input_indices = input._indices();
  Tensor result_indices = result_impl->indices();
  result_indices.resize_(input_indices.sizes());
  result_indices.copy_(input_indices);
  result._coalesced_(true);
  return result;
}

Tensor& cbrt_sparse_(Tensor& self) {
  TORCH_CHECK(self.is_coalesced(), "cbrt_ requires coalesced input");
  return cbrt_sparse_out(self, self);
}

Tensor cbrt_sparse_csr(const Tensor& self) {
  const auto [compressed_indices, plain_indices] =
      at::sparse_csr::getCompressedPlainIndices(self);
  const Tensor values = at::cbrt(self.values());
  return at::_sparse_compressed_tensor_unsafe(
      compressed_indices.clone(),
      plain_indices.clone(),
      values,
      self.sizes(),
      self.options().dtype(values.scalar_type()));
}

Tensor& cbrt_sparse_csr_out(const Tensor& self, Tensor& result) {
  TORCH_CHECK(
      at::sparse_csr::is_sparse_compressed(self) &&
          at::sparse_csr::is_sparse_compressed(result),
      "cbrt: expected sparse compressed input and output, got ",
      self.layout(),
      " and ",
      result.layout());
  if (!result.is_same(self)) {
    // An empty result (e.g. a fresh 0x0 tensor) takes the shape of self;
    // copy_ checks the sizes otherwise and brings in the indices.
    if (result.numel() == 0) {
      result.resize_as_sparse_(self);
    }
    result.copy_(self);
  }
  Tensor result_values = result.values();
  at::cbrt_outf(self.values(), result_values);
  return result;
}

Tensor& cbrt_sparse_csr_(Tensor& self) {
  return cbrt_sparse_csr_out(self, self);
}

} // namespace at::native

// ${generated_comment}

// The overlay's additions to ATen/native/sparse/SparseCsrTensorMath.cpp (not
// shipped in the wheel): the fragments' lines, compiled with a
// CREATE_UNARY_UFUNC that keeps that file's contract. For an op with
// op(0) == 0 on any sparse compressed layout it defines op_sparse_csr,
// op_sparse_csr_out and op_sparse_csr_: the op runs on the values, the
// result keeps the compressed and plain indices, and an empty out= takes the
// input's shape.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/SparseCsrTensorUtils.h>
#include <ATen/core/Tensor.h>

#include <ATen/ops/_sparse_compressed_tensor_unsafe.h>

${includes}

namespace at::native {
namespace {

template <typename Functional>
Tensor overlay_compressed_functional(const Tensor& self, const Functional& op) {
  const Tensor values = op(self.values());
  const auto [compressed_indices, plain_indices] =
      at::sparse_csr::getCompressedPlainIndices(self);
  return at::_sparse_compressed_tensor_unsafe(
      compressed_indices.clone(),
      plain_indices.clone(),
      values,
      self.sizes(),
      self.options().dtype(values.scalar_type()));
}

template <typename Out>
Tensor& overlay_compressed_out(const Tensor& self, Tensor& result, const Out& op_out) {
  TORCH_INTERNAL_ASSERT(at::sparse_csr::is_sparse_compressed(self));
  TORCH_INTERNAL_ASSERT(at::sparse_csr::is_sparse_compressed(result));
  if (!result.is_same(self)) {
    if (result.numel() == 0) {
      result.resize_as_sparse_(self);
    }
    // copy_ checks that the sizes agree and brings in the indices.
    result.copy_(self);
  }
  Tensor result_values = result.values();
  op_out(self.values(), result_values);
  return result;
}

} // namespace

#define CREATE_UNARY_UFUNC(op_name)                                            \
  Tensor& op_name##_sparse_csr_out(const Tensor& self, Tensor& result) {      \
    return overlay_compressed_out(self, result, &at::op_name##_outf);          \
  }                                                                            \
  Tensor op_name##_sparse_csr(const Tensor& self) {                            \
    return overlay_compressed_functional(                                      \
        self, [](const Tensor& values) { return at::op_name(values); });       \
  }                                                                            \
  Tensor& op_name##_sparse_csr_(Tensor& self) {                                \
    TORCH_CHECK(at::sparse_csr::is_sparse_compressed(self),                    \
        #op_name "_: expected a sparse compressed tensor, got ", self.layout()); \
    self.values().op_name##_();                                                \
    return self;                                                               \
  }

${native_definitions}

#undef CREATE_UNARY_UFUNC

} // namespace at::native

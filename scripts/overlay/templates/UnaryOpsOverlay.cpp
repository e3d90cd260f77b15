// ${generated_comment}

// The overlay's additions to ATen/native/UnaryOps.cpp (not shipped in the
// wheel): the fragments' lines, compiled with the file-local macro they use.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/TensorIterator.h>
#include <ATen/TensorMeta.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/DispatchStub.h>
#include <ATen/native/UnaryOps.h>

${includes}

namespace at::meta {

${meta_definitions}

} // namespace at::meta

namespace at::native {

// UnaryOps.cpp's contract: the structured kernel runs the stub on the
// TensorIterator that the meta function configured.
#define CREATE_UNARY_TORCH_IMPL_FUNC(func_out, func_stub)              \
  TORCH_IMPL_FUNC(func_out)(const Tensor& self, const Tensor& result) { \
    func_stub(device_type(), *this);                                   \
  }

${native_definitions}

#undef CREATE_UNARY_TORCH_IMPL_FUNC

} // namespace at::native

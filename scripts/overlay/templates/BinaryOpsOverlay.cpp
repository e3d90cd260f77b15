// ${generated_comment}

// The overlay's additions to ATen/native/BinaryOps.cpp (not shipped in the
// wheel): the fragments' lines, with the includes that file's own lines use
// (wrapped_scalar_tensor comes from ATen/ScalarOps.h).
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/ScalarOps.h>
#include <ATen/TensorIterator.h>
#include <ATen/TensorMeta.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/BinaryOps.h>
#include <ATen/native/DispatchStub.h>

${includes}

namespace at::meta {

${meta_definitions}

} // namespace at::meta

namespace at::native {

${native_definitions}

} // namespace at::native

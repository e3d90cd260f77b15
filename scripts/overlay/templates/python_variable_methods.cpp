#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
// ${generated_comment}

// Tensor.* bindings of the overlay's operators, as the wheel's generated
// python_variable_methods.cpp would hold them.  They become methods of
// torch._C.TensorBase (see overlay_module.cpp).

#include <Python.h>

#include "overlay_python.h"

#include "torch/csrc/DynamicTypes.h"
#include "torch/csrc/Exceptions.h"
#include "torch/csrc/Size.h"
#include "torch/csrc/autograd/generated/VariableType.h"
#include "torch/csrc/autograd/python_variable.h"
#include "torch/csrc/autograd/utils/python_arg_parsing.h"
#include "torch/csrc/autograd/utils/error_messages.h"
#include "torch/csrc/autograd/utils/wrap_outputs.h"
#include "torch/csrc/jit/frontend/tracer.h"
#include "torch/csrc/utils/device_lazy_init.h"
#include <torch/csrc/utils/numpy_stub.h>
#include "torch/csrc/utils/object_ptr.h"
#include "torch/csrc/utils/pycfunction_helpers.h"
#include "torch/csrc/utils/python_arg_parser.h"
#include "torch/csrc/utils/python_numbers.h"
#include "torch/csrc/utils/python_strings.h"
#include "torch/csrc/utils/tensor_new.h"
#include "torch/csrc/utils/tensor_types.h"
#include "torch/csrc/autograd/generated/python_return_types.h"
#include "overlay_return_types.h"

#include <ATen/core/Tensor.h>

$ops_headers

using at::device_of;
using at::OptionalDeviceGuard;
using at::Scalar;
using at::ScalarType;
using at::Tensor;
using namespace torch::autograd::utils;

// See python_torch_functions.cpp for why the methods have a namespace of their own.
namespace torch::autograd::overlay::tensor_method_bindings {

${py_methods}

static PyMethodDef tensor_methods_table[] = {
  ${py_method_defs}
  {nullptr, nullptr, 0, nullptr}
};

} // namespace torch::autograd::overlay::tensor_method_bindings

namespace torch::autograd::overlay {

PyMethodDef* tensor_methods() {
  return tensor_method_bindings::tensor_methods_table;
}

} // namespace torch::autograd::overlay

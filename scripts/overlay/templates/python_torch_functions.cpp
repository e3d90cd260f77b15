#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
// ${generated_comment}

// torch.* bindings of the overlay's operators, as the wheel's generated
// python_torch_functions.cpp would hold them.  They become static methods of
// torch._C._VariableFunctions (see overlay_module.cpp).

#include <Python.h>

#include "overlay_python.h"

#include "torch/csrc/autograd/python_variable.h"
#include "torch/csrc/autograd/utils/wrap_outputs.h"
#include "torch/csrc/Dtype.h"
#include "torch/csrc/DynamicTypes.h"
#include "torch/csrc/Exceptions.h"
#include "torch/csrc/utils/out_types.h"
#include "torch/csrc/utils/pybind.h"
#include "torch/csrc/utils/pycfunction_helpers.h"
#include "torch/csrc/utils/python_arg_parser.h"
#include "torch/csrc/utils/tensor_layouts.h"
#include "torch/csrc/utils/tensor_new.h"
#include "torch/csrc/utils/tensor_numpy.h"
#include "torch/csrc/jit/frontend/tracer.h"
#include "torch/csrc/autograd/generated/variable_factories.h"
#include "torch/csrc/utils/structseq.h"
#include "torch/csrc/utils/device_lazy_init.h"
#include "torch/csrc/autograd/generated/python_return_types.h"
#include "overlay_return_types.h"

#include <ATen/core/Tensor.h>

$ops_headers

using at::Tensor;
using at::Device;
using at::Layout;
using at::Scalar;
using at::ScalarType;
using at::Backend;
using at::OptionalDeviceGuard;
using at::DeviceGuard;
using at::TensorOptions;
using at::IntArrayRef;
using at::Generator;
using at::TensorList;
using at::ArrayRef;

using torch::utils::check_out_type_matches;
using namespace torch::autograd::utils;

// The functions live in a namespace of their own: the Python bindings are compiled as one unit, and an
// operator's torch.<op> and Tensor.<op> bindings have the same name (THPVariable_<op>).
namespace torch::autograd::overlay::torch_function_bindings {

${py_forwards}

static PyMethodDef torch_functions_table[] = {
  ${py_method_defs}
  {nullptr, nullptr, 0, nullptr}
};

${py_methods}

} // namespace torch::autograd::overlay::torch_function_bindings

namespace torch::autograd::overlay {

PyMethodDef* torch_functions() {
  return torch_function_bindings::torch_functions_table;
}

} // namespace torch::autograd::overlay

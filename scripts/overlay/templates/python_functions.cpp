// ${generated_comment}

// Python classes of the overlay's autograd Nodes (torch._C._functions.*), as
// the wheel's generated python_functions.cpp would hold them.

#include <Python.h>

#include "overlay_python.h"

#include <ATen/ATen.h>
#include <c10/core/SymNodeImpl.h>
#include "torch/csrc/autograd/generated/Functions.h"
#include "torch/csrc/autograd/python_cpp_function.h"
#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/autograd/saved_variable.h>
#include <torch/csrc/utils/pybind.h>
#include <pybind11/pybind11.h>

namespace torch::autograd::generated {

template<typename C>
static void addClass(PyObject* module, PyTypeObject& type, const char* name,
  PyGetSetDef* function_properties=NULL, PyMethodDef* function_methods=NULL)
{
  _initFunctionPyTypeObject(type, name, function_properties, function_methods);
  Py_INCREF(&type);
  PyModule_AddObject(module, name, (PyObject*)&type);
  registerCppFunction(typeid(C), &type);
}

${py_function_props_and_getters}

} // namespace torch::autograd::generated

namespace torch::autograd::overlay {

void initialize_autograd_functions(PyObject* module) {
  using namespace torch::autograd::generated;
  ${py_function_initializers}
}

} // namespace torch::autograd::overlay

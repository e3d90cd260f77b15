// CPython extension that attaches the overlay's generated bindings to the
// stock torch._C: torch._C._VariableFunctions.<op> (copied into `torch` by
// torch/__init__.py), torch._C.TensorBase.<op> and
// torch._C._functions.<Node>.  Importing it also loads the operator library
// it links against, whose static initializers register the operators.

#include "overlay_python.h"

#include <torch/csrc/utils/pybind.h>

#include <string>

#ifndef OVERLAY_PY_MODULE
#error "OVERLAY_PY_MODULE must name the extension module"
#endif
#define OVERLAY_CONCAT_(a, b) a##b
#define OVERLAY_CONCAT(a, b) OVERLAY_CONCAT_(a, b)
#define OVERLAY_STR_(a) #a
#define OVERLAY_STR(a) OVERLAY_STR_(a)

namespace py = pybind11;

namespace torch::autograd::overlay {

PyObject* THPVariableFunctionsModule = nullptr;

static py::tuple combine_self_args(PyObject* self, PyObject* args) {
  if (args == nullptr) {
    return py::make_tuple(py::handle(self));
  }
  auto py_args = py::reinterpret_borrow<py::tuple>(args);
  if (self == nullptr) {
    return py_args;
  }
  py::tuple combined(py_args.size() + 1);
  combined[0] = py::handle(self);
  for (size_t i = 0; i < py_args.size(); ++i) {
    combined[i + 1] = py_args[i];
  }
  return combined;
}

PyObject* overlay_handle_torch_function(
    torch::PythonArgs& r,
    PyObject* self,
    PyObject* args,
    PyObject* kwargs,
    PyObject* torch_api,
    const char* module_name,
    const char* func_name_override) {
  const std::string func_name = r.get_func_name();
  py::object torch_api_function =
      py::reinterpret_steal<py::object>(PyObject_GetAttrString(
          torch_api,
          func_name_override ? func_name_override : func_name.c_str()));
  if (!torch_api_function) {
    throw python_error();
  }
  py::tuple all_args = combine_self_args(self, args);
  return torch::handle_torch_function_no_python_arg_parser(
      r.overloaded_args,
      all_args.ptr(),
      kwargs,
      func_name.c_str(),
      torch_api_function.ptr(),
      module_name);
}

PyObject* overlay_handle_torch_function(
    torch::PythonArgs& r,
    PyObject* args,
    PyObject* kwargs,
    PyObject* torch_api,
    const char* module_name,
    const char* func_name_override) {
  return overlay_handle_torch_function(
      r, nullptr, args, kwargs, torch_api, module_name, func_name_override);
}

// Static types reject setattr, so the entries go straight into tp_dict; an
// existing entry means the wheel already has the operator: refuse to shadow it.
static void add_to_type(PyTypeObject* type, const char* name, PyObject* value) {
  py::object owned = py::reinterpret_steal<py::object>(value);
  if (!owned) {
    throw python_error();
  }
  PyObject* dict = type->tp_dict;
  if (PyDict_GetItemString(dict, name) != nullptr) {
    throw std::runtime_error(
        std::string(type->tp_name) + " already has '" + name + "'");
  }
  if (PyDict_SetItemString(dict, name, owned.ptr()) < 0) {
    throw python_error();
  }
}

static void add_static_methods(PyTypeObject* type, PyMethodDef* defs) {
  for (PyMethodDef* def = defs; def->ml_name != nullptr; ++def) {
    // As CPython's type_add_method does for METH_STATIC entries.
    py::object fn = py::reinterpret_steal<py::object>(
        PyCFunction_NewEx(def, (PyObject*)type, nullptr));
    if (!fn) {
      throw python_error();
    }
    add_to_type(type, def->ml_name, PyStaticMethod_New(fn.ptr()));
  }
  PyType_Modified(type);
}

static void add_methods(PyTypeObject* type, PyMethodDef* defs) {
  for (PyMethodDef* def = defs; def->ml_name != nullptr; ++def) {
    add_to_type(type, def->ml_name, PyDescr_NewMethod(type, def));
  }
  PyType_Modified(type);
}

static void attach() {
  py::module_ torch_c = py::module_::import("torch._C");
  py::object functions = torch_c.attr("_VariableFunctions");
  add_static_methods(Py_TYPE(functions.ptr()), torch_functions());
  THPVariableFunctionsModule = functions.release().ptr();
  add_methods(
      (PyTypeObject*)torch_c.attr("TensorBase").ptr(), tensor_methods());
  initialize_autograd_functions(torch_c.attr("_functions").ptr());
  initialize_return_types(torch_c.attr("_return_types").ptr());
}

} // namespace torch::autograd::overlay

static PyModuleDef overlay_module_def = {
    PyModuleDef_HEAD_INIT,
    OVERLAY_STR(OVERLAY_PY_MODULE),
    "Bindings of the out-of-tree ATen operators, attached to torch._C on import.",
    -1,
    nullptr,
};

PyMODINIT_FUNC OVERLAY_CONCAT(PyInit_, OVERLAY_PY_MODULE)() {
  try {
    torch::autograd::overlay::attach();
  } catch (python_error& e) {
    e.restore();
    return nullptr;
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_ImportError, e.what());
    return nullptr;
  }
  return PyModule_Create(&overlay_module_def);
}

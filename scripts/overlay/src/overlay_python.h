#pragma once

// Shared by the generated Python bindings (templates/python_*.cpp) and the
// extension module (overlay_module.cpp).

#include <Python.h>

#include <torch/csrc/utils/python_arg_parser.h>

namespace torch::autograd::overlay {

// torch._C._VariableFunctions; libtorch_python's own pointer is not exported.
extern PyObject* THPVariableFunctionsModule;

// torch::handle_torch_function(PythonArgs&, ...) with the same behaviour,
// built on the exported handle_torch_function_no_python_arg_parser; the
// wheel does not export the PythonArgs overloads the generated code calls.
PyObject* overlay_handle_torch_function(
    torch::PythonArgs& r,
    PyObject* self,
    PyObject* args,
    PyObject* kwargs,
    PyObject* torch_api,
    const char* module_name,
    const char* func_name_override = nullptr);

PyObject* overlay_handle_torch_function(
    torch::PythonArgs& r,
    PyObject* args,
    PyObject* kwargs,
    PyObject* torch_api,
    const char* module_name,
    const char* func_name_override = nullptr);

// Generated tables, each ended by a {nullptr} entry.
PyMethodDef* torch_functions();
PyMethodDef* tensor_methods();

// Generated: adds the Python classes of the autograd Nodes to `module`.
void initialize_autograd_functions(PyObject* module);

// Generated: adds the named tuples of the operators with named returns to torch._C._return_types.
void initialize_return_types(PyObject* return_types_module);

} // namespace torch::autograd::overlay

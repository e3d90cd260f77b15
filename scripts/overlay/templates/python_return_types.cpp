// ${generated_comment}

// The named tuples of the overlay's operators, as the wheel's generated python_return_types.cpp defines
// torch's own, added to torch._C._return_types when the library is attached.
#include <Python.h>

#include "overlay_python.h"
#include "overlay_return_types.h"

#include <torch/csrc/Exceptions.h>
#include <torch/csrc/utils/pybind.h>
#include <torch/csrc/utils/structseq.h>

namespace torch::autograd::generated {

// torch::utils::returned_structseq_repr, which libtorch_python does not export, taken from a named tuple of
// torch's own (every torch.return_types class uses it), so the overlay's print as torch's do.
static reprfunc overlay_structseq_repr() {
  static reprfunc repr = [] {
    py::object torch_type = py::module_::import("torch._C").attr("_return_types").attr("max");
    return reinterpret_cast<PyTypeObject*>(torch_type.ptr())->tp_repr;
  }();
  return repr;
}

${py_return_types}

} // namespace torch::autograd::generated

namespace torch::autograd::overlay {

void initialize_return_types(PyObject* return_types_module) {
  using namespace torch::autograd::generated;
  auto addReturnType = [](PyObject* module, const char* name, PyTypeObject* type) {
    Py_INCREF(type);
    if (PyModule_AddObject(module, name, (PyObject*)type) != 0) {
      Py_DECREF(type);
      throw python_error();
    }
  };
  ${py_return_types_registrations}
}

} // namespace torch::autograd::overlay

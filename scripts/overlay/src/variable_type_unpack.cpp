// The generated VariableType kernels call these helpers, which libtorch_cpu
// defines (torch/csrc/autograd/VariableTypeManual.cpp) but does not export.
// Same behaviour; the library is built with hidden visibility, so these
// copies stay private to it.

#include <torch/csrc/autograd/generated/VariableType.h>

#include <c10/util/Exception.h>

namespace torch::autograd::VariableType {

namespace {
void check_defined(const at::Tensor& t, const char* name, int pos) {
  TORCH_CHECK(
      t.defined(),
      "Expected a proper Tensor but got None (or an undefined Tensor in C++) ",
      "for argument #",
      pos,
      " '",
      name,
      "'");
}
} // namespace

const at::Tensor& unpack(const at::Tensor& t, const char* name, int pos) {
  check_defined(t, name, pos);
  return t;
}

at::Tensor& unpack(at::Tensor& t, const char* name, int pos) {
  check_defined(t, name, pos);
  return t;
}

at::Tensor unpack_opt(const at::Tensor& t, const char* name, int pos) {
  if (!t.defined()) {
    return at::Tensor();
  }
  return unpack(t, name, pos);
}

std::vector<at::Tensor> unpack(
    const at::ITensorListRef& tl,
    const char* name,
    int pos) {
  std::vector<at::Tensor> ret;
  ret.reserve(tl.size());
  for (const auto& t : tl) {
    ret.push_back(t);
  }
  return ret;
}

} // namespace torch::autograd::VariableType

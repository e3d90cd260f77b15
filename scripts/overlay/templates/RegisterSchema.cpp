// ${generated_comment}
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <torch/library.h>

// The wheel's libtorch_cpu already ran TORCH_LIBRARY(aten, m); the overlay
// adds its operators' schemas to that library.
namespace at {
TORCH_LIBRARY_FRAGMENT(aten, m) {
  ${aten_schema_registrations};
}
${schema_registrations}
}  // namespace at

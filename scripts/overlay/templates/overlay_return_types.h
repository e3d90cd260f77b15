// ${generated_comment}

// The named tuples (torch.return_types.<name>) of the overlay's operators, declared where the wheel's
// generated python_return_types.h declares torch's own, for the bindings that return them.
#pragma once

#include <Python.h>

namespace torch::autograd::generated {

${py_return_types_declarations}

} // namespace torch::autograd::generated

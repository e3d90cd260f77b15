// ${generated_comment}

// The overlay's additions to ATen/native/ReduceOps.cpp (not shipped in the
// wheel): the fragments' lines, with headers of that file's own include list
// (make_dim_mask, review_reduce_result and resize_reduction come from
// ATen/native/ReduceOpsUtils.h; the operators, from their ATen/ops headers).
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/native/ReduceOps.h>

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <ATen/TensorIterator.h>
#include <ATen/TensorMeta.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/WrapDimUtilsMulti.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/DispatchStub.h>
#include <ATen/native/ReduceOpsUtils.h>
#include <ATen/native/Resize.h>
#include <c10/util/irange.h>

#include <ATen/ops/add.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/imag.h>
#include <ATen/ops/real.h>
#include <ATen/ops/sqrt.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/zeros.h>

#include <cmath>
#include <limits>

${includes}

namespace at::meta {

${meta_definitions}

} // namespace at::meta

namespace at::native {

${native_definitions}

} // namespace at::native

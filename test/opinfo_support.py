"""Shared pieces of the OpInfo-driven cbrt suites (test/test_opinfo_*.py).

Those suites are compact equivalents of upstream's test_ops.py,
test_ops_gradients.py, test_ops_fwd_gradients.py, test_unary_ufuncs.py,
test_meta.py, test_decomp.py, functorch/test_vmap.py and
inductor/test_torchinductor_opinfo.py, restricted to the patched OpInfo entries
``UnaryUfuncInfo('cbrt')`` and ``ElementwiseUnaryPythonRefInfo('_refs.cbrt')``
and run on the venv's own ``torch.testing._internal`` machinery.

Test classes keep the upstream suite names (TestCommon, TestUnaryUfuncs, ...)
because an OpInfo's ``DecorateInfo`` skips and tolerance overrides are matched by
class name; the test methods are named by the behaviour they prove.
"""

from __future__ import annotations

import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_methods_invocations import op_db, python_ref_db
from torch.utils._pytree import tree_map_only

aten = torch.ops.aten

CBRT_OPS = [op for op in op_db if op.name == "cbrt"]
CBRT_REFS = [op for op in python_ref_db if op.name == "_refs.cbrt"]
CBRT_OPS_AND_REFS = CBRT_OPS + CBRT_REFS

# Every overload of the new operator; all three must behave as one op.
CBRT_OVERLOADS = (aten.cbrt.default, aten.cbrt_.default, aten.cbrt.out)

# CUDA classes are only generated where a GPU is visible; elsewhere they do not exist.
DEVICE_TYPES = ("cpu", "cuda")


def instantiate(test_class: type, scope: dict, **kwargs: object) -> None:
    """instantiate_device_type_tests for the device types these suites cover."""
    kwargs.setdefault("only_for", DEVICE_TYPES)
    instantiate_device_type_tests(test_class, scope, **kwargs)


def clone_tensors(tree):
    """Clones every tensor in a pytree, keeping the rest."""
    return tree_map_only(torch.Tensor, lambda t: t.clone(), tree)


def assert_same_metadata(
    test, real: torch.Tensor, other: torch.Tensor, *, what: str = "", strides: bool = True
) -> None:
    """Shape, dtype, math bits and (unless ``strides=False``) strides and storage offset match."""
    msg = f"{what}: real {tuple(real.shape)}/{real.dtype}/{real.stride()} vs {tuple(other.shape)}/{other.dtype}/{other.stride()}"
    test.assertEqual(real.shape, other.shape, msg=msg)
    test.assertEqual(real.dtype, other.dtype, msg=msg)
    test.assertEqual((real.is_conj(), real.is_neg()), (other.is_conj(), other.is_neg()), msg=msg)
    if strides:
        test.assertEqual(real.stride(), other.stride(), msg=msg)
        test.assertEqual(real.storage_offset(), other.storage_offset(), msg=msg)


# When out= has to be resized, the structured CPU/CUDA kernels give it the input's
# memory layout (TensorIterator), while every Python meta kernel built on out_wrapper
# (the refs of sqrt, exp, ... and cbrt alike) resizes it contiguous. The suites compare
# strides of resized outs only where both agree by design: out= of the right shape.

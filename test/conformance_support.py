"""What test_conformance.py and its DTensor worker (conformance_dtensor_worker.py, run as separate processes) share:
an operator's OpInfo, its seeded samples, its outputs as a list, and the comparison of bits."""

from __future__ import annotations

import torch
from torch.testing._internal.common_methods_invocations import op_db


def opinfo(name: str):
    """The operator's own OpInfo entry (no variant)."""
    (entry,) = [op for op in op_db if op.name == name and op.variant_test_name == ""]
    return entry


def samples(name: str, dtype: torch.dtype | None = None) -> list:
    """The OpInfo's CPU samples in `dtype` (default: float64, else its first supported dtype by name), the same on
    every call and in every process: seeded."""
    supported = opinfo(name).supported_dtypes("cpu")
    if dtype is None:
        dtype = torch.float64 if torch.float64 in supported else min(supported, key=str)
    torch.manual_seed(0)
    return list(opinfo(name).sample_inputs("cpu", dtype))


def as_outputs(result) -> list[torch.Tensor]:
    return list(result) if isinstance(result, tuple) else [result]


def same_bits(actual: torch.Tensor, expected: torch.Tensor, *, nan_sign: bool = False) -> bool:
    """Equal shapes, dtypes and values, zeros' signs included (complex part by part); a NaN equals any NaN, of
    either sign unless nan_sign."""
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return False
    if not (actual.is_floating_point() or actual.is_complex()):
        return torch.equal(actual, expected)
    if actual.is_complex():
        actual, expected = torch.view_as_real(actual), torch.view_as_real(expected)
    both_nan = actual.isnan() & expected.isnan()
    any_sign = both_nan if not nan_sign else torch.zeros_like(both_nan)
    return bool(((actual == expected) | both_nan).all()) and torch.equal(actual.signbit() | any_sign,
                                                                         expected.signbit() | any_sign)


def aten_overload(base: str, overload: str):
    """The dispatcher's operator `aten::<base>.<overload>` (the kernel, not a Python decomposition)."""
    return getattr(getattr(torch.ops.aten, base), overload or "default")


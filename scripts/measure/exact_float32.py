"""The exact float32 scorer and digest of exact_float32.c, compiled on first use and called through ctypes.

The exhaustive sweeps spend their time on the reference, not on the kernel: this one decides correct
rounding with integer arithmetic at a few nanoseconds per input instead of a libm call and a fix-up.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import torch

from scripts.layout import REPO_ROOT

SOURCE = Path(__file__).with_name("exact_float32.c")
BUILD_DIR = REPO_ROOT / "build" / "measure"
# No -march: the scorer's arithmetic must not depend on the machine; no contraction into fused multiply-adds.
FLAGS = ("-O2", "-fPIC", "-shared", "-ffp-contract=off", "-fno-fast-math")


class ScorerBuildError(RuntimeError):
    pass


class _Score(ctypes.Structure):
    _fields_ = [("max_ulp", ctypes.c_double), ("not_correctly_rounded", ctypes.c_int64),
                ("over_one_ulp", ctypes.c_int64)]


@dataclass(frozen=True)
class Score:
    max_ulp: float
    not_correctly_rounded: int
    over_one_ulp: int


def compiler() -> str:
    found = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not found:
        raise ScorerBuildError("no C compiler found: install gcc or set CC")
    return found


def build() -> Path:
    """The shared library, compiled into build/measure/ under the digest of its source and flags."""
    key = hashlib.sha256(SOURCE.read_bytes() + " ".join(FLAGS).encode()).hexdigest()[:16]
    library = BUILD_DIR / f"libexact_float32-{key}.so"
    if library.is_file():
        return library
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    partial = library.with_name(f"{library.name}.{os.getpid()}.tmp")
    result = subprocess.run([compiler(), *FLAGS, "-o", str(partial), str(SOURCE), "-lm"], capture_output=True, text=True)
    if result.returncode != 0:
        raise ScorerBuildError(f"compiling {SOURCE.name} failed:\n{result.stderr.strip()}")
    os.replace(partial, library)
    return library


@functools.cache
def _library() -> ctypes.CDLL:
    library = ctypes.CDLL(str(build()))
    pointer = ctypes.c_void_p
    library.score_float32.argtypes = [pointer, pointer, ctypes.c_int, ctypes.c_int64, ctypes.POINTER(_Score)]
    library.score_float32.restype = None
    library.correctly_rounded_cbrt_float32.argtypes = [ctypes.c_uint32]
    library.correctly_rounded_cbrt_float32.restype = ctypes.c_uint32
    library.digest_float32.argtypes = [pointer, pointer, ctypes.c_int64, ctypes.c_int64, ctypes.POINTER(ctypes.c_int64)]
    library.digest_float32.restype = ctypes.c_uint64
    return library


def _checked(*tensors: torch.Tensor) -> None:
    for tensor in tensors:
        if tensor.dtype != torch.float32 or not tensor.is_contiguous() or tensor.device.type != "cpu":
            raise ValueError(f"expected contiguous float32 CPU tensors, got {tensor.dtype} {tensor.device} "
                             f"(contiguous: {tensor.is_contiguous()})")
        if tensor.numel() != tensors[0].numel():
            raise ValueError(f"expected tensors of {tensors[0].numel()} elements, got {tensor.numel()}")


def score(x: torch.Tensor, results: list[torch.Tensor]) -> Score:
    """Worst error and counts over the results of cbrt(x) in several layouts (each in x's element order)."""
    _checked(x, *results)
    pointers = (ctypes.c_void_p * len(results))(*(r.data_ptr() for r in results))
    total = _Score(0.0, 0, 0)
    _library().score_float32(x.data_ptr(), pointers, len(results), x.numel(), ctypes.byref(total))
    return Score(total.max_ulp, total.not_correctly_rounded, total.over_one_ulp)


def correctly_rounded(x: torch.Tensor) -> torch.Tensor:
    """The float32 rounding of the exact cube root of every element, by bisection: slow, for samples."""
    _checked(x)
    cbrt = _library().correctly_rounded_cbrt_float32
    bits = [cbrt(b & 0xFFFFFFFF) for b in x.view(torch.int32).tolist()]
    return torch.tensor(bits, dtype=torch.int64).to(torch.int32).view(torch.float32).view(x.shape)


def digest(x: torch.Tensor, y: torch.Tensor, offset: int) -> tuple[int, int]:
    """(digest of y's bits with NaNs made one, NaN results for inputs that are not NaN); offset: y's position in the
    whole sequence, so digests of consecutive pieces add up (mod 2^64) to the digest of the whole."""
    _checked(x, y)
    nan_for_number = ctypes.c_int64(0)
    value = _library().digest_float32(x.data_ptr(), y.data_ptr(), x.numel(), offset, ctypes.byref(nan_for_number))
    return int(value), nan_for_number.value

"""What the tests of CUDA arithmetic built as host code share (test/cuda_host/*.cpp): building a harness against the
wheel's headers with the patch set's edits, and the float16 and bfloat16 values it reads and writes, held as float32."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from scripts.cross_arch.vec_tests import patched_include


def build_harness(source: Path, binary: Path, flags: list[str]) -> Path:
    """source compiled with g++ and flags into binary; the test is skipped where there is no g++."""
    compiler = shutil.which("g++")
    if compiler is None:
        pytest.skip("no g++ to build the host harness")
    command = [compiler, "-std=c++17", "-O2", *flags, f"-I{patched_include()}", str(source), "-o", str(binary)]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-4000:]
    return binary


# Half and BFloat16 values are held here as float32 (exact); their storage is float16, or for bfloat16 the top half
# of the float32 bits.
def storage(values: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "bfloat16":
        return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    if dtype == "float16":
        return values.astype(np.float16)
    return values


def values_of(raw: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "bfloat16":
        return (raw.astype(np.uint32) << 16).view(np.float32)
    return raw.astype(np.float32) if dtype == "float16" else raw


def to_bfloat16(x: np.ndarray) -> np.ndarray:
    """float32 rounded to the nearest bfloat16, ties to even (c10's conversion), as float32."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), np.float32(np.nan), rounded)

"""The float32 cube-root candidates of scripts/measure/cbrt_candidates.cpp, compiled per CPU capability, as loops.

Each x86 build of scripts/cross_arch/targets.py (DEFAULT, AVX2, AVX512, with PyTorch's flags) is compiled against
this interpreter's torch headers, which the overlay has patched, into build/measure/ under the digest of the
source, the flags and the headers it includes; a build this CPU cannot run is not compiled.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

from scripts.cross_arch.targets import BUILDS, Build, host_cpu_flags
from scripts.layout import REPO_ROOT

SOURCE = Path(__file__).with_name("cbrt_candidates.cpp")
BUILD_DIR = REPO_ROOT / "build" / "measure"
# From the shipped kernel to the correctly rounded one, each adding one ingredient (cbrt_candidates.cpp).
CANDIDATES = ("shipped", "exact_square", "cubic_residual", "correctly_rounded")
CAPABILITIES = {"DEFAULT": "x86_64-default", "AVX2": "x86_64-avx2", "AVX512": "x86_64-avx512"}

Loop = Callable[[torch.Tensor, torch.Tensor], None]


class CandidateBuildError(RuntimeError):
    pass


def torch_include() -> Path:
    include = Path(torch.__file__).parent / "include"
    if not (include / "ATen" / "cpu" / "vec" / "vec_cbrt.h").is_file():
        raise CandidateBuildError(f"{include} has no ATen/cpu/vec/vec_cbrt.h: build the overlay first (`make`)")
    return include


def headers_digest(include: Path) -> bytes:
    """The headers the candidates read the kernel from: the vec headers (the cube root is among them)."""
    files = sorted((include / "ATen" / "cpu" / "vec").rglob("*.h"))
    hasher = hashlib.sha256()
    for path in files:
        hasher.update(str(path.relative_to(include)).encode() + b"\0" + path.read_bytes())
    return hasher.digest()


def build_for(capability: str) -> Build:
    return next(b for b in BUILDS if b.name == CAPABILITIES[capability])


def runnable_capabilities() -> list[str]:
    flags = host_cpu_flags()
    return [c for c in CAPABILITIES if set(build_for(c).cpu_flags) <= flags]


def compile_command(build: Build, include: Path, library: Path) -> list[str]:
    return ["g++", "-std=c++17", "-O3", "-shared", "-fPIC", *build.flags, f"-I{include}", str(SOURCE),
            "-o", str(library)]


def compile_library(capability: str) -> Path:
    """The candidates' library for one capability, compiled on first use (atomically: a failed or interrupted
    compile leaves no library behind)."""
    build = build_for(capability)
    include = torch_include()
    key = hashlib.sha256(SOURCE.read_bytes() + " ".join(build.flags).encode() + headers_digest(include))
    library = BUILD_DIR / f"libcbrt_candidates-{capability.lower()}-{key.hexdigest()[:16]}.so"
    if library.is_file():
        return library
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    partial = library.with_name(f"{library.name}.{os.getpid()}.tmp")
    result = subprocess.run(compile_command(build, include, partial), capture_output=True, text=True)
    if result.returncode != 0:
        partial.unlink(missing_ok=True)
        raise CandidateBuildError(f"compiling {SOURCE.name} for {capability} failed:\n{result.stderr[-4000:]}")
    os.replace(partial, library)
    return library


@dataclass(frozen=True)
class Candidates:
    """One capability's library: a vector loop and a scalar loop per candidate, and the exact-path statistics."""

    capability: str
    library: ctypes.CDLL

    def function(self, name: str, *argtypes: type, restype: type | None = None) -> ctypes._CFuncPtr:
        function = getattr(self.library, name)
        function.argtypes = argtypes
        function.restype = restype
        return function

    def loop(self, candidate: str, scalar: bool = False) -> Loop:
        function = self.function(f"cbrt_{candidate}{'_scalar' if scalar else ''}", ctypes.c_void_p, ctypes.c_void_p,
                                 ctypes.c_int64)

        def run(x: torch.Tensor, out: torch.Tensor) -> None:
            _check(x, out)
            function(x.data_ptr(), out.data_ptr(), x.numel())

        return run

    def exact_path_count(self, x: torch.Tensor) -> int:
        _check(x)
        function = self.function("correctly_rounded_exact_path_count", ctypes.c_void_p, ctypes.c_int64,
                                 restype=ctypes.c_int64)
        return int(function(x.data_ptr(), x.numel()))

    def exact_path_mask(self, x: torch.Tensor, mask: torch.Tensor) -> None:
        """mask[i] = 1 where x[i] takes the exact path, else 0."""
        _check(x)
        if mask.dtype != torch.uint8 or not mask.is_contiguous() or mask.numel() != x.numel():
            raise ValueError(f"expected a contiguous uint8 mask of {x.numel()} elements")
        function = self.function("correctly_rounded_exact_path_mask", ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)
        function(x.data_ptr(), mask.data_ptr(), x.numel())

    def correction_error(self, x: torch.Tensor) -> float:
        _check(x)
        function = self.function("correctly_rounded_correction_error", ctypes.c_void_p, ctypes.c_int64,
                                 restype=ctypes.c_double)
        return float(function(x.data_ptr(), x.numel()))


def _check(*tensors: torch.Tensor) -> None:
    for tensor in tensors:
        if tensor.dtype != torch.float32 or not tensor.is_contiguous() or tensor.device.type != "cpu":
            raise ValueError(f"expected contiguous float32 CPU tensors, got {tensor.dtype} {tensor.device}")
        if tensor.numel() != tensors[0].numel():
            raise ValueError(f"expected tensors of {tensors[0].numel()} elements, got {tensor.numel()}")


@functools.cache
def load(capability: str) -> Candidates:
    if capability not in runnable_capabilities():
        missing = sorted(set(build_for(capability).cpu_flags) - host_cpu_flags())
        raise CandidateBuildError(f"this CPU cannot run the {capability} build (it lacks {', '.join(missing)})")
    return Candidates(capability, ctypes.CDLL(str(compile_library(capability))))

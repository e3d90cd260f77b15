"""Every CPU kernel file the patch set adds compiles for every architecture and capability PyTorch builds.

A kernel under aten/src/ATen/native/cpu/ is compiled once per CPU capability, and on aarch64, ppc64le and s390x with
vec headers of their own (vec128 NEON, SVE, VSX, ZVECTOR). A Vectorized<T> member or an intrinsic that one
architecture's headers lack fails only that architecture's build, which no x86 build shows. This compiles each new
kernel file of the patch set once per build of scripts/cross_arch/targets.py (its compiler and capability flags, and
the HAVE_<capability>_CPU_DEFINITION macro PyTorch's build gives DispatchStub.h on that architecture, without which
REGISTER_DISPATCH has no slot for the capability) against the wheel's headers with the patch set applied. Nothing
runs: there is no libtorch of those architectures here; test/cross_arch and scripts/cross_arch/check.py run the vec
code itself under qemu.

    python -m scripts.cross_arch.kernels     # one line per build; exits 1 when any kernel fails to compile
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from scripts.cross_arch.check import write_sleef_shim
from scripts.cross_arch.targets import BUILDS, Build
from scripts.cross_arch.toolchain import install
from scripts.cross_arch.vec_tests import patched_include
from scripts.layout import REPO_ROOT
from scripts.patchset.fragments import Sources, load_sources

OUTPUT = REPO_ROOT / "build" / "cross-arch-kernels"
# Kernel files: compiled per CPU capability (cmake/Codegen.cmake's native/cpu glob, and native/<area>/cpu).
KERNEL_PATH = re.compile(r"aten/src/ATen/native/(?:[^/]+/)*cpu/[^/]+\.cpp")
# DispatchStub.h's slot for each capability: PyTorch's build defines the macro of every capability it compiles.
DISPATCH_SLOT_MACROS = {
    "AVX2": "HAVE_AVX2_CPU_DEFINITION",
    "AVX512": "HAVE_AVX512_CPU_DEFINITION",
    "VSX": "HAVE_VSX_CPU_DEFINITION",
    "ZVECTOR": "HAVE_ZVECTOR_CPU_DEFINITION",
    "SVE128": "HAVE_SVE_CPU_DEFINITION",
    "SVE256": "HAVE_SVE_CPU_DEFINITION",
}


def kernel_files(sources: Sources) -> list[Path]:
    """The patch set's new kernel files (a kernel added to an existing file is in no file the wheel ships)."""
    return sorted(f.source for f in sources.new_files if KERNEL_PATH.fullmatch(f.upstream_path))


def capability_of(build: Build) -> str:
    (name,) = (flag.removeprefix("-DCPU_CAPABILITY=") for flag in build.flags if flag.startswith("-DCPU_CAPABILITY="))
    return name


def compile_command(build: Build, kernel: Path, include: Path, shim: Path, obj: Path) -> list[str]:
    slot = DISPATCH_SLOT_MACROS.get(capability_of(build))
    defines = [f"-D{slot}"] if slot and f"-D{slot}" not in build.flags else []
    includes = [f"-I{shim}"] if build.uses_sleef_shim else []
    return [build.compiler, "-std=c++20", "-O3", "-DNDEBUG", "-fPIC", "-DAT_PER_OPERATOR_HEADERS", *build.flags,
            *defines, *includes, f"-I{include}", "-c", str(kernel), "-o", str(obj)]


@dataclass(frozen=True)
class Compiled:
    build: Build
    kernel: Path
    error: str | None  # the compiler's first error line, None when it compiled
    seconds: float


def first_error(stderr: str) -> str:
    errors = [line for line in stderr.splitlines() if " error: " in line or line.startswith("error:")]
    return (errors or stderr.strip().splitlines()[-1:] or ["no output"])[0]


def compile_one(build: Build, kernel: Path, include: Path, shim: Path, output: Path) -> Compiled:
    obj = output / build.name / f"{kernel.stem}.o"
    obj.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    result = subprocess.run(compile_command(build, kernel, include, shim, obj), capture_output=True, text=True)
    error = None if result.returncode == 0 else first_error(result.stderr)
    return Compiled(build, kernel, error, time.monotonic() - started)


def compilable_builds(builds: tuple[Build, ...] = BUILDS) -> list[Build]:
    """The builds whose compilers (and the cross toolchains clang takes) this machine has."""
    return [b for b in builds if all(shutil.which(p) for p in (b.compiler, *b.needs))]


def compile_all(include: Path, builds: list[Build], kernels: list[Path], output: Path, jobs: int) -> list[Compiled]:
    shim = write_sleef_shim(include, output / "sleef-shim")
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(compile_one, b, k, include, shim, output) for b in builds for k in kernels]
        return [f.result() for f in futures]


def problems_of(results: list[Compiled]) -> list[str]:
    return [f"{r.build.name}: {r.kernel.relative_to(REPO_ROOT)}: {r.error}" for r in results if r.error]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    skipped = install(sorted({p for b in BUILDS for p in (b.compiler, *b.needs)}))
    if skipped:
        print(skipped)
    builds, kernels = compilable_builds(), kernel_files(load_sources())
    results = compile_all(patched_include(), builds, kernels, OUTPUT, args.jobs)
    for build in builds:
        mine = [r for r in results if r.build is build]
        state = "compiled" if all(r.error is None for r in mine) else "FAILED"
        print(f"cross-arch kernels: {build.name:30} {state:8} {len(mine)} kernel(s) in {sum(r.seconds for r in mine):5.1f}s")
    problems = problems_of(results)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()

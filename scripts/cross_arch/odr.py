"""The capability objects of each CPU kernel share no symbol of its operators that the linker could pick from either.

A kernel file (aten/src/ATen/native/cpu/*.cpp, each one the patch set adds) is compiled once per CPU capability, each
time with its own -m flags. A function with external linkage that all of those objects define (an inline function
or template instantiation outside `inline namespace CPU_CAPABILITY`) is a weak symbol in each, and the linker keeps
one of them: the DEFAULT kernel can then run a copy compiled with AVX512 and FMA instructions. At -O3 such functions
are usually inlined, at -O0 (a DEBUG build) they are not. This compiles each kernel at -O0 for DEFAULT and AVX2, as
scripts/overlay/CMakeLists.txt (and PyTorch's cmake/Codegen.cmake) does but without optimization, against the wheel's
headers patched by this repo, and lists the defined, externally visible symbols both objects define whose demangled
name holds the name of an operator the patch set adds (scripts/patchset/native_ops.py).

    python -m scripts.cross_arch.odr     # prints the shared symbols; exits 1 when there are any
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from scripts.cross_arch.kernels import kernel_files
from scripts.cross_arch.targets import capability
from scripts.cross_arch.vec_tests import patched_include
from scripts.layout import REPO_ROOT
from scripts.patchset.fragments import Sources, load_sources
from scripts.patchset.native_ops import native_ops, root_names

OUTPUT = REPO_ROOT / "build" / "odr"
# The -m flags of each capability in scripts/overlay/CMakeLists.txt (cmake/Codegen.cmake), without its -O3.
CAPABILITY_FLAGS: dict[str, tuple[str, ...]] = {
    "DEFAULT": (),
    "AVX2": ("-mavx2", "-mfma", "-mf16c", "-mno-avx256-split-unaligned-load", "-mno-avx256-split-unaligned-store"),
    "AVX512": ("-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq", "-mfma"),
}
# nm's letters for symbols another object's definition can replace or collide with: text, weak, weak object,
# unique global, indirect function, data.
EXTERNAL_TYPES = frozenset("TWVuiDBRS")


def compile_command(source: Path, obj: Path, include: Path, cap: str) -> list[str]:
    return [
        "g++",
        "-std=c++20",
        "-O0",
        "-fPIC",
        *CAPABILITY_FLAGS[cap],
        *(f"-D{d.removeprefix('-D')}" for d in capability(cap)),
        "-DHAVE_AVX512_CPU_DEFINITION",
        "-DHAVE_AVX2_CPU_DEFINITION",
        "-DAT_PER_OPERATOR_HEADERS",
        "-DCAFFE2_BUILD_MAIN_LIB",
        f"-I{include}",
        f"-I{include / 'torch' / 'csrc' / 'api' / 'include'}",
        "-c",
        str(source),
        "-o",
        str(obj),
    ]


def compile_objects(capabilities: tuple[str, ...], folder: Path, include: Path, source: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)

    def build(cap: str) -> Path:
        obj = folder / f"{source.stem}.{cap}.o"
        result = subprocess.run(compile_command(source, obj, include, cap), capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"odr: {source.name} does not compile for {cap}:\n{result.stderr[-6000:]}")
        return obj

    with ThreadPoolExecutor(len(capabilities)) as pool:
        return dict(zip(capabilities, pool.map(build, capabilities), strict=True))


def external_symbols(obj: Path) -> dict[str, str]:
    """Mangled name -> demangled name of the symbols `obj` defines with external linkage."""
    listed = subprocess.run(["nm", "-P", "--defined-only", str(obj)], capture_output=True, text=True, check=True)
    names = [f[0] for f in (line.split() for line in listed.stdout.splitlines()) if len(f) >= 2 and f[1] in EXTERNAL_TYPES]
    demangled = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True)
    return dict(zip(names, demangled.stdout.splitlines(), strict=True))


def shared_symbols_naming(objects: list[Path], names: tuple[str, ...]) -> list[str]:
    """The demangled names holding any of `names` of the symbols every object defines with external linkage."""
    tables = [external_symbols(obj) for obj in objects]
    common = set.intersection(*(set(t) for t in tables))
    return sorted(tables[0][m] for m in common if any(name in tables[0][m].lower() for name in names))


def operator_names(sources: Sources | None = None) -> tuple[str, ...]:
    """The root names of every operator the patch set adds."""
    return root_names(native_ops(load_sources() if sources is None else sources))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--capabilities", nargs="+", default=["DEFAULT", "AVX2"], choices=list(CAPABILITY_FLAGS))
    args = parser.parse_args(argv)
    sources = load_sources()
    include, names, found = patched_include(OUTPUT), operator_names(sources), 0
    for kernel in kernel_files(sources):
        objects = compile_objects(tuple(args.capabilities), OUTPUT, include, kernel)
        shared = shared_symbols_naming(list(objects.values()), names)
        print(f"odr: {kernel.name}: {len(shared)} symbols naming {', '.join(names)} defined by every object of "
              f"{', '.join(objects)}")
        for name in shared:
            print(f"  {name}")
        found += len(shared)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

"""SASS instruction counts per element of the CUDA cube root, by instruction class.

Compiles probe kernels with nvcc for sm_80 and sm_90: per dtype (float, double, half, bfloat16) the `libdevice`
kernel CbrtKernel.cu runs (::cbrt on the opmath value: cbrtf for float, half and bfloat16, cbrt for double) and a
`copy` kernel. Each probe thread does what gpu_kernel's vectorized path does: one 16-byte load (4 floats,
2 doubles, 8 halves), the function on each element, one 16-byte store. The other candidate, `portable` (the CPU
kernel's algorithm, c10::cbrt_portable* of c10/util/cbrt.h, which this repository no longer has), keeps the counts
measured the same way before it went (nvcc 13.0): they are data now, carried over from the counts file.

What is counted: the whole hot path of a thread (index, bounds test, load, the function on every element,
store), divided by its elements, the same way for every kernel. The hot path is what a thread runs for normal
finite inputs: the path that falls through every conditional branch and follows unconditional ones (nvcc lays
the special-input and subnormal paths of both candidates out as taken branches; `hot_path` fails when the path
does not reach a store). Predicated instructions on it count, taken or not: they take their issue slot.

    python -m scripts.gpu.sass_model --write-doc   # measure, write scripts/gpu/sass_counts.json and the doc table
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from scripts.layout import REPO_ROOT

ARCHS = ("sm_80", "sm_90")
DTYPES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16"}
KERNELS = ("portable", "libdevice", "copy")
MEASURED = ("libdevice", "copy")  # compiled here; `portable` is recorded data (RECORDED)
RECORDED = {
    "portable": "c10::cbrt_portable* (c10/util/cbrt.h, `git show 4e9753b:aten_native/c10/util/cbrt.h`), "
    "counted with nvcc release 13.0, V13.0.88 before the header was removed; not measured again",
}
BYTES = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2}
ELEMENTS_PER_THREAD = {dtype: 16 // size for dtype, size in BYTES.items()}  # one 16-byte access each way
CLASSES = ("fp32", "fp64", "int_logic", "convert", "mufu", "control", "memory")
COUNTS_FILE = Path(__file__).with_name("sass_counts.json")

# Opcode (the mnemonic before its first '.') to class. FSETP/FSEL/FMNMX are compares and selects (the ALU
# pipe, as integer compares); I2FP and F2FP are the ALU-pipe conversions of sm_86 and later, HADD2.F32 the
# FMA-pipe half-to-float widening; F2I/I2F/F2F and FRND run on the XU pipe with MUFU's rate but are counted
# apart. Uniform-datapath instructions (U*) take an issue slot and no vector pipe: counted as control.
OPCODE_CLASSES: dict[str, tuple[str, ...]] = {
    "fp32": ("FFMA", "FMUL", "FADD", "FFMA32I", "FMUL32I", "FADD32I", "HFMA2", "HADD2", "HMUL2"),
    "fp64": ("DFMA", "DMUL", "DADD", "DSETP", "DMNMX"),
    "int_logic": (
        "IMAD",
        "IADD3",
        "VIADD",
        "IADD",
        "LOP3",
        "SHF",
        "LEA",
        "ISETP",
        "IABS",
        "IMNMX",
        "SEL",
        "MOV",
        "FSETP",
        "FSEL",
        "FMNMX",
        "FSET",
        "PRMT",
        "I2FP",
        "F2FP",
        "P2R",
        "R2P",
        "PLOP3",
        "FLO",
        "POPC",
    ),
    "convert": ("F2I", "I2F", "F2F", "FRND", "I2I"),
    "mufu": ("MUFU",),
    "control": ("BRA", "BSSY", "BSYNC", "EXIT", "RET", "CALL", "WARPSYNC", "BAR", "YIELD"),
    "memory": ("LDG", "STG", "LDC", "LD", "ST", "LDS", "STS", "S2R", "S2UR", "CS2R"),
}


@dataclass(frozen=True)
class Instruction:
    address: int
    predicate: str  # "@P0", "@!P1" or ""
    opcode: str  # the full mnemonic, e.g. "FFMA" or "LDG.E.CONSTANT"
    operands: str

    @property
    def base(self) -> str:
        return self.opcode.split(".")[0]


LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*);")


def parse_functions(listing: str) -> dict[str, list[Instruction]]:
    """The instructions of every function of a `cuobjdump -sass` listing, by function name."""
    functions: dict[str, list[Instruction]] = {}
    current: list[Instruction] = []
    for line in listing.splitlines():
        if "Function : " in line:
            current = functions.setdefault(line.split("Function : ")[1].strip(), [])
            continue
        match = LINE.search(line)
        if match and match.group(3) != "NOP":
            address, predicate, opcode, operands = match.groups()
            current.append(Instruction(int(address, 16), (predicate or "").strip(), opcode, operands.strip()))
    return functions


def opcode_class(opcode: str) -> str:
    base = opcode.split(".")[0]
    if base.startswith("U"):
        return "control"
    for name, opcodes in OPCODE_CLASSES.items():
        if base in opcodes:
            return name
    raise ValueError(f"sass_model: opcode {opcode} has no class; add it to OPCODE_CLASSES")


def branch_target(instruction: Instruction) -> int:
    return int(instruction.operands.split(",")[-1].strip(), 16)


def hot_path(instructions: list[Instruction]) -> list[Instruction]:
    """The instructions from entry to the first unpredicated EXIT, falling through conditional branches."""
    at = {i.address: index for index, i in enumerate(instructions)}
    path: list[Instruction] = []
    index = 0
    while index < len(instructions):
        instruction = instructions[index]
        path.append(instruction)
        if len(path) > len(instructions):
            raise ValueError("sass_model: the fall-through path loops")
        if instruction.base == "EXIT" and not instruction.predicate:
            break
        taken = instruction.base == "BRA" and not instruction.predicate
        index = at[branch_target(instruction)] if taken else index + 1
    if not any(i.base == "STG" for i in path):
        raise ValueError("sass_model: the fall-through path does not reach the store")
    return path


def class_counts(instructions: list[Instruction]) -> dict[str, int]:
    counted = Counter(opcode_class(i.opcode) for i in instructions)
    return {name: counted.get(name, 0) for name in CLASSES}


def per_element(per_thread: dict[str, int], dtype: str) -> dict[str, float]:
    """A probe thread's counts divided by the elements it handles."""
    return {name: count / ELEMENTS_PER_THREAD[dtype] for name, count in per_thread.items()}


def probe_source(dtypes: dict[str, str] = DTYPES) -> str:
    lines = [
        "#include <ATen/OpMathType.h>",
        "#include <c10/util/BFloat16.h>",
        "#include <c10/util/Half.h>",
        "",
        "// As gpu_kernel's vectorized path: one 16-byte load, f on each element, one 16-byte store.",
        "template <typename T, typename F>",
        "__device__ void elementwise(const T* __restrict__ in, T* __restrict__ out, int n, F f) {",
        "  constexpr int kVec = 16 / sizeof(T);",
        "  struct alignas(16) Pack {",
        "    T v[kVec];",
        "  };",
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;",
        "  if (i < n / kVec) {",
        "    Pack p = reinterpret_cast<const Pack*>(in)[i];",
        "#pragma unroll",
        "    for (int k = 0; k < kVec; ++k) p.v[k] = f(p.v[k]);",
        "    reinterpret_cast<Pack*>(out)[i] = p;",
        "  }",
        "}",
    ]
    for dtype, cpp in dtypes.items():
        bodies = {
            "libdevice": f"::cbrt(static_cast<at::opmath_type<{cpp}>>(a))",
            "copy": "a",
        }
        for kernel, body in bodies.items():
            lines += [
                f'extern "C" __global__ void {kernel}_{dtype}(const {cpp}* __restrict__ in, {cpp}* __restrict__ out,'
                " int n) {",
                f"  elementwise(in, out, n, [](const {cpp} a) -> {cpp} {{ return {body}; }});",
                "}",
            ]
    return "\n".join(lines) + "\n"


def torch_site() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        raise SystemExit("sass_model: error: torch is not installed for this interpreter (its headers are needed)")
    return Path(spec.origin).parent.parent


def find_tool(name: str) -> str | None:
    """nvcc or cuobjdump: on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin, else the copy Triton ships."""
    candidates = [shutil.which(name), f"{os.environ.get('CUDA_HOME', '/usr/local/cuda')}/bin/{name}"]
    try:
        import triton

        candidates.append(str(Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / name))
    except ImportError:
        pass
    return next((c for c in candidates if c and Path(c).is_file() and os.access(c, os.X_OK)), None)


def compile_command(nvcc: str, arch: str, site: Path, source: Path, cubin: Path) -> list[str]:
    # The overlay's CUDA flags (scripts/overlay/CMakeLists.txt), Release: -O3, C++20.
    return [
        nvcc,
        "-std=c++20",
        "-O3",
        "--expt-relaxed-constexpr",
        "--extended-lambda",
        "-D__CUDA_NO_HALF_OPERATORS__",
        "-D__CUDA_NO_HALF_CONVERSIONS__",
        "-D__CUDA_NO_BFLOAT16_CONVERSIONS__",
        "-D__CUDA_NO_HALF2_OPERATORS__",
        f"-I{site / 'torch' / 'include'}",
        f"-gencode=arch=compute_{arch[3:]},code={arch}",
        "-cubin",
        "-o",
        str(cubin),
        str(source),
    ]


def sass_listing(nvcc: str, cuobjdump: str, arch: str, site: Path, workdir: Path) -> str:
    source, cubin = workdir / "probe.cu", workdir / f"probe_{arch}.cubin"
    source.write_text(probe_source())
    subprocess.run(compile_command(nvcc, arch, site, source, cubin), check=True, capture_output=True)
    return subprocess.run([cuobjdump, "-sass", str(cubin)], check=True, capture_output=True, text=True).stdout


def counts_of(listing: str) -> dict[str, dict[str, dict[str, float]]]:
    """dtype -> kernel -> class -> instructions per element, from one architecture's listing (MEASURED kernels)."""
    functions = parse_functions(listing)
    return {
        dtype: {k: per_element(class_counts(hot_path(functions[f"{k}_{dtype}"])), dtype) for k in MEASURED}
        for dtype in DTYPES
    }


def with_recorded(measured: dict[str, object], committed: dict[str, object]) -> dict[str, object]:
    """The measured counts with the RECORDED kernels' committed counts, in KERNELS order."""
    counts = {
        arch: {
            dtype: {k: (by_kernel if k in MEASURED else committed["counts"][arch][dtype])[k] for k in KERNELS}
            for dtype, by_kernel in by_dtype.items()
        }
        for arch, by_dtype in measured["counts"].items()
    }
    return {"nvcc": measured["nvcc"], "recorded": RECORDED, "counts": counts}


def measure() -> dict[str, object]:
    """nvcc's counts of the MEASURED kernels, with the RECORDED ones from the counts file."""
    nvcc, cuobjdump = find_tool("nvcc"), find_tool("cuobjdump")
    if nvcc is None or cuobjdump is None:
        raise SystemExit("sass_model: error: needs nvcc and cuobjdump (CUDA toolkit, or the copy Triton ships)")
    site = torch_site()
    with tempfile.TemporaryDirectory(prefix="sass-model-") as scratch:
        listings = {arch: sass_listing(nvcc, cuobjdump, arch, site, Path(scratch)) for arch in ARCHS}
    banner = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
    version = next((line for line in banner.splitlines() if "release" in line), "nvcc").removeprefix(
        "Cuda compilation tools, "
    )
    measured = {"nvcc": version, "counts": {arch: counts_of(listing) for arch, listing in listings.items()}}
    return with_recorded(measured, load_counts())


def load_counts(path: Path = COUNTS_FILE) -> dict[str, object]:
    return json.loads(path.read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, default=COUNTS_FILE, help="where the counts go")
    parser.add_argument("--write-doc", action="store_true", help="also regenerate docs/CUDA_KERNEL.md's tables")
    args = parser.parse_args()
    measured = measure()
    args.json.write_text(json.dumps(measured, indent=1) + "\n")
    print(f"sass_model: counts (nvcc {measured['nvcc']}) written to {args.json.relative_to(REPO_ROOT)}")
    if args.write_doc:
        from scripts.gpu import throughput_model

        throughput_model.write_doc(measured)
    return 0


if __name__ == "__main__":
    sys.exit(main())

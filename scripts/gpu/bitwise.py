"""Eager torch.cbrt against torch.compile'd torch.cbrt on the same device, bit for bit: every half and bfloat16
input, and large float32 and float64 samples of random bit patterns plus every special class (subnormals
included). Any two NaNs count as equal (their payloads may differ). Exits 1 on any other difference, or when the
compiled code does not run the lowering (a fallback to the aten kernel would make the comparison vacuous), unless
this torch has no lowering to run (one whose files the topic's Python fragments do not fit, which the overlay then
leaves out whole): then it says NOT COMPARED and passes. Torch 2.11.0, the GPU machine's, takes the whole topic.

On CUDA, eager runs CbrtKernel.cu (libdevice's cbrtf and cbrt, linked by nvcc) and the compiled code a Triton
kernel calling libdevice.cbrt (cbrtf in float for half and bfloat16, rounded once, as eager does): the same
function, so the same bits, under the numerics inductor offers for matching eager: the CUDA toolkit's
libdevice rather than the copy Triton bundles (another CUDA release's: CUDA 13.0's __nv_cbrtf and Triton 3.8's
are different instruction sequences) and no flush to zero (Triton's default takes libdevice's FTZ branches,
which do not compute the cube root of a float32 or bfloat16 subnormal). `eager_numerics()` sets both where
this torch has them. On the CPU (`--device cpu`, the rehearsal on a machine without a GPU), eager runs the
CPU kernel and the compiled code inductor's C++ kernel: the same Python code, the CPU's pair of kernels.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

import torch

INT_OF = {torch.float32: torch.int32, torch.float64: torch.int64, torch.half: torch.int16, torch.bfloat16: torch.int16}
DTYPES = {"float16": torch.half, "bfloat16": torch.bfloat16, "float32": torch.float32, "float64": torch.float64}
# What the generated code calls for cbrt when it lowers it (CPU: the vectorized loop, or the scalar function of a
# loop that is not vectorized); a fallback to the aten kernel calls aten.cbrt instead.
LOWERED = {"cuda": ("libdevice.cbrt(",), "cpu": (".cbrt()", "cbrt_scalar(")}
FALLBACK = "aten.cbrt"
# torch._inductor.config.eager_numerics: the CUDA toolkit's libdevice (torch 2.14; on older torch
# TRITON_LIBDEVICE_PATH does it) and libdevice without its flush-to-zero branches.
EAGER_NUMERICS = {"use_pytorch_libdevice": True, "disable_ftz": True}


def specials(dtype: torch.dtype) -> torch.Tensor:
    info = torch.finfo(dtype)
    values = [0.0, 1.0, 8.0, 27.0, 0.125, info.tiny, info.tiny / 2, info.smallest_normal * info.eps, info.max,
              float("inf"), float("nan")]
    positive = torch.tensor(values, dtype=torch.float64).to(dtype)
    return torch.cat([positive, -positive])


def inputs(dtype: torch.dtype, sample: int, seed: int) -> torch.Tensor:
    bits = torch.finfo(dtype).bits
    if bits == 16:
        patterns = torch.arange(-(1 << 15), 1 << 15, dtype=torch.int32).to(torch.int16)
    else:
        generator = torch.Generator().manual_seed(seed)
        low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        patterns = torch.randint(low, high, (sample,), dtype=INT_OF[dtype], generator=generator)
    return torch.cat([patterns.view(dtype), specials(dtype)])


def toolkit_libdevice() -> str | None:
    """The libdevice.10.bc that the nvcc on PATH links (the overlay build's nvcc, so the eager kernel's), else
    CUDA_HOME's; None when neither has one."""
    from torch.utils.cpp_extension import CUDA_HOME

    folders = []
    if shutil.which("nvcc"):
        dryrun = subprocess.run(["nvcc", "--dryrun", "-c", "-x", "cu", os.devnull, "-o", os.devnull],
                                capture_output=True, text=True)
        folders += [line.split("=", 1)[1] for line in dryrun.stderr.splitlines() if "NVVMIR_LIBRARY_DIR=" in line]
    folders += [f"{CUDA_HOME}/nvvm/libdevice"] if CUDA_HOME else []
    found = [Path(folder.strip()) / "libdevice.10.bc" for folder in folders]
    return next((str(path.resolve()) for path in found if path.is_file()), None)


@contextlib.contextmanager
def eager_numerics(device: str) -> Iterator[dict[str, object]]:
    """Inductor's settings for eager-matching numerics, those this torch has; yields what was set."""
    from torch._inductor import config

    settings: dict[str, object] = {"fx_graph_cache": False}  # lower every time, so the generated code is seen
    present = getattr(config, "eager_numerics", None)
    settings |= {f"eager_numerics.{k}": v for k, v in EAGER_NUMERICS.items() if hasattr(present, k)}
    if device == "cuda" and "TRITON_LIBDEVICE_PATH" not in os.environ and (libdevice := toolkit_libdevice()):
        os.environ["TRITON_LIBDEVICE_PATH"] = libdevice  # before the first compile: its workers inherit it
    with config.patch(settings):
        yield {**settings, "TRITON_LIBDEVICE_PATH": os.environ.get("TRITON_LIBDEVICE_PATH")}


def eager(x: torch.Tensor, device: str) -> torch.Tensor:
    return torch.cbrt(x.to(device)).cpu()


def compiled(x: torch.Tensor, device: str) -> tuple[torch.Tensor, str]:
    """torch.compile'd torch.cbrt of x on `device`, and the generated code."""
    from torch._inductor.utils import run_and_get_code

    result, codes = run_and_get_code(torch.compile(torch.cbrt, fullgraph=True, dynamic=False), x.to(device))
    return result.cpu(), "\n".join(codes)


def lowered(code: str, device: str) -> bool:
    return any(marker in code for marker in LOWERED[device]) and FALLBACK not in code


def lowering_available() -> bool:
    """Whether this torch's inductor has the cbrt lowering: off the pin, the overlay leaves out the topic's Python
    fragments, its lowering among them, on a torch whose files they do not all fit (scripts/overlay/venv_patch.py)."""
    from torch._inductor.codegen import common

    return "cbrt" in getattr(common, "pointwise_overrides_data", {})


def compare(dtype: torch.dtype, device: str, sample: int, seed: int) -> dict[str, object]:
    x = inputs(dtype, sample, seed)
    expected = eager(x, device)
    with eager_numerics(device) as settings:
        actual, code = compiled(x, device)
    both_nan = expected.isnan() & actual.isnan()
    differ = (expected.view(INT_OF[dtype]) != actual.view(INT_OF[dtype])) & ~both_nan
    where = differ.nonzero().flatten()[:5]
    examples = [{"input": float(x[i]), "eager": float(expected[i]), "compiled": float(actual[i])}
                for i in where.tolist()]
    return {"dtype": str(dtype).removeprefix("torch."), "inputs": x.numel(), "different": int(differ.sum()),
            "lowered": lowered(code, device), "lowering_available": lowering_available(), "settings": settings,
            "examples": examples}


def failed(result: dict[str, object]) -> bool:
    """Any difference, or compiled code that does not lower cbrt where this torch has the lowering."""
    return bool(result["different"]) or (result["lowering_available"] and not result["lowered"])


def verdict(result: dict[str, object], device: str) -> str:
    line = (f"bitwise: {result['dtype']} ({device}): {result['different']:,} of {result['inputs']:,} compiled results "
            "differ from eager's" + (f", e.g. {result['examples'][0]}" if result["examples"] else ""))
    if not result["lowering_available"]:
        return (line + "; NOT COMPARED: this torch has no inductor lowering of cbrt (the overlay left "
                "torch/_inductor/codegen/common.py as shipped), so the compiled code runs the eager kernel")
    return line + ("" if result["lowered"] else f"; the compiled code does not lower cbrt (no {' or '.join(LOWERED[device])})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    parser.add_argument("--dtypes", nargs="+", default=list(DTYPES), choices=list(DTYPES))
    parser.add_argument("--sample", type=int, default=1 << 26, help="random float32/float64 bit patterns")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        print("bitwise: error: no CUDA device visible to torch; use --device cpu on a CPU", file=sys.stderr)
        return 1
    results = []
    for name in args.dtypes:
        try:
            results.append(compare(DTYPES[name], args.device, args.sample, args.seed))
        except Exception as error:  # the summary keeps the last line: name the failure there, not dynamo's hint
            traceback.print_exc()
            cause = error  # dynamo wraps the backend's exception (BackendCompilerFailed ... from it): name that one
            while cause.__cause__ is not None:
                cause = cause.__cause__
            first_line = next((line for line in str(cause).splitlines() if line.strip()), "")
            print(f"bitwise: error: {name} ({args.device}): {type(cause).__name__}: {first_line[:300]}",
                  file=sys.stderr)
            return 1
    for r in results:
        print(verdict(r, args.device))
    print(f"bitwise: inductor settings: {results[0]['settings'] if results else {}}")
    if args.json:
        args.json.write_text(json.dumps({"device": args.device, "results": results}, indent=1) + "\n")
    return 1 if any(failed(r) for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())

"""CUDA torch.cbrt against CPU torch.cbrt, bit for bit: every half and bfloat16 input, and large float32
and float64 samples of random bit patterns plus every special class. Any two NaNs count as equal (their
payloads may differ). Exits 1 on any other difference.

`--device cpu-strided` compares the CPU kernel's per-element path (a non-contiguous input) with its
vectorized path instead: the counterpart a machine without a GPU can run.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

INT_OF = {torch.float32: torch.int32, torch.float64: torch.int64, torch.half: torch.int16, torch.bfloat16: torch.int16}
DTYPES = {"float16": torch.half, "bfloat16": torch.bfloat16, "float32": torch.float32, "float64": torch.float64}


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


def on_device(x: torch.Tensor, device: str) -> torch.Tensor:
    if device == "cpu-strided":
        spread = torch.empty(2 * x.numel(), dtype=x.dtype)[::2]
        spread.copy_(x)
        return torch.cbrt(spread).contiguous()
    return torch.cbrt(x.to(device)).cpu()


def compare(dtype: torch.dtype, device: str, sample: int, seed: int) -> dict[str, object]:
    x = inputs(dtype, sample, seed)
    expected, actual = torch.cbrt(x), on_device(x, device)
    both_nan = expected.isnan() & actual.isnan()
    differ = (expected.view(INT_OF[dtype]) != actual.view(INT_OF[dtype])) & ~both_nan
    where = differ.nonzero().flatten()[:5]
    examples = [{"input": float(x[i]), "cpu": float(expected[i]), device: float(actual[i])} for i in where.tolist()]
    return {"dtype": str(dtype).removeprefix("torch."), "inputs": x.numel(), "different": int(differ.sum()),
            "examples": examples}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--device", default="cuda", choices=("cuda", "cpu-strided"))
    parser.add_argument("--dtypes", nargs="+", default=list(DTYPES), choices=list(DTYPES))
    parser.add_argument("--sample", type=int, default=1 << 26, help="random float32/float64 bit patterns")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        print("bitwise: error: no CUDA device visible to torch; use --device cpu-strided on a CPU", file=sys.stderr)
        return 1
    results = [compare(DTYPES[name], args.device, args.sample, args.seed) for name in args.dtypes]
    for r in results:
        print(f"bitwise: {r['dtype']}: {r['different']:,} of {r['inputs']:,} results differ from the CPU's"
              + (f", e.g. {r['examples'][0]}" if r["examples"] else ""))
    if args.json:
        args.json.write_text(json.dumps({"device": args.device, "results": results}, indent=1) + "\n")
    return 1 if any(r["different"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())

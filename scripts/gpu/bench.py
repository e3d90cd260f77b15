"""CUDA throughput of torch.cbrt against device-to-device copy bandwidth (target: >= 90% at 2^28 float32)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch
import torch.utils.benchmark as benchmark

DTYPES = {"float32": torch.float32, "float64": torch.float64, "float16": torch.half, "bfloat16": torch.bfloat16}
KERNELS = {
    "torch.cbrt": "torch.cbrt(x, out=out)",
    "copy (bandwidth)": "out.copy_(x)",
    "copysign(pow(abs, 1/3))": "torch.copysign(torch.pow(torch.abs(x), 1.0 / 3.0), x)",
}


def gelem_per_s(stmt: str, x: torch.Tensor, out: torch.Tensor) -> float:
    timer = benchmark.Timer(stmt=stmt, globals={"torch": torch, "x": x, "out": out})
    return x.numel() / timer.blocked_autorange(min_run_time=0.3).median / 1e9


def measure(dtypes: list[str], exponents: list[int]) -> list[tuple[str, int, dict[str, float]]]:
    rows = []
    for dtype in dtypes:
        for exponent in exponents:
            x = torch.empty(1 << exponent, dtype=DTYPES[dtype], device="cuda").uniform_(-1000, 1000)
            out = torch.empty_like(x)
            rows.append((dtype, exponent, {name: gelem_per_s(stmt, x, out) for name, stmt in KERNELS.items()}))
            print(f"bench_gpu: {dtype} 2^{exponent} done", file=sys.stderr)
    return rows


def report(rows: list[tuple[str, int, dict[str, float]]]) -> str:
    names = list(KERNELS)
    lines = [f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}", "",
             "| dtype | size | " + " | ".join(f"{n} Gelem/s" for n in names) + " | cbrt / copy |",
             "|---|---|" + "---|" * (len(names) + 1)]
    for dtype, exponent, speeds in rows:
        cells = " | ".join(f"{speeds[n]:.1f}" for n in names)
        lines.append(f"| {dtype} | 2^{exponent} | {cells} | {speeds['torch.cbrt'] / speeds['copy (bandwidth)']:.2f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dtypes", nargs="+", default=list(DTYPES), choices=list(DTYPES))
    parser.add_argument("--exponents", type=int, nargs="+", default=[20, 24, 26, 28])
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("bench_gpu: no CUDA device visible to torch")
    text = report(measure(args.dtypes, args.exponents))
    args.output.write_text(text)
    print(text)


if __name__ == "__main__":
    main()

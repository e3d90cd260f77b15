"""torch.cbrt throughput against a device-to-device copy of the same tensor (the bandwidth bound), per dtype
and size. Exits 1 when float32 at the largest size runs below 90% of the copy's elements/s on CUDA."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch
import torch.utils.benchmark as benchmark

from scripts.gpu.throughput_model import prediction_of_shipped

DTYPES = {"float32": torch.float32, "float64": torch.float64, "float16": torch.half, "bfloat16": torch.bfloat16}
KERNELS = {
    "torch.cbrt": "torch.cbrt(x, out=out)",
    "copy (bandwidth)": "out.copy_(x)",
    "copysign(pow(abs, 1/3))": "torch.copysign(torch.pow(torch.abs(x), 1.0 / 3.0), x)",
}
TARGET = 0.9  # of the copy's elements/s, float32 at the largest size


def gelem_per_s(stmt: str, x: torch.Tensor, out: torch.Tensor) -> float:
    timer = benchmark.Timer(stmt=stmt, globals={"torch": torch, "x": x, "out": out})
    return x.numel() / timer.blocked_autorange(min_run_time=0.3).median / 1e9


def measure(device: str, dtypes: list[str], exponents: list[int]) -> list[dict[str, object]]:
    rows = []
    for dtype in dtypes:
        for exponent in exponents:
            x = torch.empty(1 << exponent, dtype=DTYPES[dtype], device=device).uniform_(-1000, 1000)
            out = torch.empty_like(x)
            speeds = {name: gelem_per_s(stmt, x, out) for name, stmt in KERNELS.items()}
            rows.append({"dtype": dtype, "exponent": exponent, "gelem_per_s": speeds,
                         "cbrt_over_copy": speeds["torch.cbrt"] / speeds["copy (bandwidth)"]})
            print(f"bench: {dtype} 2^{exponent}: {rows[-1]['cbrt_over_copy']:.2f} of copy", file=sys.stderr)
            del x, out
    return rows


def device_name(device: str) -> str:
    return torch.cuda.get_device_name() if device == "cuda" else f"CPU ({torch.get_num_threads()} threads)"


def markdown(result: dict) -> str:
    names = list(KERNELS)
    lines = [f"{result['device_name']}, torch {result['torch']}", "",
             "| dtype | size | " + " | ".join(f"{n} Gelem/s" for n in names) + " | cbrt / copy |",
             "|---|---|" + "---|" * (len(names) + 1)]
    for row in result["rows"]:
        cells = " | ".join(f"{row['gelem_per_s'][n]:.1f}" for n in names)
        lines.append(f"| {row['dtype']} | 2^{row['exponent']} | {cells} | {row['cbrt_over_copy']:.2f} |")
    return "\n".join(lines) + "\n"


def target_row(rows: list[dict[str, object]]) -> dict[str, object] | None:
    float32 = [r for r in rows if r["dtype"] == "float32"]
    return max(float32, key=lambda r: r["exponent"]) if float32 else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    parser.add_argument("--dtypes", nargs="+", default=list(DTYPES), choices=list(DTYPES))
    parser.add_argument("--exponents", type=int, nargs="+", default=list(range(20, 29)))
    parser.add_argument("--json", type=Path, required=True, help="results, for scripts.gpu.report")
    args = parser.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        print("bench: error: no CUDA device visible to torch; use --device cpu on a CPU", file=sys.stderr)
        return 1
    rows = measure(args.device, args.dtypes, args.exponents)
    result = {"device": args.device, "device_name": device_name(args.device), "torch": torch.__version__, "rows": rows}
    args.json.write_text(json.dumps(result, indent=1) + "\n")
    print(markdown(result))
    for line in against_model(rows):
        print(f"bench: {line}")
    met, line = verdict(rows) if args.device == "cuda" else (True, "the 90% of copy target applies to CUDA only")
    print(f"bench: {line}")
    return 0 if met else 1


def against_model(rows: list[dict[str, object]]) -> list[str]:
    """Per dtype, the measured share of copy bandwidth at the largest size next to the H200 model's prediction
    (docs/CUDA_KERNEL.md)."""
    lines = []
    for dtype in dict.fromkeys(r["dtype"] for r in rows):
        row = max((r for r in rows if r["dtype"] == dtype), key=lambda r: r["exponent"])
        kernel, predicted = prediction_of_shipped(str(dtype))
        lines.append(
            f"{dtype} 2^{row['exponent']}: measured {row['cbrt_over_copy']:.2f} of copy bandwidth, "
            f"model {predicted:.2f} (H200, {kernel} kernel)"
        )
    return lines


def verdict(rows: list[dict[str, object]]) -> tuple[bool, str]:
    """Whether float32 at the largest size reaches the target share of copy bandwidth, and a line saying so."""
    row = target_row(rows)
    if row is None:
        return False, "no float32 row: the 90% of copy target cannot be checked"
    met = row["cbrt_over_copy"] >= TARGET
    return met, (f"float32 2^{row['exponent']}: {row['cbrt_over_copy']:.2f} of copy bandwidth, target {TARGET}: "
                 + ("met" if met else "MISSED"))


if __name__ == "__main__":
    sys.exit(main())

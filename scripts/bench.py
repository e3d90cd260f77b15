"""`make bench`: torch.cbrt against its alternatives and the memory-bandwidth limit, side by side.

Writes docs/BENCHMARKS.md (machine, versions, throughput, target ratios) and docs/benchmarks.png.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.utils.benchmark as benchmark

from scripts.alternatives import prims_composite, tutorial_composite
from scripts.layout import REPO_ROOT

Kernel = Callable[[torch.Tensor, torch.Tensor], object]
DTYPES = {"float32": torch.float32, "float64": torch.float64, "float16": torch.half, "bfloat16": torch.bfloat16}


def numpy_kernel(x: torch.Tensor, out: torch.Tensor) -> object:
    if x.dtype == torch.bfloat16:
        return None
    return np.cbrt(x.numpy(), out=out.numpy())


def compiled_composite() -> Callable[[torch.Tensor], torch.Tensor]:
    return torch.compile(tutorial_composite, dynamic=True)


def kernels(with_compile: bool) -> dict[str, Kernel]:
    table: dict[str, Kernel] = {
        "torch.cbrt": lambda x, out: torch.cbrt(x, out=out),
        "numpy.cbrt": numpy_kernel,
        "tutorial composite": lambda x, out: tutorial_composite(x),
        "copysign(pow(abs, 1/3))": lambda x, out: prims_composite(x),
        "torch.neg (bandwidth)": lambda x, out: torch.neg(x, out=out),
        "copy (bandwidth)": lambda x, out: out.copy_(x),
    }
    if with_compile:
        compiled = compiled_composite()
        table["torch.compile(composite)"] = lambda x, out: compiled(x)
    return table


@dataclass(frozen=True)
class Measurement:
    kernel: str
    dtype: str
    size: int
    threads: int
    seconds: float

    @property
    def gelem_per_s(self) -> float:
        return self.size / self.seconds / 1e9


def applies(name: str, dtype: str, threads: int) -> bool:
    # numpy's ufunc loop is single-threaded and has no bfloat16
    return name != "numpy.cbrt" or (threads == 1 and dtype != "bfloat16")


def timer_for(name: str, kernel: Kernel, x: torch.Tensor, out: torch.Tensor, threads: int) -> benchmark.Timer:
    dtype = str(x.dtype).removeprefix("torch.")
    return benchmark.Timer(
        stmt="kernel(x, out)",
        globals={"kernel": kernel, "x": x, "out": out},
        num_threads=threads,
        label="cube root throughput",
        sub_label=f"{dtype} 2^{x.numel().bit_length() - 1}",
        description=f"{name} ({threads}t)",
    )


def measure_side_by_side(table: dict[str, Kernel], dtype: str, size: int, threads: int, min_run_time: float,
                         rounds: int) -> list[Measurement]:
    """Every kernel on the same input, in `rounds` interleaved rounds merged per kernel, so that a
    passing disturbance of the shared machine lands on all of them rather than on one."""
    x = torch.empty(size, dtype=DTYPES[dtype]).uniform_(-1000, 1000)
    out = torch.empty_like(x)
    names = [n for n in table if applies(n, dtype, threads)]
    raws: dict[str, list[benchmark.Measurement]] = {n: [] for n in names}
    for _ in range(rounds):
        for name in names:
            raws[name].append(timer_for(name, table[name], x, out, threads).blocked_autorange(min_run_time=min_run_time))
    found = []
    for name in names:
        merged = benchmark.Measurement.merge(raws[name])[0]
        RAW_MEASUREMENTS.append(merged)
        found.append(Measurement(name, dtype, size, threads, merged.median))
    return found


RAW_MEASUREMENTS: list[benchmark.Measurement] = []
OUTPUT_NOTE = ("torch.cbrt, numpy.cbrt, torch.neg and the copy write into a preallocated output (`out=`); "
               "the composites and the compiled composite allocate their temporaries and result")


def run_all(dtypes: list[str], sizes: list[int], threads: list[int], min_run_time: float, rounds: int,
            with_compile: bool) -> list[Measurement]:
    results: list[Measurement] = []
    table = kernels(with_compile)
    started = time.monotonic()
    for dtype in dtypes:
        for size in sizes:
            for count in threads:
                results += measure_side_by_side(table, dtype, size, count, min_run_time, rounds)
                print(f"bench: {dtype} 2^{size.bit_length() - 1} {count} thread(s) done, "
                      f"{time.monotonic() - started:.0f}s", file=sys.stderr)
    return results


def lookup(results: list[Measurement], kernel: str, dtype: str, size: int, threads: int) -> Measurement | None:
    return next((m for m in results if (m.kernel, m.dtype, m.size, m.threads) == (kernel, dtype, size, threads)), None)


@dataclass(frozen=True)
class Target:
    description: str
    numerator: tuple[str, str, int]  # kernel, dtype, threads
    denominator: tuple[str, str, int]
    sizes: tuple[int, ...]
    minimum: float


def targets(sizes: list[int]) -> list[Target]:
    mid = tuple(s for s in sizes if 1 << 16 <= s <= 1 << 24)
    large = tuple(s for s in sizes if s >= 1 << 24)
    return [
        Target("float32 vs numpy.cbrt, 1 thread, 2^16..2^24", ("torch.cbrt", "float32", 1), ("numpy.cbrt", "float32", 1), mid, 1.0),
        Target("float32 vs torch.neg, 2 threads, >= 2^24", ("torch.cbrt", "float32", 2), ("torch.neg (bandwidth)", "float32", 2), large, 0.9),
        Target("float32 vs tutorial composite, 1 thread", ("torch.cbrt", "float32", 1), ("tutorial composite", "float32", 1), tuple(sizes), 15.0),
        Target("float64 vs numpy.cbrt, 1 thread", ("torch.cbrt", "float64", 1), ("numpy.cbrt", "float64", 1), tuple(sizes), 1.0),
        Target("float16 vs float32 elements/s, 1 thread", ("torch.cbrt", "float16", 1), ("torch.cbrt", "float32", 1), mid, 0.8),
        Target("bfloat16 vs float32 elements/s, 1 thread", ("torch.cbrt", "bfloat16", 1), ("torch.cbrt", "float32", 1), mid, 0.8),
    ]


def ratio(results: list[Measurement], target: Target, size: int) -> float | None:
    top = lookup(results, target.numerator[0], target.numerator[1], size, target.numerator[2])
    bottom = lookup(results, target.denominator[0], target.denominator[1], size, target.denominator[2])
    return None if top is None or bottom is None else top.gelem_per_s / bottom.gelem_per_s


def target_rows(results: list[Measurement], sizes: list[int]) -> list[str]:
    rows = ["| target | sizes | worst ratio | required | met |", "|---|---|---|---|---|"]
    for target in targets(sizes):
        ratios = [r for s in target.sizes if (r := ratio(results, target, s)) is not None]
        if not ratios:
            rows.append(f"| {target.description} | - | not measured | {target.minimum} | - |")
            continue
        worst = min(ratios)
        shown = ", ".join(f"2^{s.bit_length() - 1}" for s in target.sizes)
        rows.append(f"| {target.description} | {shown} | {worst:.2f}x | {target.minimum}x | {'yes' if worst >= target.minimum else 'NO'} |")
    return rows


def throughput_rows(results: list[Measurement]) -> list[str]:
    names = list(dict.fromkeys(m.kernel for m in results))
    rows = ["| dtype | size | threads | " + " | ".join(names) + " |", "|---|---|---|" + "---|" * len(names)]
    keys = list(dict.fromkeys((m.dtype, m.size, m.threads) for m in results))
    for dtype, size, count in keys:
        cells = [lookup(results, n, dtype, size, count) for n in names]
        shown = [f"{c.gelem_per_s:.3f}" if c else "-" for c in cells]
        rows.append(f"| {dtype} | 2^{size.bit_length() - 1} | {count} | " + " | ".join(shown) + " |")
    return rows


def machine_lines() -> list[str]:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    return [
        f"- machine: {cpu}, {torch.get_num_threads()} threads available, {platform.system()} {platform.release()}",
        f"- torch {torch.__version__} (CPU capability {torch.backends.cpu.get_cpu_capability()}), numpy {np.__version__}",
        f"- date: {time.strftime('%Y-%m-%d')}",
    ]


def write_report(results: list[Measurement], sizes: list[int], command: str, plot: Path | None) -> str:
    lines = ["# Benchmarks", "", f"Made by `{command}`; every figure below comes from that one run.", ""]
    lines += machine_lines() + [f"- {OUTPUT_NOTE}", "", "## Targets (ratios measured side by side in the same run)", ""]
    lines += target_rows(results, sizes) + ["", "## Throughput (Gelem/s, median over the merged rounds of torch.utils.benchmark's blocked_autorange)", ""]
    lines += throughput_rows(results)
    if plot is not None:
        lines += ["", f"![throughput against size]({plot.name})"]
    return "\n".join(lines) + "\n"


def plot_throughput(results: list[Measurement], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    names = list(dict.fromkeys(m.kernel for m in results))
    colors = {name: f"C{i}" for i, name in enumerate(names)}  # one color per kernel in both panels
    for axis, count in zip(axes, (1, 2), strict=True):
        for name in names:
            points = sorted((m.size, m.gelem_per_s) for m in results if m.kernel == name and m.threads == count and m.dtype == "float32")
            if points:
                style = "--" if "bandwidth" in name else "-"
                axis.plot(*zip(*points, strict=True), style, marker="o", color=colors[name], label=name)
        axis.set(xscale="log", yscale="log", xlabel="elements (float32)", title=f"{count} thread(s); dashed: roofline")
        axis.grid(True, which="both", alpha=0.3)
        axis.legend(fontsize=7)
    axes[0].set_ylabel("Gelem/s")
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dtypes", nargs="+", default=list(DTYPES), choices=list(DTYPES))
    parser.add_argument("--min-exp", type=int, default=10)
    parser.add_argument("--max-exp", type=int, default=26)
    parser.add_argument("--step", type=int, default=2)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--min-run-time", type=float, default=0.1, help="seconds per kernel and round")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds per size, merged per kernel")
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile of the composite")
    parser.add_argument("--output", type=Path, default=REPO_ROOT / "docs" / "BENCHMARKS.md")
    args = parser.parse_args()
    sizes = [1 << e for e in range(args.min_exp, args.max_exp + 1, args.step)]
    args.output.parent.mkdir(parents=True, exist_ok=True)
    results = run_all(args.dtypes, sizes, args.threads, args.min_run_time, args.rounds, not args.no_compile)
    benchmark.Compare(RAW_MEASUREMENTS).print()
    plot = args.output.with_name("benchmarks.png")
    plot_throughput(results, plot)
    command = "python -m scripts.bench " + " ".join(sys.argv[1:])
    args.output.write_text(write_report(results, sizes, command.strip(), plot))
    print(f"bench: wrote {args.output} and {plot}")


if __name__ == "__main__":
    main()

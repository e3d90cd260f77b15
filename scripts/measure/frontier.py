"""`make frontier`: speed against misrounded results for the float32 cube-root candidates, measured in one run.

For each candidate of scripts/measure/cbrt_candidates.cpp (from the shipped kernel to a correctly rounded one):
- misrounded results and the worst error over all 2^32 float32 inputs, scored exactly (scripts/measure/exact_float32);
- for the correctly rounded one, how many inputs take its exact path and the worst relative error of its
  correction (what its perturbation must exceed);
- throughput beside numpy.cbrt and torch.cbrt, side by side in interleaved rounds (scripts/measure/bench), at
  2^16 to 2^24 elements, 1 thread, on every CPU build this machine runs.
Writes the frontier section of docs/CBRT_KERNEL.md and docs/cbrt_frontier.png.
"""

from __future__ import annotations

import argparse
import math
import platform
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from scripts.layout import REPO_ROOT
from scripts.measure import bench, exact_float32
from scripts.measure.candidates import CANDIDATES, Candidates, load, runnable_capabilities
from scripts.measure.machine import cpu_model
from scripts.measure.readme_tables import replace_section

DOC = REPO_ROOT / "docs" / "CBRT_KERNEL.md"
SECTION = "frontier"
CHUNK = 1 << 24
ALL_INPUTS = 1 << 32
SIZES = tuple(1 << e for e in range(16, 25, 2))
IN_CACHE = tuple(s for s in SIZES if s <= 1 << 20)
NUMPY = "numpy.cbrt"
TORCH = "torch.cbrt"
WHAT_IT_ADDS = {
    "shipped": "the kernel torch.cbrt runs (`Vectorized<float>::cbrt()`)",
    "exact_square": "y^2 carried exactly in the Newton step",
    "cubic_residual": "cubic q, and the residual y^3 - x rounded once",
    "correctly_rounded": "two perturbed roundings, an exact midpoint test where they differ",
}
SHIPPING_RULE = 1.0  # the correctly rounded kernel ships only at 1.0x numpy.cbrt in cache, on an AVX-512 machine
SLOWDOWN_LIMIT = 0.9  # and no build more than 10% slower than the shipped kernel on the same build


@dataclass(frozen=True)
class Accuracy:
    misrounded: int
    max_ulp: float


@dataclass(frozen=True)
class ExactPath:
    inputs: int
    correction_error: float


def chunk(start: int, count: int = CHUNK) -> torch.Tensor:
    """The float32 inputs whose bit patterns are start .. start + count - 1 (not crossing a multiple of 2^31)."""
    if start // (1 << 31) != (start + count - 1) // (1 << 31):
        raise ValueError(f"bit patterns {start:#x} + {count} cross a multiple of 2^31")
    signed = start - (1 << 32) if start >= 1 << 31 else start
    return torch.arange(signed, signed + count, dtype=torch.int32).view(torch.float32)


def score_chunk(library: Candidates, start: int, count: int) -> tuple[dict[str, exact_float32.Score], int, float]:
    x = chunk(start, count)
    out = torch.empty_like(x)
    scores = {}
    for candidate in CANDIDATES:
        library.loop(candidate)(x, out)
        scores[candidate] = exact_float32.score(x, [out])
    return scores, library.exact_path_count(x), library.correction_error(x)


def sweep(library: Candidates, count: int = ALL_INPUTS, jobs: int = 2) -> tuple[dict[str, Accuracy], ExactPath]:
    """Every candidate on the first `count` bit patterns (all 2^32 by default), in chunks on `jobs` threads (the
    foreign calls release the GIL)."""
    starts = range(0, count, CHUNK)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        parts = list(pool.map(lambda s: score_chunk(library, s, min(CHUNK, count - s)), starts))
    accuracy = {
        c: Accuracy(sum(p[0][c].not_correctly_rounded for p in parts), max(p[0][c].max_ulp for p in parts))
        for c in CANDIDATES
    }
    return accuracy, ExactPath(sum(p[1] for p in parts), max(p[2] for p in parts))


def kernel_name(candidate: str, capability: str) -> str:
    return f"{candidate} ({capability})"


def speed_table(capabilities: list[str]) -> dict[str, bench.Candidate]:
    table = {
        NUMPY: bench.Candidate(bench.numpy_kernel, ("float32",), True),
        TORCH: bench.Candidate(lambda x, out: torch.cbrt(x, out=out), ("float32",)),
    }
    for capability in capabilities:
        library = load(capability)
        for candidate in CANDIDATES:
            table[kernel_name(candidate, capability)] = bench.Candidate(library.loop(candidate), ("float32",), True)
    return table


def measure_speed(capabilities: list[str], min_run_time: float, rounds: int) -> list[bench.Measurement]:
    table = speed_table(capabilities)
    results = []
    for size in SIZES:
        results += bench.measure_side_by_side(table, "float32", size, 1, min_run_time, rounds)
        print(f"frontier: speed at 2^{size.bit_length() - 1} measured", file=sys.stderr)
    return results


def ratio(results: list[bench.Measurement], top: str, bottom: str, size: int) -> float:
    above = bench.lookup(results, top, "float32", size, 1)
    below = bench.lookup(results, bottom, "float32", size, 1)
    if above is None or below is None:
        raise ValueError(f"no measurement of {top if above is None else bottom} at {size} elements")
    return bench.speedup(above, below)


def worst(results: list[bench.Measurement], top: str, bottom: str, sizes: tuple[int, ...]) -> tuple[float, int]:
    """The smallest ratio over `sizes`, and the size it occurs at."""
    return min((ratio(results, top, bottom, s), s) for s in sizes)


def exponent(size: int) -> str:
    return f"2^{size.bit_length() - 1}"


def picked_capability(capabilities: list[str]) -> str:
    picked = torch.backends.cpu.get_cpu_capability()
    return picked if picked in capabilities else capabilities[-1]


def frontier_rows(results: list[bench.Measurement], accuracy: dict[str, Accuracy], capabilities: list[str],
                  picked: str) -> list[str]:
    sizes = " / ".join(exponent(s) for s in SIZES)
    builds = " / ".join(capabilities)
    rows = [f"| candidate | adds | misrounded of 2^32 | max ULP error | ÷ numpy.cbrt, {picked} build, {sizes} | "
            f"÷ shipped on the same build, worst of 2^16-2^24: {builds} |",
            "|---|---|---|---|---|---|"]
    for candidate in CANDIDATES:
        versus_numpy = " / ".join(f"{ratio(results, kernel_name(candidate, picked), NUMPY, s):.2f}" for s in SIZES)
        versus_shipped = " / ".join(
            f"{worst(results, kernel_name(candidate, c), kernel_name('shipped', c), SIZES)[0]:.2f}" for c in capabilities)
        rows.append(f"| `{candidate}` | {WHAT_IT_ADDS[candidate]} | {accuracy[candidate].misrounded:,} | "
                    f"{accuracy[candidate].max_ulp:.7g} | {versus_numpy} | {versus_shipped} |")
    return rows


def target_rows(results: list[bench.Measurement], capabilities: list[str], picked: str) -> list[str]:
    rows = ["| target | worst ratio | required | met |", "|---|---|---|---|"]

    def row(description: str, top: str, bottom: str, sizes: tuple[int, ...], required: float) -> str:
        value, size = worst(results, top, bottom, sizes)
        return (f"| {description} | {value:.2f}x at {exponent(size)} | {required}x | "
                f"{'yes' if value >= required else 'NO'} |")

    cr = "correctly_rounded"
    rows.append(row(f"`{cr}` ÷ numpy.cbrt in cache ({', '.join(exponent(s) for s in IN_CACHE)}), {picked} build",
                    kernel_name(cr, picked), NUMPY, IN_CACHE, SHIPPING_RULE))
    rows.append(row(f"`{cr}` ÷ numpy.cbrt, 2^16-2^24, {picked} build", kernel_name(cr, picked), NUMPY, SIZES,
                    SHIPPING_RULE))
    rows += [row(f"`{cr}` ÷ shipped, 2^16-2^24, {c} build", kernel_name(cr, c), kernel_name("shipped", c), SIZES,
                 SLOWDOWN_LIMIT) for c in capabilities]
    rows.append(row(f"torch.cbrt ÷ numpy.cbrt in cache, {picked} build (for scale: the shipped kernel through "
                    "TensorIterator)", TORCH, NUMPY, IN_CACHE, SHIPPING_RULE))
    return rows


def machine_line(capabilities: list[str], picked: str) -> str:
    return (f"Measured on {cpu_model()} ({picked} build picked; builds run: {', '.join(capabilities)}), "
            f"{platform.system()} {platform.release()}, numpy {np.__version__}, torch {torch.__version__}, "
            f"{time.strftime('%Y-%m-%d')}, by `python -m scripts.measure.frontier`.")


def section(results: list[bench.Measurement], accuracy: dict[str, Accuracy], exact_path: ExactPath,
            capabilities: list[str], picked: str, inputs: int, plot_name: str) -> str:
    share = exact_path.inputs / inputs
    how_often = (f"(1 in {1 / share:,.0f} lanes, about 1 vector of 16 lanes in {1 / (16 * share):,.0f} on uniform "
                 f"bit patterns)") if share else "(none)"
    error = (f"2^{math.log2(exact_path.correction_error):.1f}" if exact_path.correction_error
             else "0 (no correction resolved)")
    lines = [machine_line(capabilities, picked), "",
             *frontier_rows(results, accuracy, capabilities, picked), "",
             f"The candidates are loops over whole vectors and a scalar tail, called through ctypes: no "
             f"TensorIterator, so a kernel inside torch.cbrt would be a little slower than its row. Ratios are "
             f"medians of per-round ratios of interleaved rounds. Misrounded counts cover {inputs:,} inputs.", "",
             *target_rows(results, capabilities, picked), "",
             f"`correctly_rounded` takes its exact path on {exact_path.inputs:,} of {inputs:,} inputs "
             f"{how_often}; the worst relative error of its correction over the inputs whose correction the "
             f"reference resolves is {error}, against the perturbation 2^-17.", "",
             f"![speed against misrounded results]({plot_name})", ""]
    return "\n".join(lines)


def plot(results: list[bench.Measurement], accuracy: dict[str, Accuracy], capabilities: list[str], picked: str,
         path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from scripts.measure.bench_plot import style

    figure, (left, right) = plt.subplots(1, 2, figsize=(13, 5))
    for index, candidate in enumerate(CANDIDATES):
        ratios = [ratio(results, kernel_name(candidate, picked), NUMPY, s) for s in IN_CACHE]
        left.plot([max(accuracy[candidate].misrounded, 1)] * len(ratios), ratios, linestyle="none", markersize=7,
                  label=candidate, **style(index))
    left.axhline(SHIPPING_RULE, color="black", linewidth=0.8)
    left.set(xscale="log", xlabel="misrounded results of 2^32 (0 drawn at 1)",
             ylabel="÷ numpy.cbrt", title=f"{picked} build, in cache ({', '.join(exponent(s) for s in IN_CACHE)})")
    for index, candidate in enumerate(CANDIDATES):
        for offset, capability in enumerate(capabilities):
            points = [(s, ratio(results, kernel_name(candidate, capability), kernel_name("shipped", capability), s))
                      for s in SIZES]
            right.plot(*zip(*points, strict=True), ["-", "--", ":"][offset % 3], markersize=5,
                       label=f"{candidate} ({capability})", **style(index))
    right.axhline(SLOWDOWN_LIMIT, color="black", linewidth=0.8)
    right.set(xscale="log", xlabel="elements", ylabel="÷ shipped kernel, same build",
              title="each build against the shipped kernel; line: 0.9x")
    for axis in (left, right):
        axis.grid(True, which="both", alpha=0.3)
        axis.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    figure.tight_layout()
    figure.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(figure)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", type=int, default=ALL_INPUTS, help="score the first N bit patterns (default 2^32)")
    parser.add_argument("--min-run-time", type=float, default=0.1, help="seconds per kernel and round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--doc", type=Path, default=DOC)
    args = parser.parse_args(argv)
    if not 0 < args.inputs <= ALL_INPUTS or args.inputs % CHUNK:
        parser.error(f"--inputs must be a positive multiple of {CHUNK} up to 2^32")
    capabilities = runnable_capabilities()
    picked = picked_capability(capabilities)
    started = time.monotonic()
    accuracy, exact_path = sweep(load(picked), args.inputs)
    print(f"frontier: {args.inputs:,} inputs scored in {time.monotonic() - started:.0f}s", file=sys.stderr)
    torch.set_num_threads(1)
    results = measure_speed(capabilities, args.min_run_time, args.rounds)
    plot_path = args.doc.with_name("cbrt_frontier.png")
    plot(results, accuracy, capabilities, picked, plot_path)
    body = section(results, accuracy, exact_path, capabilities, picked, args.inputs, plot_path.name)
    args.doc.write_text(replace_section(args.doc.read_text(), SECTION, body))
    print(body)
    print(f"frontier: wrote {args.doc} and {plot_path}", file=sys.stderr)


if __name__ == "__main__":
    main()

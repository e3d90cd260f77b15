"""`make bench`: torch.cbrt against its alternatives and the memory-bandwidth limit, side by side.

Writes docs/BENCHMARKS.md (machine, versions, throughput, target ratios) and docs/benchmarks.png.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch
import torch.utils.benchmark as benchmark

from scripts.cross_arch.targets import host_cpu_flags
from scripts.gpu.report import carried_over
from scripts.layout import REPO_ROOT
from scripts.measure.alternatives import prims_composite, python_cube_root
from scripts.measure.bench_baselines import SCALAR_LOOP, baseline_kernels
from scripts.measure.bench_summary import BENCHMARKS
from scripts.measure.machine import cpu_model
from scripts.measure.readme_tables import update_performance

Kernel = Callable[[torch.Tensor, torch.Tensor], object]
COPY = "copy (bandwidth)"
DTYPES = {"float32": torch.float32, "float64": torch.float64, "float16": torch.half, "bfloat16": torch.bfloat16}


def numpy_kernel(x: torch.Tensor, out: torch.Tensor) -> object:
    return np.cbrt(x.numpy(), out=out.numpy())


def compiled_composite() -> Callable[[torch.Tensor], torch.Tensor]:
    return torch.compile(python_cube_root, dynamic=True)


@dataclass(frozen=True)
class Candidate:
    run: Kernel
    dtypes: tuple[str, ...] = tuple(DTYPES)
    single_thread: bool = False  # a loop that runs on one thread whatever torch's setting

    def applies(self, dtype: str, threads: int) -> bool:
        return dtype in self.dtypes and (threads == 1 or not self.single_thread)


def per_dtype(loops: dict[str, Kernel]) -> Candidate:
    return Candidate(lambda x, out: loops[str(x.dtype).removeprefix("torch.")](x, out), tuple(loops), True)


def kernels(with_compile: bool, baselines: dict[str, dict[str, Kernel]]) -> dict[str, Candidate]:
    table: dict[str, Candidate] = {
        "torch.cbrt": Candidate(lambda x, out: torch.cbrt(x, out=out)),
        # numpy's ufunc loop is single-threaded and has no bfloat16
        "numpy.cbrt": Candidate(numpy_kernel, ("float32", "float64", "float16"), True),
        "sign(x) * abs(x) ** (1/3)": Candidate(lambda x, out: python_cube_root(x)),
        "copysign(pow(abs, 1/3))": Candidate(lambda x, out: prims_composite(x)),
        "torch.neg (bandwidth)": Candidate(lambda x, out: torch.neg(x, out=out)),
        COPY: Candidate(lambda x, out: out.copy_(x)),
    }
    table |= {name: per_dtype(loops) for name, loops in baselines.items()}
    if with_compile:
        compiled = compiled_composite()
        compiled_cbrt = torch.compile(torch.cbrt, dynamic=True)
        table["torch.compile(composite)"] = Candidate(lambda x, out: compiled(x))
        # torch.compile returns a new tensor: its eager counterpart allocates one too
        table[EAGER_ALLOCATING] = Candidate(lambda x, out: torch.cbrt(x))
        table[COMPILED_CBRT] = Candidate(lambda x, out: compiled_cbrt(x))
    return table


EAGER_ALLOCATING = "torch.cbrt (new tensor)"
COMPILED_CBRT = "torch.compile(torch.cbrt)"


@dataclass(frozen=True)
class Measurement:
    kernel: str
    dtype: str
    size: int
    threads: int
    seconds: float
    # Median seconds in each interleaved round, and which side-by-side run the rounds belong to.
    round_seconds: tuple[float, ...] = ()
    batch: str = ""

    @property
    def gelem_per_s(self) -> float:
        return self.size / self.seconds / 1e9

    @classmethod
    def from_json(cls, fields: dict[str, object]) -> Measurement:
        return cls(**{**fields, "round_seconds": tuple(fields.get("round_seconds", ()))})  # type: ignore[arg-type]


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


def measure_side_by_side(table: dict[str, Candidate], dtype: str, size: int, threads: int, min_run_time: float,
                         rounds: int) -> list[Measurement]:
    """Every kernel on the same input, in `rounds` interleaved rounds merged per kernel, so that a
    passing disturbance of the shared machine lands on all of them rather than on one."""
    x = torch.empty(size, dtype=DTYPES[dtype]).uniform_(-1000, 1000)
    out = torch.empty_like(x)
    batch = f"{os.getpid()} {dtype} {size} {threads}"
    names = [n for n, c in table.items() if c.applies(dtype, threads)]
    raws: dict[str, list[benchmark.Measurement]] = {n: [] for n in names}
    for _ in range(rounds):
        for name in names:
            raws[name].append(timer_for(name, table[name].run, x, out, threads).blocked_autorange(min_run_time=min_run_time))
    found = []
    for name in names:
        merged = benchmark.Measurement.merge(raws[name])[0]
        RAW_MEASUREMENTS.append(merged)
        round_seconds = tuple(r.median for r in raws[name])
        found.append(Measurement(name, dtype, size, threads, merged.median, round_seconds, batch))
    return found


RAW_MEASUREMENTS: list[benchmark.Measurement] = []
OUTPUT_NOTE = ("torch.cbrt, numpy.cbrt, the Sleef loops, torch.neg and the copy write into a preallocated output "
               "(`out=`); the composites, torch.compile and `torch.cbrt (new tensor)` allocate their result")
# Other CPU capability builds of torch.cbrt, each measured in its own process (ATEN_CPU_CAPABILITY is read once).
OTHER_BUILDS = {"AVX2": ("avx2", "fma"), "DEFAULT": ()}


def build_name(capability: str) -> str:
    return f"torch.cbrt ({capability} build)"


def measure_all(table: dict[str, Candidate], dtypes: list[str], sizes: list[int], threads: list[int],
                min_run_time: float, rounds: int) -> list[Measurement]:
    results: list[Measurement] = []
    started = time.monotonic()
    for dtype in dtypes:
        for size in sizes:
            for count in threads:
                results += measure_side_by_side(table, dtype, size, count, min_run_time, rounds)
                print(f"bench: {dtype} 2^{size.bit_length() - 1} {count} thread(s) done, "
                      f"{time.monotonic() - started:.0f}s", file=sys.stderr)
    return results


def capability_table(capability: str) -> dict[str, Candidate]:
    """torch.cbrt of one capability build; the DEFAULT build beside the scalar loop it replaced."""
    table = {build_name(capability): Candidate(lambda x, out: torch.cbrt(x, out=out))}
    if capability == "DEFAULT":
        table[SCALAR_LOOP] = per_dtype(baseline_kernels(set())[SCALAR_LOOP])
    return table


def measure_other_build(capability: str, dtypes: list[str], sizes: list[int], min_run_time: float,
                        rounds: int) -> list[Measurement]:
    exponents = [str(s.bit_length() - 1) for s in sizes]
    command = [sys.executable, "-m", "scripts.measure.bench", "--child-build", capability, "--dtypes", *dtypes,
               "--exponents", *exponents, "--min-run-time", str(min_run_time), "--rounds", str(rounds)]
    environment = {**os.environ, "ATEN_CPU_CAPABILITY": capability.lower()}
    result = subprocess.run(command, env=environment, capture_output=True, text=True, cwd=REPO_ROOT)
    if result.returncode != 0:
        raise SystemExit(f"error: measuring the {capability} build failed:\n{result.stderr[-3000:]}")
    return [Measurement.from_json(m) for m in json.loads(result.stdout.strip().splitlines()[-1])]


def run_all(dtypes: list[str], sizes: list[int], threads: list[int], min_run_time: float, rounds: int,
            with_compile: bool) -> list[Measurement]:
    cpu_flags = host_cpu_flags()
    baselines = {n: loops for n, loops in baseline_kernels(cpu_flags).items() if n != SCALAR_LOOP}
    results = measure_all(kernels(with_compile, baselines), dtypes, sizes, threads, min_run_time, rounds)
    picked = torch.backends.cpu.get_cpu_capability()
    mid = [s for s in sizes if 1 << 16 <= s <= 1 << 24]
    for capability, needs in OTHER_BUILDS.items():
        if capability != picked and set(needs) <= cpu_flags and mid:
            results += measure_other_build(capability, dtypes, mid, min_run_time, rounds)
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


SLEEF_U10 = "Sleef u10 (AVX-512)"


def targets(sizes: list[int]) -> list[Target]:
    mid = tuple(s for s in sizes if 1 << 16 <= s <= 1 << 24)
    large = tuple(s for s in sizes if s >= 1 << 24)
    rows = [
        Target(f"{d} vs numpy.cbrt, 1 thread", ("torch.cbrt", d, 1), ("numpy.cbrt", d, 1), mid, 1.0)
        for d in ("float32", "float64")
    ]
    rows += [
        Target(f"{d} vs {SLEEF_U10}, 1 thread", ("torch.cbrt", d, 1), (SLEEF_U10, d, 1), mid, 5.0)
        for d in ("float32", "float64")
    ]
    rows += [
        Target(f"{d} DEFAULT build vs the {SCALAR_LOOP}", (build_name("DEFAULT"), d, 1), (SCALAR_LOOP, d, 1), mid, 10.0)
        for d in ("float32", "float64")
    ]
    rows.append(Target("float32 vs torch.neg, 2 threads", ("torch.cbrt", "float32", 2),
                       ("torch.neg (bandwidth)", "float32", 2), large, 0.9))
    rows += [
        Target(f"{d} vs float32 elements/s, 1 thread", ("torch.cbrt", d, 1), ("torch.cbrt", "float32", 1), mid, 0.85)
        for d in ("float16", "bfloat16")
    ]
    # Below 2^20 elements a compiled call's fixed cost (guards, wrapper) outweighs the kernel: the throughput table
    # shows it; the target compares the kernels.
    large_mid = tuple(s for s in mid if s >= 1 << 20)
    rows += [
        Target(f"{COMPILED_CBRT} vs eager, {d}, 1 thread", (COMPILED_CBRT, d, 1), (EAGER_ALLOCATING, d, 1),
               large_mid, 0.9)
        for d in DTYPES
    ]
    rows.append(Target("float32 vs sign(x) * abs(x) ** (1/3), 1 thread", ("torch.cbrt", "float32", 1),
                       ("sign(x) * abs(x) ** (1/3)", "float32", 1), tuple(sizes), 15.0))
    return rows


def speedup(top: Measurement, bottom: Measurement) -> float:
    """top's elements/s over bottom's. Two kernels timed in the same interleaved rounds are compared round by round
    (median of the per-round ratios), so that a drift of the shared machine's speed between rounds cancels out."""
    paired = top.batch != "" and top.batch == bottom.batch
    if paired and len(top.round_seconds) == len(bottom.round_seconds) > 0:
        return statistics.median(b / t for t, b in zip(top.round_seconds, bottom.round_seconds, strict=True))
    return top.gelem_per_s / bottom.gelem_per_s


def ratio(results: list[Measurement], target: Target, size: int) -> float | None:
    top = lookup(results, target.numerator[0], target.numerator[1], size, target.numerator[2])
    bottom = lookup(results, target.denominator[0], target.denominator[1], size, target.denominator[2])
    return None if top is None or bottom is None else speedup(top, bottom)


# Numerators that write into a preallocated output, like the copy: only they have a bandwidth ceiling to compare.
OUT_KERNELS = ("torch.cbrt", "torch.cbrt (AVX2 build)", "torch.cbrt (DEFAULT build)")


def ceiling(results: list[Measurement], target: Target, size: int) -> float | None:
    """The ratio a kernel would reach at the copy's speed: no kernel that reads and writes its tensors once
    can beat it, so a target above it cannot be met on this machine at this size."""
    if target.numerator[0] not in OUT_KERNELS:
        return None
    return ratio(results, replace(target, numerator=(COPY, *target.numerator[1:])), size)


def target_rows(results: list[Measurement], sizes: list[int]) -> list[str]:
    rows = ["| target | sizes | worst ratio | required | met | bandwidth ceiling at the worst size |",
            "|---|---|---|---|---|---|"]
    for target in targets(sizes):
        measured = {s: r for s in target.sizes if (r := ratio(results, target, s)) is not None}
        if not measured:
            rows.append(f"| {target.description} | - | not measured | {target.minimum} | - | - |")
            continue
        worst_size = min(measured, key=measured.__getitem__)
        worst = measured[worst_size]
        bound = ceiling(results, target, worst_size)
        bound_text = "-" if bound is None else f"{bound:.2f}x"
        if bound is not None and bound < target.minimum:
            bound_text += " (target beyond it)"
        shown = ", ".join(f"2^{s.bit_length() - 1}" for s in target.sizes)
        met = "yes" if worst >= target.minimum else "NO"
        rows.append(f"| {target.description} | {shown} | {worst:.2f}x at 2^{worst_size.bit_length() - 1} | "
                    f"{target.minimum}x | {met} | {bound_text} |")
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


def compiler_version() -> str:
    result = subprocess.run(["cc", "--version"], capture_output=True, text=True)
    return result.stdout.splitlines()[0] if result.returncode == 0 and result.stdout else "unknown"


def machine_lines() -> list[str]:
    cpu = cpu_model()
    return [
        f"- machine: {cpu}, {os.cpu_count()} logical CPUs, {torch.get_num_threads()} torch threads, "
        f"{platform.system()} {platform.release()}",
        f"- torch {torch.__version__} (CPU capability picked: {torch.backends.cpu.get_cpu_capability()}; the other "
        f"builds run with ATEN_CPU_CAPABILITY), numpy {np.__version__}, Python {platform.python_version()}",
        f"- Sleef: the entry points exported by that torch's libtorch_cpu, called from a shim built with {compiler_version()}",
        f"- date: {time.strftime('%Y-%m-%d')}",
    ]


def spread(values: list[float]) -> str:
    return f"{min(values):.2f}x" if len(set(values)) == 1 else f"{min(values):.2f}-{max(values):.2f}x"


def sleef_rows(results: list[Measurement], sizes: list[int]) -> list[str]:
    """Why not Sleef: each of its cube roots against torch.cbrt and numpy.cbrt, 1 thread, 2^16..2^24."""
    mid = [s for s in sizes if 1 << 16 <= s <= 1 << 24]
    rows = ["| dtype | Sleef entry point | Gelem/s | torch.cbrt ÷ Sleef | numpy.cbrt ÷ Sleef |", "|---|---|---|---|---|"]
    for name in dict.fromkeys(m.kernel for m in results if m.kernel.startswith("Sleef ")):
        for dtype in ("float32", "float64"):
            sleef = [m for s in mid if (m := lookup(results, name, dtype, s, 1))]
            if not sleef:
                continue
            versus = {other: [o.gelem_per_s / m.gelem_per_s for m in sleef if (o := lookup(results, other, dtype, m.size, 1))]
                      for other in ("torch.cbrt", "numpy.cbrt")}
            shown = {other: spread(r) if r else "-" for other, r in versus.items()}
            rows.append(f"| {dtype} | {name} | {spread([m.gelem_per_s for m in sleef]).removesuffix('x')} | "
                        f"{shown['torch.cbrt']} | {shown['numpy.cbrt']} |")
    return rows


def build_rows(results: list[Measurement]) -> list[str]:
    """torch.cbrt of each CPU capability build, and the scalar loop the DEFAULT build replaced, 1 thread."""
    names = ["torch.cbrt", *dict.fromkeys(m.kernel for m in results if m.kernel.endswith(" build)")), SCALAR_LOOP]
    headers = ["torch.cbrt (picked build)" if n == "torch.cbrt" else n for n in names]
    rows = ["| dtype | size | " + " | ".join(headers) + " |", "|---|---|" + "---|" * len(names)]
    keys = dict.fromkeys((m.dtype, m.size) for m in results if m.kernel in names[1:] and m.threads == 1)
    for dtype, size in keys:
        cells = [lookup(results, n, dtype, size, 1) for n in names]
        shown = [f"{c.gelem_per_s:.3f}" if c else "-" for c in cells]
        rows.append(f"| {dtype} | 2^{size.bit_length() - 1} | " + " | ".join(shown) + " |")
    return rows


def write_report(results: list[Measurement], sizes: list[int], command: str, plot: Path | None) -> str:
    lines = ["# Benchmarks", "", f"Made by `{command}`; every figure below comes from that one run.", ""]
    lines += machine_lines() + [f"- {OUTPUT_NOTE}", "", "## Targets (ratios measured side by side in the same run)", ""]
    lines += [TARGETS_NOTE, ""] + target_rows(results, sizes)
    lines += ["", "## Why not Sleef", "", SLEEF_NOTE, ""] + sleef_rows(results, sizes)
    lines += ["", "## CPU capability builds (Gelem/s, 1 thread)", "", BUILDS_NOTE, ""] + build_rows(results)
    lines += ["", "## Throughput (Gelem/s, median over the merged rounds of torch.utils.benchmark's blocked_autorange)", ""]
    lines += throughput_rows(results)
    if plot is not None:
        lines += ["", f"![throughput against size]({plot.name})"]
    return "\n".join(lines) + "\n"


TARGETS_NOTE = ("Two kernels timed in the same interleaved rounds are compared round by round: a ratio is the median "
                "of the per-round ratios. The bandwidth ceiling is the copy's ratio to the same denominator at the "
                "worst size: a kernel that reads its input and writes its output once cannot beat it, so a target "
                "above it cannot be met at that size on this machine.")
SLEEF_NOTE = ("PyTorch's vectorized math mostly comes from Sleef, linked into libtorch_cpu, which exports vector cube "
              "roots within 1.0 ULP (u10) and 3.5 ULP (u35). The table runs them on the same inputs as the other "
              "kernels, 1 thread, 2^16 to 2^24 elements (ranges over those sizes).")
BUILDS_NOTE = ("Each build runs the same `Vectorized<T>::cbrt()`; the scalar loop is the element-by-element path "
               "(C's cbrt and a Newton step) that the DEFAULT build ran before it.")


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
    parser.add_argument("--output", type=Path, default=BENCHMARKS)
    parser.add_argument("--child-build", choices=list(OTHER_BUILDS), help=argparse.SUPPRESS)
    parser.add_argument("--exponents", type=int, nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_build:
        if torch.backends.cpu.get_cpu_capability() != args.child_build:
            raise SystemExit(f"error: ATEN_CPU_CAPABILITY did not select the {args.child_build} build")
        table = capability_table(args.child_build)
        measured = measure_all(table, args.dtypes, [1 << e for e in args.exponents], [1], args.min_run_time, args.rounds)
        print(json.dumps([m.__dict__ for m in measured]))
        return
    sizes = [1 << e for e in range(args.min_exp, args.max_exp + 1, args.step)]
    args.output.parent.mkdir(parents=True, exist_ok=True)
    results = run_all(args.dtypes, sizes, args.threads, args.min_run_time, args.rounds, not args.no_compile)
    benchmark.Compare(RAW_MEASUREMENTS).print()
    plot = args.output.with_name("benchmarks.png")
    from scripts.measure.bench_plot import plot as draw_plot  # it imports this module

    draw_plot(results, plot)
    command = "python -m scripts.measure.bench " + " ".join(sys.argv[1:])
    args.output.write_text(carried_over(write_report(results, sizes, command.strip(), plot), args.output))
    print(f"bench: wrote {args.output} and {plot}")
    if args.output.resolve() == BENCHMARKS.resolve():
        update_performance()  # docs/cbrt.md quotes this report: its machine, date and figures
        print("bench: docs/cbrt.md's performance figures rewritten from it")


if __name__ == "__main__":
    main()

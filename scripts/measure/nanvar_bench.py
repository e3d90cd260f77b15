"""`make bench` (the nanvar stack's part): torch.nanvar against numpy.nanvar, the torch recipe and torch.var.

All run side by side in one process on the same data (a fifth of it NaN), a reduction over every element, and each
row gives ratios measured in that run: how many times faster torch.nanvar is than numpy.nanvar (ddof=1), than the
recipe torch users write without it (nanmean, where, sum, in torch) and than torch.var on the same data without its
NaNs (torch.nanvar on that NaN-free data), all on one thread, and how much faster it runs on two threads than on
one, beside torch.sum's gain on the same data. Writes docs/NANVAR_BENCHMARKS.md. With --device cuda
(scripts/gpu/check.sh), the same on the GPU without numpy and without the thread counts.
"""

from __future__ import annotations

import argparse
import platform
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from scripts.layout import REPO_ROOT
from scripts.measure.machine import cpu_model
from scripts.measure.timing import ratio, seconds

OUTPUT = REPO_ROOT / "docs" / "NANVAR_BENCHMARKS.md"
DTYPES = {"float32": torch.float32, "float64": torch.float64}
DEFAULT_SIZES = [20, 24]
TARGET_SIZE = 1 << 24
TARGET_NUMPY = 3.0
TARGET_RECIPE = 2.0
TARGET_VAR = 0.7


@dataclass(frozen=True)
class Row:
    dtype: str
    size: int
    nanvar_s: float
    recipe_s: float
    var_s: float  # torch.var on the data without NaNs
    nanvar_clean_s: float  # torch.nanvar on the same NaN-free data
    # None on a GPU, where numpy does not run and torch's thread count does not apply
    numpy_s: float | None
    two_threads_s: float | None  # torch.nanvar on two threads
    sum_s: float | None  # torch.sum of the same data, one thread: the machine's own scaling, for comparison
    sum_two_threads_s: float | None

    @property
    def vs_numpy(self) -> float | None:
        return None if self.numpy_s is None else self.numpy_s / self.nanvar_s

    @property
    def vs_recipe(self) -> float:
        return self.recipe_s / self.nanvar_s

    @property
    def vs_var(self) -> float:
        return self.var_s / self.nanvar_clean_s

    @property
    def two_thread_speedup(self) -> float | None:
        return None if self.two_threads_s is None else self.nanvar_s / self.two_threads_s

    @property
    def sum_two_thread_speedup(self) -> float | None:
        if self.sum_s is None or self.sum_two_threads_s is None:
            return None
        return self.sum_s / self.sum_two_threads_s


def data(dtype: torch.dtype, size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Normal values, and the same with a fifth of them NaN."""
    generator = torch.Generator().manual_seed(size)
    clean = torch.randn(size, generator=generator, dtype=torch.float64).to(dtype)
    with_nans = clean.clone()
    with_nans[torch.rand(size, generator=generator) < 0.2] = float("nan")
    return clean, with_nans


def recipe(values: torch.Tensor) -> torch.Tensor:
    """The variance of the non-NaN elements (correction 1) as torch code writes it without torch.nanvar."""
    kept = ~values.isnan()
    deviations = torch.where(kept, values - values.nanmean(), 0)
    return (deviations * deviations).sum() / (kept.sum() - 1)


def measure(dtype: str, size: int, min_run_time: float, device: str = "cpu") -> Row:
    clean, values = (tensor.to(device) for tensor in data(DTYPES[dtype], size))
    on_cpu: dict[str, float | None] = dict.fromkeys(("numpy_s", "two_threads_s", "sum_s", "sum_two_threads_s"))
    if device == "cpu":
        as_numpy = values.numpy()
        on_cpu = {
            "numpy_s": seconds(lambda: np.nanvar(as_numpy, ddof=1), min_run_time),
            "two_threads_s": seconds(lambda: torch.nanvar(values), min_run_time, threads=2),
            "sum_s": seconds(lambda: torch.sum(values), min_run_time),
            "sum_two_threads_s": seconds(lambda: torch.sum(values), min_run_time, threads=2),
        }
    return Row(
        dtype,
        size,
        nanvar_s=seconds(lambda: torch.nanvar(values), min_run_time),
        recipe_s=seconds(lambda: recipe(values), min_run_time),
        var_s=seconds(lambda: torch.var(clean), min_run_time),
        nanvar_clean_s=seconds(lambda: torch.nanvar(clean), min_run_time),
        **on_cpu,
    )


def verdict(row: Row) -> str:
    """The targets at 2^24 elements: ≥ 3x numpy.nanvar, ≥ 2x the recipe, ≥ 0.7x torch.var."""
    if row.size != TARGET_SIZE:
        return ""
    checks = (("numpy", row.vs_numpy, TARGET_NUMPY), ("recipe", row.vs_recipe, TARGET_RECIPE),
              ("torch.var", row.vs_var, TARGET_VAR))
    return ", ".join(f"{name}: {'met' if value >= target else 'MISSED'}"
                     for name, value, target in checks if value is not None)


def report(rows: list[Row], command: str, device: str = "cpu") -> str:
    machine = torch.cuda.get_device_name() if device == "cuda" else f"{cpu_model()}, {platform.machine()}"
    lines = [
        "# torch.nanvar: measured side by side",
        "",
        f"Generated by `{command}`. Machine: {machine}; torch {torch.__version__}, "
        f"numpy {np.__version__}; median of `torch.utils.benchmark` runs, a reduction over every element.",
        "",
        "Ratios are speeds relative to `torch.nanvar` in the same run (above 1: nanvar is faster), on one thread:",
        "numpy.nanvar (ddof=1) and the recipe (nanmean, where, sum) on data a fifth of it NaN, torch.var against",
        "torch.nanvar on the same data without NaNs. The last columns are nanvar's speed on two threads over its",
        "speed on one, and torch.sum's on the same data: how much the machine itself gains from a second thread.",
        "Targets at 2^24 elements: at least 3x numpy.nanvar, 2x the recipe and 0.7x torch.var.",
        "",
        "| dtype | elements | nanvar ns/element | vs numpy.nanvar | vs recipe | vs torch.var (no NaN) "
        "| 2 threads over 1 | torch.sum: 2 threads over 1 | targets |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row.dtype} | 2^{row.size.bit_length() - 1} | {row.nanvar_s / row.size * 1e9:.2f} "
            f"| {ratio(row.vs_numpy)} | {row.vs_recipe:.2f}x | {row.vs_var:.2f}x | {ratio(row.two_thread_speedup)} "
            f"| {ratio(row.sum_two_thread_speedup)} | {verdict(row)} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=DEFAULT_SIZES, help="log2 of the element counts")
    parser.add_argument("--dtypes", nargs="+", default=list(DTYPES), choices=list(DTYPES))
    parser.add_argument("--min-run-time", type=float, default=0.5)
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"),
                        help="cuda: on the GPU, without numpy and the thread counts")
    args = parser.parse_args()
    rows = [measure(dtype, 1 << log2, args.min_run_time, args.device) for dtype in args.dtypes for log2 in args.sizes]
    command = "python -m scripts.measure.nanvar_bench" + (
        "" if args.sizes == DEFAULT_SIZES else " --sizes " + " ".join(map(str, args.sizes))) + (
        "" if args.device == "cpu" else f" --device {args.device}")
    text = report(rows, command, args.device)
    args.output.write_text(text)
    print(text)


if __name__ == "__main__":
    main()

"""The bench's plot: every kernel's throughput, and the ratios the targets are about, from one run's measurements.

`python -m scripts.measure.bench_plot` redraws docs/benchmarks.png from the throughput table of docs/BENCHMARKS.md,
so the plot always shows the committed run; `make bench` draws it from the run it has just made.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from scripts.layout import REPO_ROOT
from scripts.measure.bench import Measurement, lookup

if TYPE_CHECKING:  # matplotlib is imported when a plot is drawn, not with the bench
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

REPORT = REPO_ROOT / "docs" / "BENCHMARKS.md"
# 20 colours and 20 markers: kernel i gets colour i and marker i, so no two series share both.
COLORS = [f"tab:{c}" for c in ("blue", "orange", "green", "red", "purple", "brown", "pink", "gray", "olive", "cyan")]
COLORS += ["navy", "gold", "lime", "maroon", "magenta", "black", "teal", "coral", "indigo", "darkkhaki"]
MARKERS = ["o", "s", "^", "v", "D", "P", "X", "*", "<", ">", "h", "p", "d", "8", "H", "1", "2", "3", "4", "+"]
DTYPES = ("float32", "float64", "float16", "bfloat16")


def measurements_from_report(text: str) -> list[Measurement]:
    """The measurements of a report's throughput table (Gelem/s per kernel, dtype, size and thread count)."""
    lines = text[text.index("## Throughput") :].splitlines()
    header = next(line for line in lines if line.startswith("| dtype | size | threads |"))
    kernels = [cell.strip() for cell in header.strip("|").split("|")[3:]]
    results = []
    for line in lines[lines.index(header) + 2 :]:
        if not line.startswith("|"):
            break
        dtype, size, threads, *cells = (cell.strip() for cell in line.strip("|").split("|"))
        elements = 1 << int(re.fullmatch(r"2\^(\d+)", size).group(1))
        for kernel, cell in zip(kernels, cells, strict=True):
            if cell != "-":
                results.append(Measurement(kernel, dtype, elements, int(threads), elements / (float(cell) * 1e9)))
    return results


def style(index: int) -> dict[str, str]:
    return {"color": COLORS[index % len(COLORS)], "marker": MARKERS[index % len(MARKERS)]}


def series(results: Iterable[Measurement], kernel: str, dtype: str, threads: int) -> list[tuple[int, float]]:
    return sorted((m.size, m.gelem_per_s) for m in results if (m.kernel, m.dtype, m.threads) == (kernel, dtype, threads))


def ratio_series(results: list[Measurement], top: str, bottom: str, dtype: str, threads: int) -> list[tuple[int, float]]:
    points = []
    for size, _ in series(results, top, dtype, threads):
        above, below = lookup(results, top, dtype, size, threads), lookup(results, bottom, dtype, size, threads)
        if above and below:
            points.append((size, above.gelem_per_s / below.gelem_per_s))
    return points


def draw_throughput(axis: Axes, results: list[Measurement], kernels: list[str], threads: int) -> None:
    for index, kernel in enumerate(kernels):
        points = series(results, kernel, "float32", threads)
        if points:
            dashes = "--" if "bandwidth" in kernel else "-"
            axis.plot(*zip(*points, strict=True), dashes, label=kernel, markersize=5, **style(index))
    axis.set(xscale="log", yscale="log", xlabel="elements", ylabel="Gelem/s",
             title=f"float32 throughput, {threads} thread(s); dashed: bandwidth")


def draw_ratios(axis: Axes, results: list[Measurement], bottom: str, title: str) -> None:
    """torch.cbrt ÷ `bottom` per dtype (solid), and the copy ÷ `bottom` (dotted): the ceiling of any kernel."""
    from matplotlib.ticker import ScalarFormatter

    for index, dtype in enumerate(DTYPES):
        for kernel, dashes, what in (("torch.cbrt", "-", "torch.cbrt"), ("copy (bandwidth)", ":", "copy")):
            points = ratio_series(results, kernel, bottom, dtype, 1)
            if points:
                axis.plot(*zip(*points, strict=True), dashes, label=f"{dtype}: {what}", markersize=5, **style(index))
    axis.axhline(1.0, color="black", linewidth=0.8)
    axis.set(xscale="log", yscale="log", xlabel="elements", ylabel=f"÷ {bottom}", title=title)
    axis.yaxis.set_major_formatter(ScalarFormatter())
    axis.yaxis.set_minor_formatter(ScalarFormatter())


def legend_entries(axes: Iterable[Axes]) -> dict[str, object]:
    """One legend entry per label over several panels, in the order they were drawn."""
    return {label: handle for axis in axes for handle, label in zip(*axis.get_legend_handles_labels(), strict=True)}


def figure_of(results: list[Measurement]) -> Figure:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(2, 2, figsize=(14, 9))
    kernels = list(dict.fromkeys(m.kernel for m in results))
    draw_throughput(axes[0][0], results, kernels, 1)
    draw_throughput(axes[0][1], results, kernels, 2)
    draw_ratios(axes[1][0], results, "numpy.cbrt", "÷ numpy.cbrt, 1 thread (ratio of medians); dotted: copy's ceiling")
    draw_ratios(axes[1][1], results, "torch.neg (bandwidth)", "÷ torch.neg, 1 thread; dotted: copy")
    for axis in axes.flat:
        axis.grid(True, which="both", alpha=0.3)
    kernels_legend = legend_entries(axes[0])
    figure.legend(kernels_legend.values(), kernels_legend.keys(), loc="upper left", bbox_to_anchor=(1.0, 0.98),
                  fontsize=8, title="kernels (top panels)")
    dtypes_legend = legend_entries(axes[1])
    figure.legend(dtypes_legend.values(), dtypes_legend.keys(), loc="lower left", bbox_to_anchor=(1.0, 0.02),
                  fontsize=8, title="dtypes (bottom panels)")
    figure.tight_layout()
    return figure


def plot(results: list[Measurement], path: Path) -> None:
    import matplotlib.pyplot as plt

    figure = figure_of(results)
    figure.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(figure)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--report", type=Path, default=REPORT)
    parser.add_argument("--output", type=Path, default=REPORT.with_name("benchmarks.png"))
    args = parser.parse_args()
    plot(measurements_from_report(args.report.read_text()), args.output)
    print(f"bench_plot: wrote {args.output}")


if __name__ == "__main__":
    main()

"""The bench plot: every series tells itself apart, the legends stay off the data, and the committed plot's data is
the committed report's table."""

from __future__ import annotations

import itertools

import matplotlib.pyplot as plt
import pytest

from scripts.measure.bench import Measurement, throughput_rows
from scripts.measure.bench_plot import REPORT, figure_of, measurements_from_report

KERNELS = ["torch.cbrt", "numpy.cbrt", "torch.neg (bandwidth)", "copy (bandwidth)", "torch.compile(torch.cbrt)",
           *(f"kernel {i}" for i in range(15))]


def synthetic_run() -> list[Measurement]:
    sizes = [1 << e for e in range(10, 27, 2)]
    return [Measurement(kernel, dtype, size, threads, size / ((k + 1) * 1e8 * (1 + threads)))
            for k, kernel in enumerate(KERNELS) for dtype in ("float32", "float64", "float16", "bfloat16")
            for size in sizes for threads in (1, 2)]


@pytest.fixture
def figure():
    figure = figure_of(synthetic_run())
    figure.canvas.draw()
    yield figure
    plt.close(figure)


def test_no_two_series_of_a_panel_share_colour_marker_and_line_style(figure) -> None:
    for axis in figure.axes:
        styles = [(line.get_color(), line.get_marker(), line.get_linestyle()) for line in axis.get_lines()
                  if not line.get_label().startswith("_")]
        assert len(styles) == len(set(styles)), axis.get_title()


def test_every_kernel_has_its_own_colour_and_marker_across_the_throughput_panels(figure) -> None:
    styles = {line.get_label(): (line.get_color(), line.get_marker()) for axis in figure.axes[:2]
              for line in axis.get_lines()}
    assert set(styles) == set(KERNELS) and len(set(styles.values())) == len(KERNELS)


def test_legends_lie_outside_every_panel(figure) -> None:
    renderer = figure.canvas.get_renderer()
    assert len(figure.legends) == 2
    for legend, axis in itertools.product(figure.legends, figure.axes):
        assert not legend.get_window_extent(renderer).overlaps(axis.get_window_extent(renderer)), axis.get_title()


def test_the_committed_reports_throughput_table_is_what_the_plot_reads() -> None:
    text = REPORT.read_text()
    table = text[text.index("| dtype | size | threads |") :].split("\n\n")[0].strip().splitlines()
    assert throughput_rows(measurements_from_report(text)) == table

"""scripts/measure/interp_bench.py: its baseline computes what numpy.interp computes, and its verdicts apply the
targets the report states (no timing is asserted)."""

from __future__ import annotations

import numpy as np
import torch

from scripts.measure.interp_bench import Row, measure, operands, recipe, report, verdict
from scripts.measure.timing import seconds


def row(order: str, queries: int, vs_numpy: float, vs_recipe: float) -> Row:
    return Row("float64", queries, 1 << 10, order, 1, interp_s=1.0, numpy_s=vs_numpy, recipe_s=vs_recipe, copy_s=0.5)


def test_the_recipe_is_numpy_interp_on_the_benchmarks_inputs_inside_and_outside_the_sample_points() -> None:
    for order in ("random", "sorted"):
        x, xp, fp = operands(torch.float64, 1 << 12, 1 << 4, order)
        x = torch.cat([x, torch.tensor([-1.0, 2.0], dtype=torch.float64)])
        expected = torch.from_numpy(np.interp(x.numpy(), xp.numpy(), fp.numpy()))
        torch.testing.assert_close(recipe(x, xp, fp), expected, rtol=1e-12, atol=1e-12)


def test_sorted_queries_at_2_20_need_twice_numpys_speed_and_elsewhere_its_speed() -> None:
    assert verdict(row("sorted", 1 << 20, 1.5, 3.0)) == "numpy 2x: MISSED, recipe 2x: met"
    assert verdict(row("sorted", 1 << 24, 1.5, 3.0)) == "numpy 1x: met, recipe 2x: met"
    assert verdict(row("random", 1 << 20, 1.0, 1.9)) == "numpy 1x: met, recipe 2x: MISSED"


def test_a_measured_row_reports_speeds_relative_to_interp_in_one_run() -> None:
    measured = measure("float32", 1 << 10, 1 << 4, "sorted", 1, min_run_time=0.01)
    assert measured.interp_s > 0 and measured.numpy_s > 0 and measured.recipe_s > 0 and measured.copy_s > 0
    text = report([measured], "python -m scripts.measure.interp_bench --queries 10")
    table_row = text.splitlines()[-1]
    assert table_row.startswith("| float32 | 2^10 | 2^4 | sorted | 1 | ")
    assert f"| {measured.vs_numpy:.2f}x | {measured.vs_recipe:.2f}x |" in table_row


def test_each_timing_runs_at_the_rows_thread_count() -> None:
    # torch.utils.benchmark.Timer sets its own thread count (1 unless told) while it times
    seen: list[int] = []
    before = torch.get_num_threads()
    seconds(lambda: seen.append(torch.get_num_threads()), 0.01, 2)
    assert set(seen) == {2}
    seen.clear()
    seconds(lambda: seen.append(torch.get_num_threads()), 0.01, 1)
    assert set(seen) == {1}
    torch.set_num_threads(before)

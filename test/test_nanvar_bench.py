"""scripts/measure/nanvar_bench.py: its recipe computes what numpy.nanvar computes, each timing runs on the thread
count its column names, and its verdicts apply the targets the report states (no timing is asserted)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from scripts.measure import nanvar_bench
from scripts.measure.nanvar_bench import Row, data, recipe, report, verdict


def row(size: int, vs_numpy: float | None, vs_recipe: float, vs_var: float) -> Row:
    on_cpu = vs_numpy is not None
    return Row("float32", size, nanvar_s=1.0, recipe_s=vs_recipe, var_s=vs_var, nanvar_clean_s=1.0,
               numpy_s=vs_numpy, two_threads_s=0.5 if on_cpu else None, sum_s=1.0 if on_cpu else None,
               sum_two_threads_s=0.5 if on_cpu else None)


def test_the_recipe_is_numpy_nanvar_on_the_benchmarks_data() -> None:
    _, values = data(torch.float64, 1 << 12)
    assert values.isnan().any()
    expected = np.nanvar(values.numpy(), ddof=1)
    torch.testing.assert_close(recipe(values), torch.tensor(expected, dtype=torch.float64), rtol=1e-12, atol=0)


def test_the_two_thread_columns_time_two_threads_and_the_others_one(monkeypatch: pytest.MonkeyPatch) -> None:
    # torch.utils.benchmark.Timer sets its own thread count while it times: a set_num_threads before it is undone
    seen: dict[str, set[int]] = {"nanvar": set(), "sum": set()}
    for name in seen:
        original = getattr(torch, name)

        def recording(*args, _original=original, _name=name, **kwargs):
            seen[_name].add(torch.get_num_threads())
            return _original(*args, **kwargs)

        monkeypatch.setattr(torch, name, recording)
    measured = nanvar_bench.measure("float32", 1 << 10, min_run_time=0.01)
    assert seen == {"nanvar": {1, 2}, "sum": {1, 2}}
    assert measured.two_threads_s is not None and measured.sum_two_threads_s is not None


def test_the_targets_apply_at_2_24_and_a_gpu_row_has_no_numpy_or_thread_ratios() -> None:
    assert verdict(row(1 << 24, 3.0, 2.0, 0.7)) == "numpy: met, recipe: met, torch.var: met"
    assert verdict(row(1 << 24, 2.9, 1.9, 0.69)) == "numpy: MISSED, recipe: MISSED, torch.var: MISSED"
    assert verdict(row(1 << 20, 1.0, 1.0, 0.1)) == ""
    assert verdict(row(1 << 24, None, 2.0, 0.7)) == "recipe: met, torch.var: met"
    table_row = report([row(1 << 24, None, 2.0, 0.7)], "command").splitlines()[-1]
    assert table_row == ("| float32 | 2^24 | 59.60 | not measured | 2.00x | 0.70x | not measured | not measured "
                         "| recipe: met, torch.var: met |")

"""`make bench`'s report: which targets a run met, from ratios of its own measurements (no timing here)."""

from __future__ import annotations

from scripts.bench import Measurement, target_rows, throughput_rows

SIZES = [1 << 16, 1 << 24]


def run_where(torch_seconds: float, numpy_seconds: float) -> list[Measurement]:
    measured = []
    for size in SIZES:
        measured.append(Measurement("torch.cbrt", "float32", size, 1, torch_seconds * size))
        measured.append(Measurement("numpy.cbrt", "float32", size, 1, numpy_seconds * size))
    return measured


def numpy_row(rows: list[str]) -> str:
    return next(r for r in rows if r.startswith("| float32 vs numpy.cbrt"))


def test_a_target_is_met_when_the_worst_ratio_reaches_it() -> None:
    row = numpy_row(target_rows(run_where(torch_seconds=1.0, numpy_seconds=1.25), SIZES))
    assert row.endswith("| 1.25x | 1.0x | yes |"), row


def test_a_target_below_its_minimum_says_no() -> None:
    row = numpy_row(target_rows(run_where(torch_seconds=1.0, numpy_seconds=0.8), SIZES))
    assert row.endswith("| 0.80x | 1.0x | NO |"), row


def test_a_target_without_measurements_says_so() -> None:
    rows = target_rows(run_where(torch_seconds=1.0, numpy_seconds=1.0), SIZES)
    row = next(r for r in rows if r.startswith("| bfloat16 vs float32"))
    assert "not measured" in row


def test_throughput_is_reported_in_gelem_per_second() -> None:
    rows = throughput_rows([Measurement("torch.cbrt", "float32", 1 << 20, 2, (1 << 20) / 4e9)])
    assert rows[-1] == "| float32 | 2^20 | 2 | 4.000 |"

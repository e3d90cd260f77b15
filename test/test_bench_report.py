"""`make bench`'s report: which targets a run met, from ratios of its own measurements (no timing here)."""

from __future__ import annotations

from scripts.measure.bench import (
    COMPILED_CBRT,
    EAGER_ALLOCATING,
    Candidate,
    Measurement,
    build_rows,
    sleef_rows,
    target_rows,
    throughput_rows,
)
from scripts.measure.bench_baselines import SCALAR_LOOP

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
    assert row.endswith("| 1.25x at 2^16 | 1.0x | yes | - |"), row


def test_a_target_below_its_minimum_says_no() -> None:
    row = numpy_row(target_rows(run_where(torch_seconds=1.0, numpy_seconds=0.8), SIZES))
    assert row.endswith("| 0.80x at 2^16 | 1.0x | NO | - |"), row


def test_a_target_without_measurements_says_so() -> None:
    rows = target_rows(run_where(torch_seconds=1.0, numpy_seconds=1.0), SIZES)
    row = next(r for r in rows if r.startswith("| bfloat16 vs float32"))
    assert "not measured" in row


def test_throughput_is_reported_in_gelem_per_second() -> None:
    rows = throughput_rows([Measurement("torch.cbrt", "float32", 1 << 20, 2, (1 << 20) / 4e9)])
    assert rows[-1] == "| float32 | 2^20 | 2 | 4.000 |"


def measured(kernel: str, dtype: str, gelem_per_s: float, size: int = 1 << 16, threads: int = 1) -> Measurement:
    return Measurement(kernel, dtype, size, threads, size / gelem_per_s / 1e9)


def test_why_not_sleef_gives_each_entry_point_against_torch_and_numpy() -> None:
    run = [measured("torch.cbrt", "float32", 3.0), measured("numpy.cbrt", "float32", 1.5),
           measured("Sleef u10 (AVX-512)", "float32", 0.5), measured("Sleef u10 (AVX-512)", "float32", 0.25, 1 << 18),
           measured("torch.cbrt", "float32", 2.0, 1 << 18)]
    rows = sleef_rows(run, SIZES + [1 << 18])
    assert rows[2:] == ["| float32 | Sleef u10 (AVX-512) | 0.25-0.50 | 6.00-8.00x | 3.00x |"], rows


def test_sleef_and_the_other_builds_have_their_targets() -> None:
    run = [measured("torch.cbrt", "float64", 2.0), measured("Sleef u10 (AVX-512)", "float64", 0.5),
           measured("torch.cbrt (DEFAULT build)", "float64", 0.5), measured(SCALAR_LOOP, "float64", 0.1)]
    rows = target_rows(run, SIZES)
    sleef = next(r for r in rows if r.startswith("| float64 vs Sleef u10 (AVX-512)"))
    default = next(r for r in rows if r.startswith("| float64 DEFAULT build"))
    assert sleef.endswith("| 4.00x at 2^16 | 5.0x | NO | - |"), rows
    assert default.endswith("| 5.00x at 2^16 | 10.0x | NO | - |"), rows


def test_the_compiled_kernel_is_compared_with_eager_allocating_its_result_too_from_2_20_elements() -> None:
    run = [measured(COMPILED_CBRT, "bfloat16", 1.9, 1 << 20), measured(EAGER_ALLOCATING, "bfloat16", 2.0, 1 << 20),
           measured(COMPILED_CBRT, "bfloat16", 0.5), measured(EAGER_ALLOCATING, "bfloat16", 2.0)]
    row = next(r for r in target_rows(run, [1 << 16, 1 << 20]) if r.startswith(f"| {COMPILED_CBRT} vs eager, bfloat16"))
    assert row.endswith("| 2^20 | 0.95x at 2^20 | 0.9x | yes | - |"), row


def test_every_build_is_reported_beside_the_picked_one() -> None:
    run = [measured("torch.cbrt", "float32", 3.0), measured("torch.cbrt (AVX2 build)", "float32", 2.0),
           measured("torch.cbrt (DEFAULT build)", "float32", 1.0), measured(SCALAR_LOOP, "float32", 0.05)]
    rows = build_rows(run)
    assert rows[0] == ("| dtype | size | torch.cbrt (picked build) | torch.cbrt (AVX2 build) | torch.cbrt (DEFAULT build) "
                       f"| {SCALAR_LOOP} |")
    assert rows[2] == "| float32 | 2^16 | 3.000 | 2.000 | 1.000 | 0.050 |"


def test_single_thread_loops_are_not_measured_on_two_threads() -> None:
    sleef = Candidate(lambda x, out: None, ("float32",), single_thread=True)
    assert [sleef.applies(d, t) for d, t in (("float32", 1), ("float32", 2), ("float64", 1))] == [True, False, False]


def rounds(kernel: str, seconds: tuple[float, ...], batch: str = "one run") -> Measurement:
    return Measurement(kernel, "float32", 1 << 24, 1, sorted(seconds)[len(seconds) // 2], seconds, batch)


def test_kernels_timed_in_the_same_rounds_are_compared_round_by_round() -> None:
    # The machine is slow while numpy runs in the second round and during all of the third: the per-kernel medians
    # (1.0 s against 2.2 s) would take that for a 2.2x lead, the per-round ratios (1.1, 2.2, 1.1) do not.
    run = [rounds("torch.cbrt", (1.0, 1.0, 2.0)), rounds("numpy.cbrt", (1.1, 2.2, 2.2))]
    assert numpy_row(target_rows(run, [1 << 24])).startswith("| float32 vs numpy.cbrt, 1 thread | 2^24 | 1.10x at 2^24 |")


def test_kernels_from_different_runs_are_compared_by_their_medians() -> None:
    run = [rounds("torch.cbrt", (1.0, 1.0, 10.0), "run a"), rounds("numpy.cbrt", (1.0, 1.5, 11.0), "run b")]
    assert numpy_row(target_rows(run, [1 << 24])).startswith("| float32 vs numpy.cbrt, 1 thread | 2^24 | 1.50x at 2^24 |")


def test_a_target_beyond_what_the_copy_reaches_is_flagged() -> None:
    run = [rounds("torch.cbrt", (1.0,)), rounds("Sleef u10 (AVX-512)", (2.0,)), rounds("copy (bandwidth)", (0.8,))]
    row = next(r for r in target_rows(run, [1 << 24]) if r.startswith("| float32 vs Sleef u10"))
    assert row.endswith("| 2.00x at 2^24 | 5.0x | NO | 2.50x (target beyond it) |"), row

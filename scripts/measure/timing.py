"""What the benchmark scripts share: the time of one call, and how a ratio is printed."""

from __future__ import annotations

from collections.abc import Callable

import torch.utils.benchmark as benchmark


def seconds(run: Callable[[], object], min_run_time: float, threads: int = 1) -> float:
    """The median time of run() over torch.utils.benchmark's blocked runs, on `threads` threads.

    Timer sets torch's thread count itself while it times (its num_threads, 1 unless given): a count set with
    torch.set_num_threads before the call does not reach the timed runs, so the count is passed here.
    """
    timer = benchmark.Timer("run()", globals={"run": run}, num_threads=threads)
    return timer.blocked_autorange(min_run_time=min_run_time).median


def times_faster(baseline_s: float | None, candidate_s: float | None) -> float | None:
    """How many times faster the candidate ran than the baseline: None where either was not measured (numpy on a
    GPU, a thread count there)."""
    return None if baseline_s is None or candidate_s is None else baseline_s / candidate_s


def ratio(value: float | None) -> str:
    return "not measured" if value is None else f"{value:.2f}x"

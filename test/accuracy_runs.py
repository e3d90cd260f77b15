"""The accuracy sweeps `make test` runs, once per session and dtype, shared by test_accuracy.py and test_readme.py."""

from __future__ import annotations

import functools
from concurrent.futures import Future, ThreadPoolExecutor

import pytest

from scripts.measure.accuracy import Report, run

# What `make test` sweeps for torch.cbrt, each input contiguous, strided and in every loop tail (docs/cbrt.md, "Accuracy").
SWEPT_DTYPES = ("float16", "bfloat16", "float32", "float64")
FLOAT64_COUNT = 2_000_000  # the first 2 * 10^6 of docs/cbrt.md's table's 10^8 random bit patterns


_background: dict[str, Future[Report]] = {}


def sweep(dtype: str) -> Report:
    (report,) = run([dtype], ("torch.cbrt",), workers=2, float64_count=FLOAT64_COUNT, limit=None)
    return report


def start_in_background(dtype: str) -> None:
    """Begin the sweep of `dtype` beside the tests that run before the ones that read it."""
    if dtype not in _background:
        _background[dtype] = ThreadPoolExecutor(1, thread_name_prefix=f"sweep-{dtype}").submit(sweep, dtype)


@functools.cache
def make_test_report(dtype: str) -> Report:
    return _background[dtype].result() if dtype in _background else sweep(dtype)


def swept(dtype: str, pytestconfig: pytest.Config) -> Report:
    """make_test_report(dtype), with the sweep's progress shown (the float32 sweep takes minutes)."""
    capture = pytestconfig.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        return make_test_report(dtype)

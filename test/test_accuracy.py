"""Exhaustive accuracy: every float32, float16 and bfloat16 input, and sampled float64, within the documented bounds."""

from __future__ import annotations

import pytest

from scripts.accuracy import run


@pytest.fixture(scope="module")
def reports(pytestconfig: pytest.Config) -> dict[str, object]:
    capture = pytestconfig.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():  # the float32 sweep takes minutes: show its progress
        found = run(["float16", "bfloat16", "float32", "float64"], ("torch.cbrt",), workers=2, float64_count=2_000_000, limit=None)
    return {r.dtype.removeprefix("torch."): r for r in found}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_every_checked_input_is_within_one_ulp(reports: dict, dtype: str) -> None:
    report = reports[dtype]
    assert report.over_one_ulp == 0 and report.max_ulp <= 1, report


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_every_half_and_bfloat16_input_is_correctly_rounded(reports: dict, dtype: str) -> None:
    assert reports[dtype].not_correctly_rounded == 0, reports[dtype]


# docs/CBRT_KERNEL.md: 0.5 ulp + 1/3 ulp (float32), 0.5 ulp + 2^-53 / 3 relative (float64).
DOCUMENTED_BOUND = {"float32": 0.75, "float64": 0.67}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_error_stays_within_the_documented_bound(reports: dict, dtype: str) -> None:
    assert reports[dtype].max_ulp <= DOCUMENTED_BOUND[dtype], reports[dtype]

"""Exhaustive accuracy: every float32, float16 and bfloat16 input, and 10^8 float64 inputs, within the documented
bounds, each contiguous, strided and in every loop-tail length; and the sweep's own bookkeeping, on planted bugs."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import numpy as np
import pytest
import torch
from accuracy_runs import SWEPT_DTYPES, swept

import scripts.measure.accuracy as accuracy

pytestmark = pytest.mark.slow  # make test-slow (see conftest.py's SLOW)

# Documented bounds (docs/cbrt.md "Accuracy", docs/CBRT_KERNEL.md): half and bfloat16 correctly rounded.
DOCUMENTED_MAX_ULP = {"float16": 0.5, "bfloat16": 0.5, "float32": 0.75, "float64": 0.67}


@pytest.mark.parametrize("dtype", SWEPT_DTYPES)
def test_every_checked_input_is_within_the_documented_bound_in_every_layout(pytestconfig: pytest.Config, dtype: str) -> None:
    report = swept(dtype, pytestconfig)
    assert report.over_one_ulp == 0 and report.max_ulp <= DOCUMENTED_MAX_ULP[dtype], report


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_every_half_and_bfloat16_input_is_correctly_rounded_in_every_layout(pytestconfig: pytest.Config, dtype: str) -> None:
    report = swept(dtype, pytestconfig)
    assert report.not_correctly_rounded == 0, report


# ---- the sweep's bookkeeping, in process, on its own exact reference with planted bugs ----------------------------------


@pytest.fixture
def planted(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Callable], None]]:
    """Sweep a candidate in torch.cbrt's place (so in every layout); the sweep's single-thread setting is undone after."""
    threads = torch.get_num_threads()
    yield lambda candidate: monkeypatch.setitem(accuracy.CANDIDATES, "torch.cbrt", candidate)
    torch.set_num_threads(threads)


def exact_cbrt(x: torch.Tensor) -> torch.Tensor:
    """The sweep's own correctly rounded reference, in any layout (float64: longdouble_cbrt rounded once)."""
    flat = x.flatten()
    if x.dtype == torch.float64:
        return torch.from_numpy(accuracy.longdouble_cbrt(flat.numpy()).astype(np.float64)).view(x.shape)
    return accuracy.round_reference(flat, x.dtype).view(x.shape)


def half_sweep() -> tuple[float, int, int]:
    return accuracy.sweep_chunk(torch.half, 0, 1 << 16, ("torch.cbrt",))[0]


def float64_sweep() -> tuple[float, int, int]:
    return accuracy.float64_chunk(accuracy.float64_inputs(10_000, seed=3), ("torch.cbrt",))[0]


def test_a_correct_candidate_scores_half_an_ulp(planted: Callable) -> None:
    planted(exact_cbrt)
    for max_ulp, wrong, over in (half_sweep(), float64_sweep()):
        assert max_ulp <= 0.5 and wrong == over == 0


@pytest.mark.parametrize("bad_value", [math.nan, math.inf, -math.inf])
def test_nan_or_inf_for_a_finite_cube_root_is_an_error_of_infinite_size(planted: Callable, bad_value: float) -> None:
    def wrong_above_two(x: torch.Tensor) -> torch.Tensor:
        y = exact_cbrt(x)
        return torch.where(x.double() > 2, bad_value, y).to(y.dtype)

    planted(wrong_above_two)
    max_ulp, wrong, over = half_sweep()
    assert max_ulp == math.inf and wrong == over > 0
    max_ulp, wrong, over = float64_sweep()
    assert max_ulp == math.inf and wrong == over > 0


def test_a_bug_only_on_strided_inputs_is_counted(planted: Callable) -> None:
    # Wrong only on 1-d strided views: the loop-tail rows (2-d) stay right, so only the strided layout can see it.
    planted(lambda x: -exact_cbrt(x) if x.dim() == 1 and not x.is_contiguous() else exact_cbrt(x))
    max_ulp, wrong, _ = half_sweep()
    assert max_ulp > 1 and wrong > 60_000


def test_a_bug_only_in_loop_tails_is_counted_for_every_tail_length(planted: Callable) -> None:
    seen_tails = set()

    def wrong_tail(x: torch.Tensor) -> torch.Tensor:
        y = exact_cbrt(x)
        if x.dim() == 2:
            tail = x.shape[1] % (2 * accuracy.WIDEST_VECTOR_BYTES // x.element_size())
            seen_tails.add(tail)
            if tail:
                y[:, -tail:] = -y[:, -tail:]
        return y

    planted(wrong_tail)
    _, wrong, _ = half_sweep()
    assert wrong > 30_000
    assert seen_tails == set(range(2 * accuracy.WIDEST_VECTOR_BYTES // 2)), sorted(seen_tails)


@pytest.mark.parametrize("dtype", [torch.half, torch.bfloat16, torch.float32, torch.float64], ids=str)
def test_layouts_feed_every_input_once_in_order(dtype: torch.dtype) -> None:
    x = torch.arange(5000, dtype=torch.int64).to(dtype)
    strided = accuracy.strided_view(x)
    rows = accuracy.tail_rows(x)
    assert not strided.is_contiguous() and torch.equal(strided, x)
    assert all(not r.is_contiguous() for r in rows if r.shape[0] > 1)
    assert torch.equal(torch.cat([r.flatten() for r in rows]), x)
    longest = 2 * accuracy.WIDEST_VECTOR_BYTES // x.element_size()
    assert {r.shape[1] for r in rows} >= set(range(1, longest + 1))

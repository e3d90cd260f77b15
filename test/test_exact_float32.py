"""The exact float32 scorer behind the exhaustive sweep and the identity digests, against independent references:
mpmath's cube root at 60 digits, and the bisection on cubes of midpoints the scorer's library also exposes."""

from __future__ import annotations

import math

import mpmath
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from scripts.measure import exact_float32

EDGES = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 8.0, -27.0, 2.0**-149, -(2.0**-149), 2.0**-126,
         2.0**-126 * (1 - 2.0**-23), 3.4028234663852886e38, -3.4028234663852886e38, 2.0**-148 * 3, 1e-30, 7.0, 0.1]


def floats(values: list[float]) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float32)


def neighbour(y: torch.Tensor, steps: int) -> torch.Tensor:
    """y moved `steps` representable floats away from zero."""
    return (y.view(torch.int32) + steps).view(torch.float32)


def mpmath_nearest(x: float) -> float:
    """The float32 nearest to the cube root of x, from a 60-digit cube root."""
    with mpmath.workdps(60):
        root = mpmath.cbrt(mpmath.mpf(abs(x)))
        low = float(torch.tensor(float(root), dtype=torch.float32))
        candidates = [neighbour(floats([low]), step).item() for step in (-1, 0, 1) if low + step != 0]
        best = min(candidates, key=lambda c: abs(mpmath.mpf(c) - root))
    return math.copysign(best, x)


def random_finite(count: int, seed: int) -> torch.Tensor:
    bits = torch.randint(-(2**31), 2**31 - 1, (count,), dtype=torch.int64, generator=torch.Generator().manual_seed(seed))
    x = bits.to(torch.int32).view(torch.float32)
    return x[x.isfinite() & (x != 0)]


def test_bisection_reference_is_mpmaths_nearest_float() -> None:
    x = torch.cat([random_finite(3000, seed=1), floats([v for v in EDGES if math.isfinite(v) and v != 0])])
    expected = floats([mpmath_nearest(v) for v in x.tolist()])
    assert torch.equal(exact_float32.correctly_rounded(x).view(torch.int32), expected.view(torch.int32))


def test_bisection_reference_keeps_zeros_infinities_and_nans() -> None:
    x = floats([0.0, -0.0, math.inf, -math.inf, math.nan])
    y = exact_float32.correctly_rounded(x)
    assert y[:4].view(torch.int32).tolist() == x[:4].view(torch.int32).tolist() and y[4].isnan()


def test_correctly_rounded_results_score_half_an_ulp_and_nothing_wrong() -> None:
    x = torch.cat([random_finite(200_000, seed=2), floats(EDGES)])
    score = exact_float32.score(x, [exact_float32.correctly_rounded(x)])
    assert score == exact_float32.Score(0.5, 0, 0)


@pytest.mark.parametrize("steps", [1, -1])
def test_a_one_ulp_slip_in_a_single_lane_is_one_wrong_result_between_half_and_one_and_a_half_ulp(steps: int) -> None:
    x = random_finite(100_000, seed=3)
    y = exact_float32.correctly_rounded(x)
    y[54_321] = neighbour(y[54_321 : 54_321 + 1], steps)[0]
    score = exact_float32.score(x, [y])
    assert score.not_correctly_rounded == 1 and 0.5 < score.max_ulp < 1.5 and score.over_one_ulp in (0, 1)


def test_a_slip_in_one_layout_only_counts_once_with_its_error() -> None:
    x = random_finite(10_000, seed=4)
    right = exact_float32.correctly_rounded(x)
    wrong = right.clone()
    wrong[7] = neighbour(wrong[7:8], 3)[0]
    score = exact_float32.score(x, [right, right, wrong])
    assert score.not_correctly_rounded == 1 and 2.5 < score.max_ulp < 3.5 and score.over_one_ulp == 1


@pytest.mark.parametrize(("x", "y"), [(0.0, -0.0), (-0.0, 0.0), (math.inf, -math.inf), (8.0, math.nan),
                                      (8.0, -2.0), (8.0, 0.0), (8.0, math.inf), (1e-30, 2.0**-140), (math.nan, 1.0)])
def test_wrong_specials_are_not_correctly_rounded(x: float, y: float) -> None:
    score = exact_float32.score(floats([x]), [floats([y])])
    assert score.not_correctly_rounded == 1


def test_nan_and_infinity_for_a_finite_cube_root_are_errors_of_infinite_size() -> None:
    for y in (math.nan, math.inf):
        assert exact_float32.score(floats([27.0]), [floats([y])]).max_ulp == math.inf


@settings(max_examples=300, deadline=None)
@given(st.floats(width=32, allow_nan=False, allow_infinity=False).filter(lambda v: v != 0), st.integers(-4, 4))
def test_error_of_a_result_k_floats_away_is_within_half_an_ulp_of_k(value: float, steps: int) -> None:
    x = floats([value])
    y = neighbour(exact_float32.correctly_rounded(x).abs(), steps).copysign(x)
    score = exact_float32.score(x, [y])
    exact = mpmath.cbrt(mpmath.mpf(abs(value)))
    ulp = 2.0 ** (math.floor(mpmath.log(exact, 2)) - 23)
    expected = float(abs(mpmath.mpf(abs(y.item())) - exact) / ulp)
    assert score.not_correctly_rounded == (steps != 0)
    assert score.max_ulp == pytest.approx(max(expected, 0.5) if steps else 0.5, abs=1e-6)


def test_digest_sees_one_changed_bit_and_order_but_not_nan_payloads() -> None:
    x = random_finite(4096, seed=5)
    y = exact_float32.correctly_rounded(x)
    base, _ = exact_float32.digest(x, y, 0)
    flipped = y.clone().view(torch.int32)
    flipped[100] ^= 1
    assert exact_float32.digest(x, flipped.view(torch.float32), 0)[0] != base
    assert exact_float32.digest(x, y.flip(0), 0)[0] != base
    nan_x = floats([math.nan, math.nan])
    payloads = torch.tensor([0x7FC00000, 0x7F800001], dtype=torch.int32).view(torch.float32)
    assert exact_float32.digest(nan_x, payloads, 0) == exact_float32.digest(nan_x, floats([math.nan, math.nan]), 0)


def test_digest_of_pieces_adds_up_to_the_digest_of_the_whole_and_counts_nans_for_numbers() -> None:
    x = random_finite(5000, seed=6)
    y = exact_float32.correctly_rounded(x)
    y[10] = math.nan
    whole, nans = exact_float32.digest(x, y, 0)
    first, nans_first = exact_float32.digest(x[:1234].contiguous(), y[:1234].contiguous(), 0)
    second, nans_second = exact_float32.digest(x[1234:].contiguous(), y[1234:].contiguous(), 1234)
    assert (first + second) % 2**64 == whole and nans == nans_first + nans_second == 1


def test_non_float32_or_strided_input_is_refused_with_what_to_pass() -> None:
    with pytest.raises(ValueError, match="contiguous float32 CPU tensors"):
        exact_float32.score(torch.zeros(4, dtype=torch.float64), [torch.zeros(4, dtype=torch.float64)])
    with pytest.raises(ValueError, match="contiguous float32 CPU tensors"):
        exact_float32.score(torch.zeros(8)[::2], [torch.zeros(4)])


def test_a_power_of_two_result_is_judged_against_the_nearer_float_below_it() -> None:
    # Just below 8 = 2^3 the cube roots approach 2 from below, where floats are twice as dense as above 2.
    x = neighbour(floats([8.0] * 64), 0).view(torch.int32) - torch.arange(1, 65, dtype=torch.int32)
    x = x.view(torch.float32)
    expected_wrong = int((exact_float32.correctly_rounded(x) != 2.0).sum())
    assert 0 < expected_wrong < 64
    assert exact_float32.score(x, [torch.full_like(x, 2.0)]).not_correctly_rounded == expected_wrong


@pytest.mark.parametrize("root", [3.0, 3 * 2.0**-49, 5.0 * 2**20, 1.0125233984581428e-13])
def test_a_result_exactly_one_ulp_from_an_exact_cube_root_is_not_over_one_ulp_and_two_are(root: float) -> None:
    x = floats([root**3])  # an exact cube: its cube root is a float, so errors are whole ULPs
    assert x.item() == root**3
    for steps, over in ((1, 0), (-1, 0), (2, 1), (-2, 1)):
        score = exact_float32.score(x, [neighbour(floats([root]), steps)])
        assert score.not_correctly_rounded == 1 and score.over_one_ulp == over, (steps, score)
        assert score.max_ulp == pytest.approx(abs(steps), abs=1e-6)

"""Properties of torch.cbrt that hold for every input hypothesis can find."""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from scripts.measure.accuracy import round_reference, ulp_error

FINITE64 = st.floats(allow_nan=False, allow_infinity=False, width=64)
FINITE32 = st.floats(allow_nan=False, allow_infinity=False, width=32)
ANY32 = st.floats(width=32)
NORMAL64 = st.floats(min_value=1e-300, max_value=1e300).flatmap(lambda v: st.sampled_from([v, -v]))

settings.register_profile("cbrt", max_examples=300, deadline=None)
settings.load_profile("cbrt")


def bits(t: torch.Tensor) -> torch.Tensor:
    return t.view({torch.float32: torch.int32, torch.float64: torch.int64}[t.dtype])


@given(arrays(np.float32, st.integers(1, 200), elements=ANY32))
def test_odd_symmetry_is_bit_exact(values: np.ndarray) -> None:
    x = torch.from_numpy(values)
    assert torch.equal(bits(torch.cbrt(-x)), bits(-torch.cbrt(x)))


@given(arrays(np.float64, st.integers(2, 200), elements=FINITE64))
def test_monotone_non_decreasing(values: np.ndarray) -> None:
    y = torch.cbrt(torch.from_numpy(np.sort(values)))
    assert bool((y[1:] >= y[:-1]).all())


@given(NORMAL64)
def test_cube_of_float64_result_is_within_four_ulp_of_input(x: float) -> None:
    # y = cbrt(x)(1 + d) with |d| <= 2^-52 (1 ULP), and y*y*y rounds twice:
    # |y^3 - x| / |x| <= 3 * 2^-52 + 2 * 2^-53 + O(2^-104) < 4 * 2^-52.
    y = torch.cbrt(torch.tensor(x, dtype=torch.float64)).item()
    assert abs(y * y * y - x) <= 4 * 2.0**-52 * abs(x)


@given(FINITE32.filter(lambda v: abs(v) >= 2.0**-126))
def test_cube_of_float32_result_is_within_the_documented_bound(x: float) -> None:
    # 0.75 ULP gives |d| <= 0.75 * 2^-23, so the exact cube is within 3 |d| (+ d^2 terms and cubing in double).
    y = torch.cbrt(torch.tensor(x, dtype=torch.float32)).double().item()
    assert abs(y**3 - x) <= (3 * 0.75 * 2.0**-23 + 2.0**-44) * abs(x)


TINY32 = st.floats(min_value=2.0**-126, max_value=2.0**-96, width=32).flatmap(lambda v: st.sampled_from([v, -v]))


@given(arrays(np.float32, st.integers(1, 100), elements=TINY32))
def test_tiny_normal_floats_stay_within_the_bound_when_denormals_flush_to_zero(values: np.ndarray) -> None:
    # y^3 - x would be subnormal for these inputs: flushed to zero it would leave y's 2^-16.8 error.
    x = torch.from_numpy(values)
    flushing = torch.set_flush_denormal(True)
    try:
        actual = torch.cbrt(x)
    finally:
        torch.set_flush_denormal(False)
    assert flushing, "this CPU cannot flush denormals"
    assert ulp_error(actual, x, round_reference(x, torch.float32)).max() <= 0.75


@given(st.integers(-(2**17), 2**17))
def test_perfect_cubes_are_exact(k: int) -> None:
    assert torch.cbrt(torch.tensor(float(k) ** 3, dtype=torch.float64)).item() == k
    if abs(k) <= 2**8:
        assert torch.cbrt(torch.tensor(float(k) ** 3, dtype=torch.float32)).item() == k


@given(arrays(np.float32, st.tuples(st.integers(1, 9), st.integers(1, 9), st.integers(1, 9)), elements=FINITE32))
def test_shape_and_strides_do_not_change_values(values: np.ndarray) -> None:
    x = torch.from_numpy(values)
    expected = torch.cbrt(x.flatten()).view_as(x)
    assert torch.equal(torch.cbrt(x.permute(2, 0, 1)), expected.permute(2, 0, 1))
    assert torch.equal(torch.cbrt(x[::2, :, ::3]), expected[::2, :, ::3])
    assert torch.equal(torch.cbrt(x.unsqueeze(0).expand(2, *x.shape))[1], expected)


@given(arrays(np.float32, st.integers(1, 300), elements=ANY32))
def test_half_and_bfloat16_results_are_correctly_rounded(values: np.ndarray) -> None:
    for dtype in (torch.half, torch.bfloat16):
        x = torch.from_numpy(values).to(dtype)
        torch.testing.assert_close(torch.cbrt(x), round_reference(x, dtype), rtol=0, atol=0, equal_nan=True)


@given(arrays(np.float64, st.integers(1, 100), elements=FINITE64))
def test_out_inplace_method_and_function_agree_bit_for_bit(values: np.ndarray) -> None:
    x = torch.from_numpy(values)
    expected = torch.cbrt(x)
    out = torch.empty_like(x)
    torch.cbrt(x, out=out)
    for result in (out, x.clone().cbrt_(), x.cbrt(), torch.ops.aten.cbrt.default(x)):
        assert torch.equal(bits(result), bits(expected))


MIXED64 = st.one_of(FINITE64, st.sampled_from([5e-324, -2.5e-320, 1e-310, float("inf"), -float("inf"), float("nan")]))
MIXED32 = st.one_of(FINITE32, st.sampled_from([1e-45, -3e-40, 1e-38, float("inf"), -float("inf"), float("nan")]))


@given(st.one_of(arrays(np.float64, st.integers(1, 40), elements=MIXED64),
                 arrays(np.float32, st.integers(1, 40), elements=MIXED32)))
def test_a_result_does_not_depend_on_its_neighbours(values: np.ndarray) -> None:
    # Vectors holding subnormals, infinities or NaN take a slower path; the other lanes must not notice.
    x = torch.from_numpy(values)
    together = torch.cbrt(x)
    alone = torch.stack([torch.cbrt(x[i : i + 1])[0] for i in range(len(x))])
    assert torch.equal(bits(together), bits(alone))

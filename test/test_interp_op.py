"""torch.interp in the overlay: float64 is numpy.interp bit for bit, the batched form a loop of numpy.interp calls.

numpy is the independent reference on x86-64, where its interp is compiled without FMA contraction. Elsewhere
(some aarch64 numpy builds contract), the tests compare with `numpy_interp_replica`, numpy's arithmetic written
out in float64 array operations, which is itself checked against numpy.interp where numpy is the reference.
float32, float16 and bfloat16 compute in opmath; their bound against numpy on the same (rounded) inputs is pinned:
float32 within 5 eps, float16 and bfloat16 within 1 eps, of |fp| at the two sample points plus |slope| times the
largest of |x| and those two sample points' positions (the condition of the linear piece at the query).
"""

from __future__ import annotations

import itertools
import os
import platform
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

NUMPY_IS_THE_REFERENCE = platform.machine().lower() in ("x86_64", "amd64")


def numpy_interp_replica(x: np.ndarray, xp: np.ndarray, fp: np.ndarray, left=None, right=None,
                         period=None, dtype=np.float64) -> np.ndarray:
    """numpy.interp's arithmetic (compiled_base.c: arr_interp), operation for operation, as array operations of
    `dtype` (float64, numpy's; float32 is torch.interp's opmath for float32) that no compiler contracts. Complex fp
    is interpolated part by part, as arr_interp_complex does."""
    x, xp, fp = np.asarray(x, dtype=dtype), np.asarray(xp, dtype=dtype), np.asarray(fp)
    if np.iscomplexobj(fp):
        real = numpy_interp_replica(x, xp, fp.real, None if left is None else np.real(left),
                                    None if right is None else np.real(right), period)
        imag = numpy_interp_replica(x, xp, fp.imag, None if left is None else np.imag(left),
                                    None if right is None else np.imag(right), period)
        return real + 1j * imag
    fp = fp.astype(dtype)
    if period is not None:
        period = abs(period)
        left = right = None
        x, xp = x % period, xp % period
        order = np.argsort(xp, kind="stable")
        xp, fp = xp[order], fp[order]
        xp = np.concatenate([xp[-1:] - period, xp, xp[:1] + period])
        fp = np.concatenate([fp[-1:], fp, fp[:1]])
    left = fp[0] if left is None else left
    right = fp[-1] if right is None else right
    n = len(xp)
    if n == 1:  # numpy's own branch: no NaN rule, a NaN query is neither below nor above
        return np.where(x < xp[0], left, np.where(x > xp[0], right, fp[0]))
    j = np.searchsorted(xp, x, side="right") - 1
    inner = np.clip(j, 0, n - 2)
    with np.errstate(all="ignore"):
        slope = (fp[inner + 1] - fp[inner]) / (xp[inner + 1] - xp[inner])
        result = slope * (x - xp[inner]) + fp[inner]
        retry = np.isnan(result)
        result = np.where(retry, slope * (x - xp[inner + 1]) + fp[inner + 1], result)
        result = np.where(retry & np.isnan(result) & (fp[inner] == fp[inner + 1]), fp[inner], result)
    result = np.where(x == xp[inner], fp[inner], result)  # a knot gives its value: no 0 * inf
    result = np.where(x == xp[-1], fp[-1], result)
    result = np.where(x > xp[-1], right, result)
    result = np.where(x < xp[0], left, result)
    return np.where(np.isnan(x), x, result)


REFERENCE = np.interp if NUMPY_IS_THE_REFERENCE else numpy_interp_replica


def same_bits(actual: torch.Tensor, expected: torch.Tensor) -> bool:
    """Equal bit patterns, any NaN equal to any NaN (payloads are not part of the contract)."""
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, (actual.dtype, expected.dtype)
    actual, expected = torch.view_as_real(actual) if actual.is_complex() else actual, (
        torch.view_as_real(expected) if expected.is_complex() else expected)
    both_nan = actual.isnan() & expected.isnan()
    bits = getattr(torch, f"int{8 * actual.element_size()}")
    return not bool(((actual.view(bits) != expected.view(bits)) & ~both_nan).any())


def sweep_case(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """One float64 case of the sweep: the seed picks the kind of sample points, queries and options."""
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 40)), int(rng.integers(0, 200))
    xp = np.sort(rng.standard_normal(n) * 10)
    if seed % 3 == 0:
        xp = np.round(xp)  # duplicated sample points: infinite slopes between them
    if seed % 11 == 0:
        xp = xp * 1e-310  # subnormal sample points
    fp = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4)
    if seed % 5 == 0:
        fp[rng.integers(0, n)] = np.inf
    if seed % 7 == 0:
        fp[rng.integers(0, n)] = -np.inf
    x = rng.standard_normal(m) * 12 * (1e-310 if seed % 11 == 0 else 1)
    if seed % 2 == 0 and m:
        x[: m // 3] = rng.choice(xp, m // 3)  # exact hits on the sample points
    if seed % 4 == 0 and m:
        x[0], x[-1] = np.nan, np.inf
        x[m // 2] = -np.inf
    if seed % 6 == 0:
        x = np.sort(x)  # the walk of sorted queries
    options: dict = {}
    if seed % 8 == 1:
        options = dict(left=-5.0, right=np.inf)
    if seed % 9 == 2 and seed % 11 != 0:
        # not with subnormals: negative ones are period - tiny == period modulo it, ties that numpy orders by
        # its unstable sort and interp by a stable one
        options = dict(period=float(rng.uniform(0.5, 20)) * (1 if seed % 2 else -1))
    return x, xp, fp, options


@pytest.mark.skipif(not NUMPY_IS_THE_REFERENCE, reason="numpy.interp is the reference on x86-64 only")
@pytest.mark.parametrize("seed", range(0, 400, 4))
def test_the_replica_of_numpys_arithmetic_is_numpy_interp(seed: int) -> None:
    for s in range(seed, seed + 4):
        x, xp, fp, options = sweep_case(s)
        assert same_bits(torch.from_numpy(numpy_interp_replica(x, xp, fp, **options)),
                         torch.from_numpy(np.asarray(np.interp(x, xp, fp, **options)))), s


@pytest.mark.parametrize("seed", range(0, 400, 4))
def test_float64_is_numpy_interp_bit_for_bit(seed: int) -> None:
    for s in range(seed, seed + 4):
        x, xp, fp, options = sweep_case(s)
        result = torch.interp(torch.from_numpy(x), torch.from_numpy(xp), torch.from_numpy(fp), **options)
        assert same_bits(result, torch.from_numpy(np.asarray(REFERENCE(x, xp, fp, **options)))), (s, options)


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=str)
def test_random_queries_into_sample_points_beyond_the_caches_are_numpys_bits(dtype) -> None:
    """Over 4 MiB of sample points the kernel's bisection takes its other form (a branch, for the cache misses);
    it must find numpy's segment, a query on a sample point included."""
    rng = np.random.default_rng(21)
    n = (5 << 20) // np.dtype(dtype).itemsize
    xp = np.cumsum(rng.uniform(0.5, 1.5, n)).astype(dtype)
    fp = rng.standard_normal(n).astype(dtype)
    x = rng.uniform(-1, float(xp[-1]) + 1, n).astype(dtype)
    x[::5] = rng.choice(xp, len(x[::5]))  # on sample points
    result = torch.interp(*(torch.from_numpy(t) for t in (x, xp, fp)))
    expected = (np.interp(x, xp, fp) if dtype == np.float64 and NUMPY_IS_THE_REFERENCE
                else numpy_interp_replica(x, xp, fp, dtype=dtype).astype(dtype))
    assert same_bits(result, torch.from_numpy(np.asarray(expected)))


@pytest.mark.parametrize("seed", range(0, 100, 4))
def test_complex_fp_is_numpy_interp_bit_for_bit(seed: int) -> None:
    for s in range(seed, seed + 4):
        x, xp, fp, options = sweep_case(s)
        fp = fp + 1j * np.random.default_rng(s).standard_normal(len(fp))
        if "left" in options:
            options = dict(left=2 - 1j, right=-3j)
        result = torch.interp(torch.from_numpy(x), torch.from_numpy(xp), torch.from_numpy(fp), **options)
        assert same_bits(result, torch.from_numpy(np.asarray(REFERENCE(x, xp, fp, **options)))), (s, options)


def long_run_case(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """Many queries per sample point, the rows the kernel's fast path takes (numpy's precomputed slopes, vectors of
    queries in one segment): sorted runs with knot hits inside them, runs beyond both ends, clusters far apart,
    infinite fp and -0.0 at the knots, duplicated and subnormal sample points, NaN queries amid a run, descending,
    nearly sorted and random queries."""
    rng = np.random.default_rng(10_000 + seed)
    n = int(rng.integers(2, 70))
    m = int(rng.integers(n, 2500))
    xp = np.sort(rng.standard_normal(n) * 10)
    if seed % 3 == 0:
        xp = np.round(xp)  # duplicated sample points
    fp = rng.standard_normal(n) * 10
    if seed % 4 == 1:
        fp[rng.integers(0, n, 2)] = [np.inf, -np.inf]
    elif seed % 4 == 2:
        fp[rng.integers(0, n, 3)] = -0.0  # a knot hit gives -0.0, where the line through it gives +0.0
    width = xp[-1] - xp[0]
    order = seed % 5
    if order == 2:
        # four tight clusters: long runs in one segment, and a jump of many sample points between them
        x = np.repeat(rng.uniform(xp[0], xp[-1], 4), -(-m // 4))[:m] + rng.uniform(-1e-9, 1e-9, m) * width
    else:
        x = rng.uniform(xp[0] - 0.3 * width - 1, xp[-1] + 0.3 * width + 1, m)  # runs beyond both ends
    x[rng.integers(0, m, m // 5)] = rng.choice(xp, m // 5)  # knot hits, inside the runs once sorted
    if seed % 7 == 3:
        xp, x = xp * 1e-310, x * 1e-310  # subnormal positions
    if order in (0, 1, 2):
        x = np.sort(x)
    elif order == 3:
        x = np.sort(x)[::-1].copy()  # descending: every search starts from a stale guess
    if seed % 6 == 0:
        x[rng.integers(0, m, 3)] = np.nan  # a NaN amid a sorted run
    if seed % 10 == 1:
        swaps = rng.integers(0, m - 1, m // 50)  # nearly sorted: the walk leaves and rejoins the run
        x[swaps], x[swaps + 1] = x[swaps + 1], x[swaps].copy()
    options: dict = dict(left=-3.5, right=np.inf) if seed % 8 == 5 else {}
    return x, xp, fp, options


@pytest.mark.parametrize("seed", range(0, 120, 6))
def test_float64_long_sorted_runs_are_numpy_interp_bit_for_bit(seed: int) -> None:
    for s in range(seed, seed + 6):
        x, xp, fp, options = long_run_case(s)
        result = torch.interp(torch.from_numpy(x), torch.from_numpy(xp), torch.from_numpy(fp), **options)
        assert same_bits(result, torch.from_numpy(np.asarray(REFERENCE(x, xp, fp, **options)))), (s, options)


@pytest.mark.parametrize("seed", range(0, 120, 6))
def test_float32_is_numpys_arithmetic_in_float32_bit_for_bit(seed: int) -> None:
    """float32's opmath is float32: its result is the replica's arithmetic in float32, whichever path (vectors of
    queries, the walk, bisection) the kernel takes."""
    for s in range(seed, seed + 6):
        x, xp, fp, options = (a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in long_run_case(s))
        result = torch.interp(torch.from_numpy(x), torch.from_numpy(xp), torch.from_numpy(fp), **options)
        expected = numpy_interp_replica(x, xp, fp, **options, dtype=np.float32)
        assert same_bits(result, torch.from_numpy(expected.astype(np.float32))), (s, options)


@pytest.mark.skipif(not NUMPY_IS_THE_REFERENCE, reason="numpy.interp is the reference on x86-64 only; the replica "
                    "assumes sorted sample points")
@pytest.mark.parametrize("queries", [5, 400], ids=["fewer-queries-than-points", "more-queries-than-points"])
def test_unsorted_xp_gives_numpys_bits_along_numpys_search_path(queries: int) -> None:
    """Where xp is not sorted, the segment numpy interpolates in depends on where its guessed search goes; the
    kernel takes numpy's steps for such a row, in a batch whose other rows are sorted."""
    rng = np.random.default_rng(5)
    xp = np.sort(rng.standard_normal((3, 40)) * 10, axis=-1)
    xp[1] = rng.permutation(xp[1])
    xp[2, 10:14] = xp[2, 10:14][::-1].copy()
    fp = rng.standard_normal((3, 40))
    x = np.sort(rng.uniform(-25, 25, (3, queries)), axis=-1)
    x[:, ::7] = rng.uniform(-25, 25, x[:, ::7].shape)
    result = torch.interp(torch.from_numpy(x), torch.from_numpy(xp), torch.from_numpy(fp))
    for row in range(3):
        assert same_bits(result[row], torch.from_numpy(np.interp(x[row], xp[row], fp[row]))), row


@pytest.mark.skipif(not NUMPY_IS_THE_REFERENCE, reason="numpy.interp is the reference on x86-64 only; the replica "
                    "assumes sorted sample points")
@pytest.mark.parametrize("queries", [3, 60], ids=["fewer-queries-than-points", "more-queries-than-points"])
@pytest.mark.parametrize("complex_fp", [False, True], ids=["real", "complex"])
def test_a_nan_sample_point_gives_numpys_bits_along_numpys_comparisons(queries: int, complex_fp: bool) -> None:
    """numpy's search compares key < xp[i] in some steps and key >= xp[i] in others; against a NaN both are
    false, so which one a step makes decides where the search goes."""
    xp, fp = np.array([0.0, np.nan, 2, 3, 4]), np.array([0.0, 10, 20, 30, 40])
    assert torch.interp(torch.tensor([2.5], dtype=torch.float64), torch.from_numpy(xp),
                        torch.from_numpy(fp)).item() == np.interp([2.5], xp, fp)[0] == 25.0
    rng = np.random.default_rng(queries)
    for trial in range(40):
        n = int(rng.integers(5, 30))
        xp = np.sort(rng.uniform(-10, 10, n))
        xp[rng.choice(n, int(rng.integers(1, 3)), replace=False)] = np.nan
        fp = rng.standard_normal(n) + (1j * rng.standard_normal(n) if complex_fp else 0)
        x = rng.uniform(-12, 12, queries)
        if trial % 2:
            x = np.sort(x)
        result = torch.interp(torch.from_numpy(x), torch.from_numpy(xp), torch.from_numpy(fp))
        assert same_bits(result, torch.from_numpy(np.interp(x, xp, fp))), (trial, xp)


@pytest.mark.skipif(not NUMPY_IS_THE_REFERENCE, reason="numpy.interp is the reference on x86-64 only; the replica "
                    "assumes sorted sample points")
@pytest.mark.parametrize("case", ["more-queries-than-points", "fewer-queries-than-points", "complex-fp"])
def test_unsorted_xp_gives_numpys_bits_on_1_and_2_threads_past_one_parallel_chunk(case: str) -> None:
    """Where xp is not sorted, numpy's result depends on the index the search of the previous query found; a row
    split between threads must still be searched from its first query on."""
    if case == "more-queries-than-points":
        xp = np.array([0.0, 5, 1, 2, 3, 4, 6, 7, 8, 9])
        x = np.concatenate([np.full(50_000, 5.25), np.full(50_000, 1.25)])
    else:  # the same swap in 20,000 points, with 18,000 queries (a row of the kernel without precomputed slopes)
        xp = np.arange(20_000.0)
        xp[[1, 5]] = xp[[5, 1]]
        x = np.concatenate([np.full(9_000, 15_000.25), np.full(9_000, 1.25)])
    fp = np.sqrt(np.arange(len(xp), dtype=np.float64)) * 3 + 1
    if case == "complex-fp":
        fp = fp - 2j * fp[::-1]
    expected = torch.from_numpy(np.interp(x, xp, fp))
    before = torch.get_num_threads()
    try:
        for threads in (1, 2):
            torch.set_num_threads(threads)
            result = torch.interp(torch.from_numpy(x), torch.from_numpy(xp), torch.from_numpy(fp))
            assert same_bits(result, expected), threads
    finally:
        torch.set_num_threads(before)


@pytest.mark.parametrize("aliased", ["xp", "fp", "x-shifted", "x-broadcast"])
def test_out_that_overlaps_the_sample_points_or_part_of_x_is_refused(aliased: str) -> None:
    overlap = "unsupported operation: some elements of the input tensor and the written-to tensor refer"
    x, xp, fp = torch.tensor([25.0, 5, 15, 30]), torch.tensor([0.0, 10, 20, 30]), torch.tensor([0.0, 10, 20, 30])
    if aliased == "xp":
        out = xp
    elif aliased == "fp":
        out = fp
    elif aliased == "x-shifted":
        storage = torch.cat([x, torch.zeros(1)])
        x, out = storage[:4], storage[1:]
    else:
        xp, fp = xp.repeat(2, 1), fp.repeat(2, 1)
        out = x.repeat(2, 1)
        x = out[:1]  # one row of queries for a result of two rows, written over them
    with pytest.raises(RuntimeError, match=overlap):
        torch.interp(x, xp, fp, out=out)


@pytest.mark.parametrize("batch", [(), (3,)], ids=["1-d", "batched"])
def test_out_that_is_x_itself_gives_the_bits_of_a_new_result(batch: tuple) -> None:
    """Each query is read before its result is written, so out=x works, as a TensorIterator op allows."""
    generator = torch.Generator().manual_seed(11)
    x, xp, fp = batched_case(generator, batch, batch, batch, 40_000, 50)
    for options in ({}, dict(period=2.5)):
        expected = torch.interp(x, xp, fp, **options)
        queries = x.clone()
        assert torch.interp(queries, xp, fp, **options, out=queries) is queries
        assert same_bits(queries, expected), options


def test_numpys_documented_cases() -> None:
    xp, fp = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64), torch.tensor([3.0, 2.0, 0.0], dtype=torch.float64)
    assert torch.interp(torch.tensor(2.5, dtype=torch.float64), xp, fp).item() == 1.0
    assert torch.interp(torch.tensor([0, 1, 1.5, 2.72, 3.14], dtype=torch.float64), xp, fp).tolist() == [
        3.0, 3.0, 2.5, 0.5599999999999996, 0.0]
    assert torch.interp(torch.tensor(3.14, dtype=torch.float64), xp, fp, right=-99.0).item() == -99.0
    periodic = torch.interp(torch.tensor([-180.0, -170, -185, 185, -10, -5, 0, 365], dtype=torch.float64),
                            torch.tensor([190.0, -190, 350, -350], dtype=torch.float64),
                            torch.tensor([5.0, 10, 3, 4], dtype=torch.float64), period=360)
    assert periodic.tolist() == [7.5, 5.0, 8.75, 6.25, 3.0, 3.25, 3.5, 3.75]


@pytest.mark.parametrize("period", [3e-9, 1e-310, 0.75])
def test_queries_whose_quotient_by_the_period_overflows_give_numpys_bits(period: float) -> None:
    """fmod is exact, but the vectorized one is NaN where x / period overflows (1e300 / 3e-9): those queries, and
    sample points, are first reduced modulo a power-of-two multiple of the period. More elements than one vector."""
    x = torch.tensor([1e300, -1e300, 3e307, -1.7e308, 1.5, -7.25, 0.0] * 9, dtype=torch.float64)
    xp = torch.tensor([0.0, 1e-9, 2e-9, 1e300], dtype=torch.float64)
    fp = torch.tensor([0.0, 1.0, -2.0, 5.0], dtype=torch.float64)
    expected = np.interp(x.numpy(), xp.numpy(), fp.numpy(), period=period)
    assert not np.isnan(expected).any()
    assert same_bits(torch.interp(x, xp, fp, period=period), torch.from_numpy(expected))


def test_a_knot_gives_its_value_and_a_duplicated_knot_the_value_to_its_right() -> None:
    xp = torch.tensor([0.0, 1.0, 1.0, 2.0], dtype=torch.float64)
    fp = torch.tensor([0.0, 10.0, 20.0, 30.0], dtype=torch.float64)
    x = torch.tensor([0.0, 1.0, 2.0, 0.5, 1.5], dtype=torch.float64)
    assert torch.interp(x, xp, fp).tolist() == np.interp(x.numpy(), xp.numpy(), fp.numpy()).tolist() == [
        0.0, 20.0, 30.0, 5.0, 25.0]


def test_infinite_and_nan_values_follow_numpys_retry_rule() -> None:
    """numpy retries from the right knot where slope * (x - xp[j]) + fp[j] is NaN, and takes fp[j] where fp is
    constant but the slope is not finite."""
    inf = float("inf")
    xp = torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0], dtype=torch.float64)
    fp = torch.tensor([inf, 1.0, -inf, -inf, 5.0], dtype=torch.float64)
    x = torch.tensor([0.0, 0.5, 1.5, 2.5, 3.5, 4.0, float("nan"), inf, -inf], dtype=torch.float64)
    expected = torch.from_numpy(REFERENCE(x.numpy(), xp.numpy(), fp.numpy()))
    assert same_bits(torch.interp(x, xp, fp), expected)
    assert expected[6].isnan() and expected[3] == -inf


def batched_case(generator: torch.Generator, x_batch: tuple, knot_batch: tuple, fp_batch: tuple, m: int, n: int):
    x = torch.randn(*x_batch, m, generator=generator, dtype=torch.float64) * 4
    xp = torch.randn(*knot_batch, n, generator=generator, dtype=torch.float64).mul(3).sort(-1).values
    fp = torch.randn(*fp_batch, n, generator=generator, dtype=torch.float64)
    return x, xp, fp


@pytest.mark.parametrize(("x_batch", "knot_batch", "fp_batch"), [
    ((), (), ()), ((3,), (), ()), ((), (3,), ()), ((), (), (3,)), ((2, 1), (3,), (2, 3)),
    ((4, 1, 2), (1, 3, 1), (3, 2)), ((0,), (), ()), ((2, 3), (2, 3), (2, 3))])
@pytest.mark.parametrize("m", [4, 9], ids=["fewer-queries-than-points", "more-queries-than-points"])
def test_batched_form_is_a_loop_of_numpy_calls_over_the_broadcast_batch(x_batch, knot_batch, fp_batch, m) -> None:
    generator = torch.Generator().manual_seed(len(x_batch) * 10 + len(knot_batch))
    x, xp, fp = batched_case(generator, x_batch, knot_batch, fp_batch, m, 6)
    result = torch.interp(x, xp, fp, left=-7.0)
    batch = torch.broadcast_shapes(x_batch, knot_batch, fp_batch)
    assert result.shape == (*batch, m)
    x, xp, fp = x.expand(*batch, m), xp.expand(*batch, 6), fp.expand(*batch, 6)
    for row in itertools.product(*map(range, batch)):
        expected = torch.from_numpy(REFERENCE(x[row].numpy(), xp[row].numpy(), fp[row].numpy(), left=-7.0))
        assert same_bits(result[row], expected), row


BROADCAST_MEMORY_SCRIPT = """
import resource, sys, torch
x = torch.rand(100, 1, 1, dtype=torch.float64)
xp = torch.arange(10_000.0, dtype=torch.float64).repeat(1, 100, 1)  # (1, 100, 10^4): 8 MB
fp = torch.rand(10_000, dtype=torch.float64)
torch.interp(x[:2], xp[:, :2], fp)  # the libraries' first allocations, before the measured call
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
result = torch.interp(x, xp, fp)
growth = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
assert result.shape == (100, 100, 1), result.shape
print(growth / 1024)
"""


def test_broadcast_batches_are_read_in_place_not_copied() -> None:
    """x of 100 rows against xp of 100 others: the result reads 10^4 rows of sample points, but xp has 100; the
    peak memory of the call grows by far less than the 800 MB those rows would take (ru_maxrss, a new process)."""
    run = subprocess.run([sys.executable, "-c", BROADCAST_MEMORY_SCRIPT], capture_output=True, text=True,
                         env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert run.returncode == 0, run.stderr[-2000:]
    growth_mib = float(run.stdout.split()[-1])
    assert growth_mib <= 64, f"peak memory grew by {growth_mib:.0f} MiB"


def test_a_0d_x_is_one_query_per_row() -> None:
    xp = torch.tensor([[0.0, 1.0], [0.0, 2.0]], dtype=torch.float64)
    fp = torch.tensor([[0.0, 1.0], [0.0, 1.0]], dtype=torch.float64)
    result = torch.interp(torch.tensor(0.5, dtype=torch.float64), xp, fp)
    assert result.shape == (2,) and result.tolist() == [0.5, 0.25]
    assert torch.interp(torch.tensor(0.5, dtype=torch.float64), xp[0], fp[0]).shape == ()


def test_non_contiguous_inputs_and_out_give_the_contiguous_bits() -> None:
    generator = torch.Generator().manual_seed(3)
    x, xp, fp = batched_case(generator, (4,), (4,), (4,), 10, 7)
    expected = torch.interp(x, xp, fp, right=2.0)
    x_t, xp_t, fp_t = (t.t().contiguous().t() for t in (x, xp, fp))
    assert not x_t.is_contiguous()
    assert torch.equal(torch.interp(x_t, xp_t, fp_t, right=2.0), expected)
    out = torch.empty(10, 4, dtype=torch.float64).t()
    returned = torch.interp(x[:, ::1], xp, fp, right=2.0, out=out)
    assert returned is out and torch.equal(out, expected) and out.stride() == (1, 4)
    strided = torch.interp(x.repeat_interleave(2, -1)[:, ::2], xp[:, ::1], fp.flip(-1).flip(-1), right=2.0)
    assert torch.equal(strided, expected)


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_out_of_another_dtype_is_rejected_and_an_empty_out_resized(device: str) -> None:
    x, xp, fp = torch.rand(5), torch.arange(3.0), torch.rand(3)
    for wrong in (torch.long, torch.float64):  # not even a dtype the result casts to safely
        # the structured kernel's words on the CPU, out_wrapper's on the meta device
        with pytest.raises(RuntimeError, match=r"Expected out tensor to have dtype (float,|torch.float32) but got"):
            torch.interp(x.to(device), xp.to(device), fp.to(device), out=torch.empty(5, dtype=wrong, device=device))
    if device == "meta":
        return
    out = torch.empty(0)
    torch.interp(x, xp, fp, out=out)
    assert out.shape == (5,) and torch.equal(out, torch.interp(x, xp, fp))


def test_result_dtype_promotes_x_xp_and_fp() -> None:
    assert torch.interp(torch.rand(2), torch.arange(3.0), torch.rand(3, dtype=torch.float64)).dtype == torch.float64
    assert torch.interp(torch.rand(2, dtype=torch.float64), torch.arange(3.0), torch.rand(3)).dtype == torch.float64
    assert torch.interp(torch.arange(2), torch.arange(3), torch.rand(3, dtype=torch.half)).dtype == torch.half
    assert torch.interp(torch.rand(2), torch.arange(3.0), torch.rand(3, dtype=torch.cfloat)).dtype == torch.cfloat


def condition_scale(x: torch.Tensor, xp: torch.Tensor, fp: torch.Tensor, period: float | None) -> torch.Tensor:
    """|fp| at the two sample points around each query plus |slope| times the largest position involved."""
    x, xp, fp = (torch.from_numpy(np.asarray(t, dtype=np.float64)) for t in (x, xp, fp))
    if period is not None:
        x, xp = torch.remainder(x, period), torch.remainder(xp, period)
        order = xp.argsort(stable=True)
        xp, fp = xp[order], fp[order]
        xp, fp = torch.cat([xp[-1:] - period, xp, xp[:1] + period]), torch.cat([fp[-1:], fp, fp[:1]])
    j = (torch.searchsorted(xp, x, right=True) - 1).clamp(0, xp.numel() - 2)
    slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j])
    positions = torch.maximum(x.abs(), torch.maximum(xp[j].abs(), xp[j + 1].abs()))
    return torch.maximum(fp[j].abs(), fp[j + 1].abs()) + slope.abs() * positions


@pytest.mark.parametrize(("dtype", "bound"), [(torch.float32, 5.0), (torch.float16, 1.0), (torch.bfloat16, 1.0)],
                         ids=str)
@pytest.mark.parametrize("period", [None, 7.5])
def test_reduced_precision_is_within_its_pinned_bound_of_numpy(dtype: torch.dtype, bound: float,
                                                               period: float | None) -> None:
    generator = torch.Generator().manual_seed(11)
    worst = 0.0
    for _ in range(60):
        n = int(torch.randint(2, 64, (), generator=generator))
        xp = (torch.randn(n, generator=generator, dtype=torch.float64) * 10).to(dtype).unique()
        if period is not None:
            # sample points that coincide modulo the period make a vertical segment, whose value depends on
            # their order: ill-posed, not an error of the kernel
            if torch.remainder(xp.double(), period).unique().numel() < xp.numel():
                continue
        fp = (torch.randn(xp.numel(), generator=generator, dtype=torch.float64) * 100).to(dtype)
        x = (torch.randn(2000, generator=generator, dtype=torch.float64) * 12).to(dtype)
        options = {} if period is None else {"period": period}
        result = torch.interp(x, xp, fp, **options).double()
        wide = [t.double().numpy() for t in (x, xp, fp)]
        expected = torch.from_numpy(REFERENCE(*wide, **options))
        scale = condition_scale(*wide, period)
        worst = max(worst, ((result - expected).abs() / (torch.finfo(dtype).eps * scale)).max().item())
    assert worst <= bound, f"{dtype}: {worst} eps of the condition scale, bound {bound}"


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: torch.interp(torch.rand(3), torch.rand(4), torch.rand(5)), RuntimeError,
     "interp: expected xp and fp of the same length in their last dimension, but got xp.size(-1) = 4 and "
     "fp.size(-1) = 5"),
    (lambda: torch.interp(torch.rand(3), torch.rand(0), torch.rand(0)), RuntimeError,
     "interp: expected at least one sample point, but xp and fp are empty in their last dimension"),
    (lambda: torch.interp(torch.rand(3), torch.rand(()), torch.rand(())), RuntimeError,
     "interp: expected xp and fp with at least one dimension (their last holds the sample points), but got "
     "xp.dim() = 0 and fp.dim() = 0"),
    (lambda: torch.interp(torch.rand(3), torch.arange(4.0), torch.rand(4), period=0), RuntimeError,
     "interp: period must be non-zero; pass period=None for a non-periodic interpolation"),
    (lambda: torch.interp(torch.rand(3), torch.arange(4.0), torch.arange(4)), TypeError,
     "interp: expected fp of a floating point or complex dtype (float16, bfloat16, float32, float64, complex64, "
     "complex128), but got Long; convert it first, e.g. fp.to(torch.float64)"),
    (lambda: torch.interp(torch.rand(3), torch.arange(4.0), torch.ones(4, dtype=torch.bool)), TypeError,
     "interp: expected fp of a floating point or complex dtype (float16, bfloat16, float32, float64, complex64, "
     "complex128), but got Bool; convert it first, e.g. fp.to(torch.float64)"),
    (lambda: torch.interp(torch.rand(3, dtype=torch.cfloat), torch.arange(4.0), torch.rand(4)), TypeError,
     "interp: expected real x and xp (the positions), but got x of dtype ComplexFloat and xp of dtype Float; "
     "only fp may be complex"),
    (lambda: torch.interp(torch.rand(3), torch.arange(4.0), torch.rand(4), left=1j), TypeError,
     "interp: left and right must be real numbers when fp is real (fp has dtype Float)"),
    (lambda: torch.interp(torch.rand(3), torch.arange(4.0), torch.rand(4, device="meta")), RuntimeError,
     "interp: expected x, xp and fp on the same device, but got x on cpu, xp on cpu and fp on meta; move them "
     "to one device with .to(device)"),
    (lambda: torch.interp(torch.rand(8, 64), torch.rand(8, 9), torch.rand(4, 9)), RuntimeError,
     "interp: expected the batch dimensions (all but the last) of x, xp and fp to broadcast, but got x of shape "
     "[8, 64], xp of shape [8, 9] and fp of shape [4, 9]"),
    (lambda: torch.interp(torch.rand(3), torch.arange(4.0), torch.rand(4, dtype=torch.cfloat).to(torch.chalf)),
     TypeError, "interp: expected fp of a floating point or complex dtype (float16, bfloat16, float32, float64, "
     "complex64, complex128), but got ComplexHalf; convert it first, e.g. fp.to(torch.float64)"),
], ids=["lengths", "empty", "0-d", "period", "integer-fp", "bool-fp", "complex-x", "complex-left", "devices",
        "batch-shapes", "complex32-fp"])
def test_bad_input_raises_an_error_naming_the_argument_and_the_fix(call, error: type, message: str) -> None:
    with pytest.raises(error) as caught:
        call()
    assert str(caught.value).splitlines()[0] == message


@pytest.mark.parametrize(("shapes", "fp_dtype", "error", "message"), [
    (((8, 64), (8, 9), (4, 9)), torch.float32, RuntimeError,
     "interp: expected the batch dimensions (all but the last) of x, xp and fp to broadcast, but got x of shape "
     "[8, 64], xp of shape [8, 9] and fp of shape [4, 9]"),
    (((3,), (4,), (4,)), torch.complex32, TypeError,
     "interp: expected fp of a floating point or complex dtype (float16, bfloat16, float32, float64, complex64, "
     "complex128), but got torch.complex32; convert it first, e.g. fp.to(torch.float64)"),
], ids=["batch-shapes", "complex32-fp"])
def test_the_python_meta_refuses_what_the_kernels_refuse(shapes, fp_dtype, error: type, message: str) -> None:
    """The Python meta (torch.export and torch.compile trace through it) refuses the inputs the C++ meta does."""
    from torch._meta_registrations import meta_interp

    x, xp, fp = (torch.empty(shape, device="meta") for shape in shapes)
    with pytest.raises(error) as caught:
        meta_interp(x, xp, fp.to(fp_dtype))
    assert str(caught.value).splitlines()[0] == message


def test_meta_tensors_give_the_shape_and_dtype_of_the_cpu_kernel() -> None:
    for shapes in [((2, 1, 5), (3, 4), (1, 4)), ((), (2, 3), (3,)), ((0,), (3,), (3,))]:
        x, xp, fp = torch.rand(shapes[0]), torch.rand(shapes[1]).sort().values, torch.rand(shapes[2], dtype=torch.double)
        meta = torch.interp(x.to("meta"), xp.to("meta"), fp.to("meta"), left=0.0)
        cpu = torch.interp(x, xp, fp, left=0.0)
        assert meta.device.type == "meta" and meta.shape == cpu.shape and meta.dtype == cpu.dtype


def gradient_case(period: float | None = None, batch: bool = False, fp_dtype: torch.dtype = torch.float64):
    """Sample points at k + [0, 0.25), queries at k + [0.4, 0.6): finite differences never cross a knot."""
    generator = torch.Generator().manual_seed(7)
    shape = (2, 5) if batch else (5,)
    xp = torch.arange(5, dtype=torch.float64) + torch.rand(shape, generator=generator, dtype=torch.float64) / 4
    if period is not None:
        xp = xp[..., torch.tensor([3, 0, 4, 1, 2])]
    fp = torch.randn(shape, generator=generator, dtype=fp_dtype)
    low, high = (-7, 13) if period is not None else (-2, 6)
    x = torch.randint(low, high, (8,), generator=generator).double() + 0.4 + torch.rand(8, generator=generator,
                                                                                      dtype=torch.float64) / 5
    return [t.requires_grad_() for t in (x, xp, fp)]


@pytest.mark.parametrize(("options", "batch"), [({}, False), ({"left": -1.5, "right": 2.0}, False),
                                                 ({"period": 6.0}, False), ({"period": -6.0}, False), ({}, True)],
                         ids=["plain", "left-right", "period", "negative-period", "batched"])
def test_gradcheck_and_gradgradcheck_away_from_the_knots(options: dict, batch: bool) -> None:
    inputs = gradient_case(options.get("period"), batch)
    function = lambda x, xp, fp: torch.interp(x, xp, fp, **options)  # noqa: E731
    assert torch.autograd.gradcheck(function, inputs)
    assert torch.autograd.gradgradcheck(function, inputs)
    assert torch.autograd.gradcheck(function, inputs, check_forward_ad=True, check_backward_ad=False,
                                    check_undefined_grad=False)


@pytest.mark.parametrize("options", [{}, {"left": 1 - 2j, "right": 0.5j}, {"period": 6.0}],
                         ids=["plain", "left-right", "period"])
def test_complex_fp_gradcheck_and_gradgradcheck_for_real_x_and_xp(options: dict) -> None:
    # the result is complex and x, xp real: their gradients are the real part of grad * conj(slope)
    inputs = gradient_case(options.get("period"), fp_dtype=torch.complex128)
    function = lambda x, xp, fp: torch.interp(x, xp, fp, **options)  # noqa: E731
    assert torch.autograd.gradcheck(function, inputs)
    assert torch.autograd.gradgradcheck(function, inputs)
    assert torch.autograd.gradcheck(function, inputs, check_forward_ad=True, check_backward_ad=False,
                                    check_undefined_grad=False)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_reduced_precision_derivatives_with_a_period_run_in_the_forwards_float32(dtype: torch.dtype) -> None:
    """With a period the forward reduces x and xp mod period in float32, where float16 and bfloat16 would round;
    the derivatives must find each query in the same segment, so they are float32's on the same values."""
    generator = torch.Generator().manual_seed(12)
    x = (torch.rand(400, generator=generator, dtype=torch.float64) * 2000 - 1000).to(dtype)
    xp = (torch.rand(9, generator=generator, dtype=torch.float64) * 7.3).to(dtype)
    fp = torch.randn(9, generator=generator, dtype=torch.float64).to(dtype)
    grad = torch.randn(400, generator=generator, dtype=torch.float64).to(dtype)

    def gradients(*inputs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        inputs = tuple(t.detach().requires_grad_() for t in inputs)
        torch.interp(*inputs, period=7.3).backward(grad.to(inputs[0].dtype))
        return tuple(t.grad for t in inputs)

    def tangent(*inputs: torch.Tensor) -> torch.Tensor:
        tangents = tuple(torch.full_like(t, 0.5) for t in inputs)
        return torch.func.jvp(lambda *a: torch.interp(*a, period=7.3), inputs, tangents)[1]

    float32 = [t.float() for t in (x, xp, fp)]
    for ours, reference in zip(gradients(x, xp, fp), gradients(*float32), strict=True):
        assert ours.dtype == dtype and same_bits(ours, reference.to(dtype))
    assert same_bits(tangent(x, xp, fp), tangent(*float32).to(dtype))


def test_gradients_are_the_slope_and_the_two_weights() -> None:
    x = torch.tensor([0.25, 1.5, -1.0, 3.0], dtype=torch.float64, requires_grad=True)
    xp = torch.tensor([0.0, 1.0, 2.0], dtype=torch.float64, requires_grad=True)
    fp = torch.tensor([0.0, 2.0, 8.0], dtype=torch.float64, requires_grad=True)
    grad_x, grad_xp, grad_fp = torch.autograd.grad(torch.interp(x, xp, fp).sum(), (x, xp, fp))
    assert grad_x.tolist() == [2.0, 6.0, 0.0, 0.0]  # the slope inside, 0 outside
    assert grad_fp.tolist() == [0.75 + 1.0, 0.25 + 0.5, 0.5 + 1.0]  # below: fp[0]; above: fp[-1]
    # d/dxp[j0] = slope * (t - 1), d/dxp[j1] = -slope * t
    assert grad_xp.tolist() == [2.0 * (0.25 - 1), -2.0 * 0.25 + 6.0 * (0.5 - 1), -6.0 * 0.5]


def test_vmap_runs_the_batch_rule_and_matches_the_op_per_example() -> None:
    generator = torch.Generator().manual_seed(2)
    x, xp, fp = batched_case(generator, (3,), (3,), (3,), 5, 4)
    torch._C._functorch._set_vmap_fallback_warning_enabled(True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the vmap fallback warns that interp has no batch rule
            for in_dims in itertools.product((0, None), repeat=3):
                if in_dims == (None, None, None):
                    continue
                args = [t if d == 0 else t[0] for t, d in zip((x, xp, fp), in_dims, strict=True)]
                batched = torch.vmap(lambda a, b, c: torch.interp(a, b, c, right=1.0), in_dims=in_dims)(*args)
                for i in range(3):
                    one = [a[i] if d == 0 else a for a, d in zip(args, in_dims, strict=True)]
                    assert torch.equal(batched[i], torch.interp(*one, right=1.0)), in_dims
            scalar_queries = torch.vmap(torch.interp, in_dims=(0, None, None))(x[0], xp[0], fp[0])
            assert torch.equal(scalar_queries, torch.interp(x[0], xp[0], fp[0]))
    finally:
        torch._C._functorch._set_vmap_fallback_warning_enabled(False)


def test_vmap_of_vjp_and_jvp_runs_the_derivatives_decompositions_not_the_fallback() -> None:
    # _interp_backward and _interp_jvp are CompositeImplicitAutograd: registered for decomposition under vmap
    # (BatchRulesDecompositions.cpp), they never reach the batched fallback, which raises here
    generator = torch.Generator().manual_seed(3)
    x, xp, fp = batched_case(generator, (3,), (), (), 5, 4)
    cotangents = torch.randn(x.shape, generator=generator, dtype=x.dtype)
    function = lambda queries, knots, values: torch.interp(queries, knots, values, left=-1.0)  # noqa: E731
    torch._C._functorch._set_vmap_fallback_enabled(False)
    try:
        grads = torch.vmap(lambda a, g: torch.func.vjp(function, a, xp, fp)[1](g))(x, cotangents)
        tangents = torch.vmap(lambda a, g: torch.func.jvp(lambda q: function(q, xp, fp), (a,), (g,))[1])(x, cotangents)
    finally:
        torch._C._functorch._set_vmap_fallback_enabled(True)
    for i in range(3):
        expected = torch.func.vjp(function, x[i], xp, fp)[1](cotangents[i])
        for batched, one in zip(grads, expected, strict=True):
            assert torch.equal(batched[i], one)
        assert torch.equal(tangents[i], torch.func.jvp(lambda q: function(q, xp, fp), (x[i],), (cotangents[i],))[1])


def test_compiled_interp_gives_the_eager_bits() -> None:
    """Inductor runs the eager kernel (an explicit fallback: interp has no decomposition)."""
    generator = torch.Generator().manual_seed(5)
    x, xp, fp = batched_case(generator, (2,), (2,), (), 50, 9)
    for options in ({}, {"left": 0.0}, {"period": 3.0}):
        torch._dynamo.reset()
        compiled = torch.compile(lambda a, b, c, options=options: torch.interp(a, b, c, **options) * 2,
                                 fullgraph=True)
        assert torch.equal(compiled(x, xp, fp), torch.interp(x, xp, fp, **options) * 2), options


def test_torch_numpy_interp_is_numpy_interp_in_float64_with_numpys_errors() -> None:
    import torch._numpy as tnp

    x, xp, fp = [-1, 0, 1.5, 2.72, 3.14, np.nan], [1, 2, 3], [3, 2, 0]  # integer positions and values
    result = tnp.interp(x, xp, fp, left=-9.5)
    assert result.dtype == tnp.float64
    assert same_bits(result.tensor, torch.from_numpy(np.interp(x, xp, fp, left=-9.5)))
    x32 = np.linspace(-1, 4, 11, dtype=np.float32)  # float32 queries: numpy still computes in float64
    assert same_bits(tnp.interp(x32, xp, [3.0, 2j, 0]).tensor, torch.from_numpy(np.interp(x32, xp, [3.0, 2j, 0])))
    periodic = tnp.interp([-180, 185, 365], [190, -190, 350, -350], [5, 10, 3, 4], period=360)
    assert periodic.tolist() == np.interp([-180, 185, 365], [190, -190, 350, -350], [5, 10, 3, 4], period=360).tolist()
    for args, options, message in [
        ((0, [], []), {}, "array of sample points is empty"),
        ((0, [0], [1, 2]), {}, "fp and xp are not of the same length."),
        ((0, [0, 1], [1, 2]), {"period": 0}, "period must be a non-zero value"),
        ((0, [[0, 1]], [[1, 2]]), {}, "object too deep for desired array"),
    ]:
        with pytest.raises(ValueError, match=message):
            np.interp(*args, **options)
        with pytest.raises(ValueError, match=message):
            tnp.interp(*args, **options)
    for args in ((np.array([1 + 1j]), [0.0, 2], [0.0, 1]), ([1.0], np.array([0j, 2]), [0.0, 1])):
        # numpy casts x and xp to float64 with the 'safe' rule
        message = "Cannot cast array data from dtype('complex128') to dtype('float64') according to the rule 'safe'"
        for interp in (np.interp, tnp.interp):
            with pytest.raises(TypeError) as caught:
                interp(*args)
            assert str(caught.value) == message, interp


def test_export_keeps_the_query_and_sample_point_counts_symbolic() -> None:
    class Interp(torch.nn.Module):
        def forward(self, x, xp, fp):
            return torch.interp(x, xp, fp, left=-1.0)

    generator = torch.Generator().manual_seed(8)
    sizes = {"x": {1: torch.export.Dim("queries")}, "xp": {0: torch.export.Dim("points")},
             "fp": {0: torch.export.Dim("points")}}
    exported = torch.export.export(Interp(), batched_case(generator, (2,), (), (), 50, 7), dynamic_shapes=sizes)
    assert "torch.ops.aten.interp.default" in exported.graph_module.code
    other = batched_case(generator, (2,), (), (), 90, 11)  # other sizes: nothing was specialized
    assert same_bits(exported.module()(*other), torch.interp(*other, left=-1.0))


def scripted_interp(x: torch.Tensor, xp: torch.Tensor, fp: torch.Tensor) -> torch.Tensor:
    return torch.interp(x, xp, fp, right=2.0, period=None)


def test_torchscript_calls_the_aten_op() -> None:
    scripted = torch.jit.script(scripted_interp)
    assert "aten::interp" in str(scripted.graph)
    operands = batched_case(torch.Generator().manual_seed(9), (3,), (), (), 20, 6)
    assert same_bits(scripted(*operands), scripted_interp(*operands))


def test_dtensor_shards_the_queries_or_a_batch_dimension_of_every_input_that_carries_it_without_collectives() -> None:
    import torch.distributed as dist
    from torch.distributed.tensor import DeviceMesh, Replicate, Shard, distribute_tensor
    from torch.distributed.tensor.debug import CommDebugMode
    from torch.testing._internal.distributed.fake_pg import FakeStore

    # one process as rank 0 of 2: its shard's result is checked; the fake group moves no data
    dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=2)
    try:
        mesh = DeviceMesh("cpu", [0, 1])
        generator = torch.Generator().manual_seed(10)
        one_row = batched_case(generator, (4,), (), (), 50, 7)
        batched = batched_case(generator, (8,), (8,), (8,), 64, 9)
        cases = [  # (x, xp, fp), their placements, the result's placement, its local part on rank 0
            (one_row, (Shard(0), Replicate(), Replicate()), Shard(0), [t[:2] if t.dim() > 1 else t for t in one_row]),
            (one_row, (Shard(1), Replicate(), Replicate()), Shard(1), [one_row[0][:, :25], *one_row[1:]]),
            (batched, (Shard(0), Shard(0), Shard(0)), Shard(0), [t[:4] for t in batched]),
            (batched, (Shard(0), Replicate(), Replicate()), Shard(0), [t[:4] for t in batched]),
            (batched, (Shard(1), Replicate(), Replicate()), Shard(1), [batched[0][:, :32], *batched[1:]]),
        ]
        for inputs, placements, result_placement, local in cases:
            distributed = [distribute_tensor(t, mesh, [p]) for t, p in zip(inputs, placements, strict=True)]
            with CommDebugMode() as comm:
                result = torch.interp(*distributed)
            assert result.placements == (result_placement,) and comm.get_total_counts() == 0, placements
            assert same_bits(result.to_local(), torch.interp(*local)), placements
    finally:
        dist.destroy_process_group()


def test_torch_function_overrides_dispatch_interp() -> None:
    from torch.overrides import get_testing_overrides

    class Logged(torch.Tensor):
        calls: list = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append(func)
            return super().__torch_function__(func, types, args, kwargs or {})

    assert torch.interp in get_testing_overrides()
    torch.interp(torch.rand(3).as_subclass(Logged), torch.arange(3.0), torch.rand(3))
    assert torch.interp in Logged.calls


CAPABILITY_SCRIPT = """
import hashlib, sys, torch
digest = hashlib.sha256()
for args, options in torch.load(sys.argv[1]):
    result = torch.interp(*args, **options)
    result = torch.where(result.isnan(), torch.nan, result)
    digest.update(result.view(getattr(torch, f"int{8 * result.dtype.itemsize}")).numpy().tobytes())
print(torch.backends.cpu.get_cpu_capability(), digest.hexdigest())
"""


def test_every_cpu_capability_build_gives_the_same_bits(tmp_path) -> None:
    """Raw bits, NaNs but one: a NaN's payload and sign come from torch's own conversions (float -> bfloat16
    gives 0x7fc0 in the DEFAULT build, the NaN's own high bits in the vectorized ones), which interp uses where
    it returns a NaN query as it is. For the same reason the inputs are converted once, here."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("ATEN_CPU_CAPABILITY selects among x86-64 builds only")
    capabilities = ["default"] + [c for c in ("avx2", "avx512")
                                  if torch.backends.cpu.get_cpu_capability().lower() in (c, "avx512")]
    cases = []
    for seed in range(300):
        x, xp, fp, options = sweep_case(seed)
        for dtype in (torch.float64, torch.float32, torch.float16, torch.bfloat16):
            cases.append(([torch.from_numpy(t).to(dtype) for t in (x, xp, fp)], options))
    torch.save(cases, tmp_path / "cases.pt")
    reports = {}
    for capability in capabilities:
        run = subprocess.run([sys.executable, "-c", CAPABILITY_SCRIPT, str(tmp_path / "cases.pt")],
                             capture_output=True, text=True,
                             env={**os.environ, "ATEN_CPU_CAPABILITY": capability, "OMP_NUM_THREADS": "1"})
        assert run.returncode == 0, run.stderr[-2000:]
        reports[capability] = run.stdout.split()[-2:]
    assert [name.lower() for name, _ in reports.values()] == capabilities
    assert len({digest for _, digest in reports.values()}) == 1, reports


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device: the CUDA kernel is compiled (make CUDA=AUTO) but not run")
@pytest.mark.parametrize("seed", range(0, 60, 4))
def test_cuda_float64_is_numpy_interp_bit_for_bit(seed: int) -> None:
    for s in range(seed, seed + 4):
        x, xp, fp, options = sweep_case(s)
        result = torch.interp(*(torch.from_numpy(t).cuda() for t in (x, xp, fp)), **options).cpu()
        assert same_bits(result, torch.from_numpy(np.asarray(REFERENCE(x, xp, fp, **options)))), (s, options)

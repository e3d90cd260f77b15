"""The arithmetic of nanvar's and nanstd's CUDA kernel without a GPU: NanWelfordOps (ATen/native/SharedReduceOps.h,
with the patch set's header edits), compiled as host code (test/cuda_host/nanwelford_ops.cpp) with the accumulate
type the kernel takes, reduces each row as gpu_reduce_kernel spreads a reduction over threads (an accumulator per
thread, then combined pairwise), and its results are checked against numpy's: NaN left out of the mean, the sum of
squares and the count, NaN where no degree of freedom is left or an element is infinite, float16 and bfloat16
accumulated in float.

nvcc contracts a * b + c into an FMA on the device; the harness is built twice, with no contraction and with FMA
contraction where this CPU has FMA, and both builds must keep the bounds.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from cuda_host_support import build_harness, storage, to_bfloat16

from scripts.layout import REPO_ROOT

HARNESS = REPO_ROOT / "test" / "cuda_host" / "nanwelford_ops.cpp"
# Ways one reduction is spread over accumulators: one thread, a few, a warp, and more threads than some rows have
# elements (empty accumulators combined with the others).
SPLITS = (1, 3, 32, 1024)
FLOATS = {"float32": np.float32, "float64": np.float64}
# Welford's updates lose a few ULPs of the accumulate type over a few thousand elements of standard normal data (at
# most 15 measured, for one accumulator); accumulating in a narrower type would lose thousands.
MAX_RELATIVE_EPS = 32


def has_fma() -> bool:
    cpuinfo = Path("/proc/cpuinfo")
    return cpuinfo.is_file() and " fma " in cpuinfo.read_text()


@pytest.fixture(scope="module")
def harnesses(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("nanwelford-ops")
    builds = {"no contraction": ["-ffp-contract=off"]}
    if has_fma():
        builds["FMA contraction"] = ["-mfma", "-ffp-contract=fast"]
    return {name: build_harness(HARNESS, folder / name.replace(" ", "-"), flags) for name, flags in builds.items()}


def reduce_rows(binary: Path, values: np.ndarray, dtype: str, accumulators: int, correction: float,
                take_sqrt: bool, folder: Path) -> np.ndarray:
    """One result per row of values (held as float32 for float16 and bfloat16, which are exact there)."""
    (folder / "in").write_bytes(storage(values, dtype).tobytes())
    rows, columns = values.shape
    subprocess.run([str(binary), dtype, str(rows), str(columns), str(accumulators), repr(correction),
                    "1" if take_sqrt else "0", str(folder / "in"), str(folder / "out")], check=True)
    return np.frombuffer((folder / "out").read_bytes(), dtype=np.float64)


def reference(values: np.ndarray, correction: float, take_sqrt: bool) -> np.ndarray:
    """Two passes in long double over the elements that are not NaN; NaN without degrees of freedom."""
    results = []
    for row in values.astype(np.float64):
        kept = row[~np.isnan(row)].astype(np.longdouble)
        dof = len(kept) - correction
        if dof <= 0:
            results.append(np.nan)
            continue
        # a negative correction leaves degrees of freedom to an all-NaN slice: numpy's variance is then 0
        mean = kept.sum() / len(kept) if len(kept) else np.longdouble(0)
        variance = ((kept - mean) ** 2).sum() / np.longdouble(dof)
        results.append(float(np.sqrt(variance) if take_sqrt else variance))
    return np.array(results)


def rows_with_nans(dtype: type, seed: int) -> np.ndarray:
    """Standard normal rows of 1000 and 4099 elements with a fifth of them NaN, one all NaN."""
    rng = np.random.default_rng(seed)
    values = rng.standard_normal((8, 4099)).astype(dtype)
    values[rng.random(values.shape) < 0.2] = np.nan
    values[3] = np.nan
    values[5, 1000:] = np.nan
    return values


@pytest.mark.parametrize("take_sqrt", [False, True], ids=["nanvar", "nanstd"])
@pytest.mark.parametrize("correction", [0, 1, 2.5])
@pytest.mark.parametrize("dtype", FLOATS)
def test_nan_elements_are_left_out_however_the_reduction_is_split(harnesses: dict[str, Path], tmp_path: Path,
                                                                  dtype: str, correction: float,
                                                                  take_sqrt: bool) -> None:
    values = rows_with_nans(FLOATS[dtype], seed=7)
    expected = reference(values, correction, take_sqrt)
    eps = float(np.finfo(FLOATS[dtype]).eps)
    for build, binary in harnesses.items():
        for accumulators in SPLITS:
            actual = reduce_rows(binary, values, dtype, accumulators, correction, take_sqrt, tmp_path)
            assert np.array_equal(np.isnan(actual), np.isnan(expected)), (build, accumulators, actual, expected)
            kept = ~np.isnan(expected)
            error = np.abs(actual[kept] - expected[kept]) / expected[kept] / eps
            assert error.max() <= MAX_RELATIVE_EPS, (build, accumulators, error.max())


@pytest.mark.parametrize("take_sqrt", [False, True], ids=["nanvar", "nanstd"])
def test_a_slice_without_degrees_of_freedom_is_nan(harnesses: dict[str, Path], tmp_path: Path,
                                                   take_sqrt: bool) -> None:
    # Rows of 3 distinct values among NaNs (their sum of squares is not 0), all NaN, and one of a single value.
    values = np.full((3, 40), np.nan)
    values[0, [2, 17, 39]] = [1.0, 4.0, -2.0]
    values[2, 11] = 5.0
    for correction in (0, 1, 2, 3, 3.5, 5, -1):
        expected = reference(values, correction, take_sqrt)
        for binary in harnesses.values():
            for accumulators in SPLITS:
                actual = reduce_rows(binary, values, "float64", accumulators, correction, take_sqrt, tmp_path)
                np.testing.assert_allclose(actual, expected, rtol=1e-15, equal_nan=True,
                                           err_msg=f"correction {correction}, {accumulators} accumulators")


@pytest.mark.parametrize("dtype", FLOATS)
def test_an_infinite_element_gives_nan(harnesses: dict[str, Path], tmp_path: Path, dtype: str) -> None:
    values = rows_with_nans(FLOATS[dtype], seed=3)[:, :1000]
    values[3] = 1.0  # no NaN in this row: its only infinite element decides
    positions = [0, 1, 499, 999]
    infinite = np.repeat(values[:4], 2 * len(positions), axis=0)
    for i, (position, sign) in enumerate((p, s) for p in positions for s in (1, -1)):
        for row in range(4):
            infinite[row * 2 * len(positions) + i, position] = sign * np.inf
    for binary in harnesses.values():
        for accumulators in SPLITS:
            actual = reduce_rows(binary, infinite, dtype, accumulators, 1, False, tmp_path)
            assert np.isnan(actual).all(), (accumulators, actual)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_float16_and_bfloat16_accumulate_in_float(harnesses: dict[str, Path], tmp_path: Path, dtype: str) -> None:
    values = rows_with_nans(np.float32, seed=11)
    values = values.astype(np.float16).astype(np.float32) if dtype == "float16" else to_bfloat16(values)
    expected = reference(values, 1, False)
    rounded = expected.astype(np.float16) if dtype == "float16" else to_bfloat16(expected.astype(np.float32))
    # the spacing of the dtype at each result: the rounded float64 result is within half of it
    mantissa_bits = 10 if dtype == "float16" else 7
    spacing = np.exp2(np.floor(np.log2(np.abs(expected))) - mantissa_bits)
    for binary in harnesses.values():
        for accumulators in SPLITS:
            actual = reduce_rows(binary, values, dtype, accumulators, 1, False, tmp_path)
            assert np.array_equal(np.isnan(actual), np.isnan(expected)), accumulators
            kept = ~np.isnan(expected)
            steps = np.abs(actual[kept] - rounded[kept].astype(np.float64)) / spacing[kept]
            assert steps.max() <= 1, (accumulators, steps.max())

"""Exhaustive accuracy of cube-root implementations against a correctly rounded reference.

float32: every one of the 2^32 inputs. half, bfloat16: every one of the 2^16 inputs.
float64: random bit patterns plus every special and boundary class, against an
extended-precision (x87 long double) reference. Reports, per dtype and candidate,
the max ULP error and how many results are not correctly rounded.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from fractions import Fraction

import numpy as np
import torch

from scripts.alternatives import prims_composite, tutorial_composite

Candidate = Callable[[torch.Tensor], torch.Tensor]


def numpy_cbrt(x: torch.Tensor) -> torch.Tensor:
    if x.dtype == torch.bfloat16:
        return torch.from_numpy(np.cbrt(x.float().numpy())).to(torch.bfloat16)
    return torch.from_numpy(np.cbrt(x.numpy()))


CANDIDATES: dict[str, Candidate] = {
    "torch.cbrt": lambda x: torch.cbrt(x),
    "torch.cbrt (cuda)": lambda x: torch.cbrt(x.cuda()).cpu(),
    "numpy.cbrt": numpy_cbrt,
    "copysign(pow(abs(x), 1/3), x)": prims_composite,
    "tutorial sign(x)*abs(x)**(1/3)": tutorial_composite,
}

INT_OF = {torch.float32: torch.int32, torch.float64: torch.int64, torch.half: torch.int16, torch.bfloat16: torch.int16}
STORED_MANTISSA_BITS = {torch.float32: 23, torch.float64: 52, torch.half: 10, torch.bfloat16: 7}


@dataclass
class Report:
    dtype: str
    candidate: str
    inputs: int
    max_ulp: float
    not_correctly_rounded: int
    over_one_ulp: int
    seconds: float


def ordinal(values: torch.Tensor) -> torch.Tensor:
    """Map floats to integers whose difference counts the representable values between them."""
    bits = values.view(INT_OF[values.dtype]).to(torch.int64)
    sign_bit = 1 << (torch.finfo(values.dtype).bits - 1)
    return torch.where(bits < 0, -(bits & (sign_bit - 1)), bits)


def from_ordinal(ordinals: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    sign_bit = 1 << (torch.finfo(dtype).bits - 1)
    bits = torch.where(ordinals >= 0, ordinals, (-ordinals) | sign_bit)
    bits = torch.where(bits >= sign_bit, bits - 2 * sign_bit, bits)
    return bits.to(INT_OF[dtype]).view(dtype)


def ulp_distance(actual: torch.Tensor, expected: torch.Tensor) -> torch.Tensor:
    distance = (ordinal(actual) - ordinal(expected)).abs().to(torch.float64)
    distance[actual.isnan() != expected.isnan()] = float("inf")
    distance[actual.isnan() & expected.isnan()] = 0
    return distance


def exact_nearest(x: float, a: float, b: float) -> float:
    """Of two adjacent floats around cbrt(x), the nearer, decided exactly: cbrt(x) > m iff x > m**3."""
    midpoint = (Fraction(a) + Fraction(b)) / 2
    return max(a, b) if Fraction(x) > midpoint**3 else min(a, b)


def wide_cbrt(x: torch.Tensor) -> torch.Tensor:
    """glibc's double cbrt of `x` (float32 or narrower, so exact in float64): within 1 double ULP."""
    return torch.from_numpy(np.cbrt(x.double().numpy()))


def round_reference(x: torch.Tensor, dtype: torch.dtype, wide: torch.Tensor | None = None) -> torch.Tensor:
    """Correctly rounded cbrt of `x` (float32 or narrower, so exact in float64), in `dtype`; `wide` is
    wide_cbrt(x) where the caller has it already."""
    wide = wide_cbrt(x) if wide is None else wide
    rounded = wide.to(dtype)
    # Half and bfloat16 convert through float32: rounding twice can land one value off.
    toward = torch.where(wide > rounded.double(), 1, -1)
    neighbour = from_ordinal(ordinal(rounded) + toward, dtype)
    nearer = (neighbour.double() - wide).abs() < (rounded.double() - wide).abs()
    rounded = torch.where(nearer, neighbour, rounded)
    toward = torch.where(wide > rounded.double(), 1, -1)
    neighbour = from_ordinal(ordinal(rounded) + toward, dtype)
    midpoint = (rounded.double() + neighbour.double()) / 2
    # glibc's double cbrt is within 1 double ULP: only results this close to a midpoint may round wrongly.
    margin = 4 * torch.finfo(torch.float64).eps * wide.abs()
    close = ((wide - midpoint).abs() <= margin) & wide.isfinite() & (wide != 0)
    for i in close.nonzero().flatten().tolist():
        rounded[i] = exact_nearest(float(x[i]), float(rounded[i]), float(neighbour[i]))
    return rounded


def ulp_error(actual: torch.Tensor, x: torch.Tensor, expected: torch.Tensor,
              wide: torch.Tensor | None = None) -> torch.Tensor:
    """|actual - cbrt(x)| in units of the last place of cbrt(x) in x's dtype, to about 2^-28 ULP.

    A correctly rounded result counts as 0.5 (its exact error is not needed); NaN where expected is
    NaN counts as 0, any other NaN or infinity mismatch as inf.
    """
    wide = wide_cbrt(x) if wide is None else wide
    last_place = torch.pow(2.0, torch.floor(torch.log2(wide.abs())) - STORED_MANTISSA_BITS[x.dtype])
    error = (actual.double() - wide).abs() / last_place
    same = ulp_distance(actual, expected) == 0  # also zeros, infinities and NaNs that match
    error = torch.where(same, error.nan_to_num(0.0).clamp(max=0.5), error)
    return torch.where(error.isnan(), float("inf"), error)


def sweep_chunk(dtype: torch.dtype, start: int, count: int, names: tuple[str, ...]) -> list[tuple[float, int, int]]:
    """(max ULP error, not correctly rounded, over 1 ULP) per candidate for bit patterns start..start+count."""
    torch.set_num_threads(1)
    bits = torch.arange(start, start + count, dtype=torch.int64)
    sign_bit = 1 << (torch.finfo(dtype).bits - 1)
    bits = torch.where(bits >= sign_bit, bits - 2 * sign_bit, bits)
    x = bits.to(INT_OF[dtype]).view(dtype)
    wide = wide_cbrt(x)
    expected = round_reference(x, dtype, wide)
    results = []
    for name in names:
        actual = CANDIDATES[name](x)
        error = ulp_error(actual, x, expected, wide)
        results.append((float(error.max()), int((ulp_distance(actual, expected) > 0).sum()), int((error > 1).sum())))
    return results


def merge(totals: list[list[float]], chunk: list[tuple[float, int, int]]) -> None:
    """Fold one chunk's (max ULP, not correctly rounded, over 1 ULP) per candidate into the totals."""
    for total, (max_ulp, wrong, over) in zip(totals, chunk, strict=True):
        total[0], total[1], total[2] = max(total[0], max_ulp), total[1] + wrong, total[2] + over


def sweep_all(dtype: torch.dtype, names: tuple[str, ...], workers: int, limit: int | None) -> list[Report]:
    total = min(limit or 1 << torch.finfo(dtype).bits, 1 << torch.finfo(dtype).bits)
    chunk = min(total, 1 << 22)
    starts = range(0, total, chunk)
    started = time.monotonic()
    per_candidate = [[0.0, 0, 0] for _ in names]
    with worker_pool(workers) as pool:
        futures = [pool.submit(sweep_chunk, dtype, s, min(chunk, total - s), names) for s in starts]
        for done, future in enumerate(futures, 1):
            merge(per_candidate, future.result())
            if done % 64 == 0 or done == len(futures):
                print(f"  {dtype}: {done}/{len(futures)} chunks, {time.monotonic() - started:.0f}s", file=sys.stderr)
    seconds = time.monotonic() - started
    return [Report(str(dtype), n, total, a[0], a[1], a[2], seconds) for n, a in zip(names, per_candidate, strict=False)]


FLOAT64_SPECIALS = [0.0, -0.0, float("inf"), -float("inf"), float("nan"), 5e-324, -5e-324, 2.2250738585072014e-308,
                    2.225073858507201e-308, 1.7976931348623157e308, -1.7976931348623157e308, 1.0, -1.0, 8.0, -27.0,
                    1e-300, 1e300, 0.125, 3.0, 2.0**-1074 * 3, 2.0**-1022 * 0.5, 2.0**1023]


def float64_inputs(count: int, seed: int) -> np.ndarray:
    """Random bit patterns over every binade, plus specials, boundaries, perfect cubes and powers of two."""
    rng = np.random.default_rng(seed)
    random_bits = rng.integers(0, 1 << 64, size=count, dtype=np.uint64, endpoint=False).view(np.float64)
    cubes = np.arange(-2000, 2001, dtype=np.float64) ** 3
    powers = np.ldexp(1.0, np.arange(-1074, 1024)).astype(np.float64)
    return np.concatenate([np.array(FLOAT64_SPECIALS), cubes, powers, -powers, random_bits])


def longdouble_cbrt(x: np.ndarray) -> np.ndarray:
    """cbrt to ~2^-63 relative: glibc's double cbrt, then one Newton step in x87 long double."""
    with np.errstate(all="ignore"):
        y = np.cbrt(x).astype(np.longdouble)
        wide = x.astype(np.longdouble)
        corrected = y - (y * y * y - wide) / (3 * y * y)
    keep = ~np.isfinite(corrected) | (y == 0) | ~np.isfinite(y)
    return np.where(keep, y, corrected)


def float64_chunk(x: np.ndarray, names: tuple[str, ...]) -> list[tuple[float, int, int]]:
    torch.set_num_threads(1)
    reference = longdouble_cbrt(x)
    expected = reference.astype(np.float64)
    spacing = np.spacing(np.abs(expected)).astype(np.longdouble)
    results = []
    for name in names:
        actual = CANDIDATES[name](torch.from_numpy(x)).numpy()
        with np.errstate(all="ignore"):
            error = np.abs(actual.astype(np.longdouble) - reference) / spacing
        same = (actual == expected) | (np.isnan(actual) & np.isnan(expected))
        error = np.where(np.isnan(error), np.inf, error)
        error = np.where(same, np.minimum(error, 0.5), error).astype(np.float64)
        results.append((float(error.max()), int((~same).sum()), int((error > 1).sum())))
    return results


def sweep_float64(names: tuple[str, ...], workers: int, count: int, seed: int = 0) -> list[Report]:
    started = time.monotonic()
    x = float64_inputs(count, seed)
    chunks = np.array_split(x, max(1, len(x) // (1 << 21)))
    per_candidate = [[0.0, 0, 0] for _ in names]
    with worker_pool(workers) as pool:
        for result in pool.map(float64_chunk, chunks, [names] * len(chunks)):
            merge(per_candidate, result)
    seconds = time.monotonic() - started
    return [Report("torch.float64", n, len(x), a[0], a[1], a[2], seconds) for n, a in zip(names, per_candidate, strict=False)]


DTYPES = {"float32": torch.float32, "float16": torch.half, "bfloat16": torch.bfloat16, "float64": torch.float64}


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """Spawned workers whose malloc keeps freed chunks: without this, page faults triple the run time."""
    os.environ.setdefault("MALLOC_MMAP_THRESHOLD_", str(1 << 32))
    os.environ.setdefault("MALLOC_TRIM_THRESHOLD_", str(1 << 34))
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))


def run(dtypes: list[str], names: tuple[str, ...], workers: int, float64_count: int, limit: int | None) -> list[Report]:
    reports: list[Report] = []
    for dtype_name in dtypes:
        print(f"accuracy: {dtype_name} ...", file=sys.stderr)
        if dtype_name == "float64":
            reports += sweep_float64(names, workers, float64_count)
        else:
            reports += sweep_all(DTYPES[dtype_name], names, workers, limit)
    return reports


def markdown_table(reports: list[Report]) -> str:
    rows = ["| dtype | implementation | inputs | max ULP error | not correctly rounded | > 1 ULP |", "|---|---|---|---|---|---|"]
    for r in reports:
        rows.append(f"| {r.dtype.removeprefix('torch.')} | {r.candidate} | {r.inputs:,} | {r.max_ulp:.3g} "
                    f"| {r.not_correctly_rounded:,} | {r.over_one_ulp:,} |")
    return "\n".join(rows) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dtypes", nargs="+", default=list(DTYPES), choices=list(DTYPES))
    parser.add_argument("--candidates", nargs="+", default=["torch.cbrt"], choices=list(CANDIDATES))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--float64-count", type=int, default=10**8)
    parser.add_argument("--limit", type=int, help="check only the first N bit patterns (quick runs)")
    parser.add_argument("--json", help="also write the reports here")
    args = parser.parse_args()
    reports = run(args.dtypes, tuple(args.candidates), args.workers, args.float64_count, args.limit)
    print(markdown_table(reports), end="")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump([asdict(r) for r in reports], handle, indent=1)


if __name__ == "__main__":
    main()

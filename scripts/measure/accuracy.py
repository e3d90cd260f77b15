"""Exhaustive accuracy of cube-root implementations against a correctly rounded reference.

float32: every one of the 2^32 inputs. half, bfloat16: every one of the 2^16 inputs.
float64: random bit patterns plus every special and boundary class, against an
extended-precision (x87 long double) reference. Reports, per dtype and candidate,
the max ULP error and how many results are not correctly rounded.

torch.cbrt sees every input three times: contiguous (the vectorized loop), as a stride-2
view (the per-element path TensorIterator takes for strided inputs) and in rows of every
length from 1 to two vectors of the widest CPU vector (loop tails). An input counts as
wrong when any of the three results is; NaN and infinity where the exact cube root is
finite count as errors of infinite size.
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

from scripts.measure import exact_float32
from scripts.measure.alternatives import prims_composite, python_cube_root
from scripts.measure.machine import cpu_model

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
    "sign(x) * abs(x) ** (1/3)": python_cube_root,  # the usual Python cube root (CubeRootFunction prototype)
}

# The kernel under test goes through every layout; the other candidates are reference points, as users call them.
LAYOUT_CHECKED = ("torch.cbrt", "torch.cbrt (cuda)")
LAYOUTS = ("contiguous", "strided", "tails")
# AVX512's 64 bytes is the widest CPU vector; the vectorized loop takes two vectors per step, so row lengths
# 1 .. 2 * 64 bytes give every tail length of AVX512 and of every narrower capability.
WIDEST_VECTOR_BYTES = 64

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


def strided_view(x: torch.Tensor) -> torch.Tensor:
    """`x` as a stride-2 view: TensorIterator gives its elements one by one to the scalar path."""
    padded = torch.zeros(2 * len(x), dtype=x.dtype)
    padded[::2] = x
    return padded[::2]


def tail_rows(x: torch.Tensor) -> list[torch.Tensor]:
    """`x` cut into runs of rows of every length L in 1..2 vectors, each a view with a gap after every row,
    so that each row is one call of the vectorized loop ending in a tail of L modulo 2 vectors."""
    longest = 2 * WIDEST_VECTOR_BYTES // x.element_size()
    bounds = torch.linspace(0, len(x), longest + 1).long().tolist()
    views = []
    for length, (start, stop) in enumerate(zip(bounds, bounds[1:], strict=False), 1):
        segment = x[start:stop]
        rows, rest = divmod(len(segment), length)
        for part, width in ((segment[: rows * length].view(rows, length), length), (segment[rows * length :].view(1, rest), rest)):
            if part.numel():
                padded = torch.zeros(len(part), width + 1, dtype=x.dtype)
                padded[:, :width] = part
                views.append(padded[:, :width])
    return views


def results_by_layout(candidate: Candidate, x: torch.Tensor, name: str) -> list[torch.Tensor]:
    """The candidate's results for `x` in element order, once per layout it is checked in."""
    results = [candidate(x)]
    if name in LAYOUT_CHECKED:
        results.append(candidate(strided_view(x)))
        results.append(torch.cat([candidate(rows).flatten() for rows in tail_rows(x)]) if len(x) else results[0])
    return results


def differing_bits(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a.view(INT_OF[a.dtype]) != b.view(INT_OF[b.dtype])


Where = slice | np.ndarray
Score = Callable[[torch.Tensor, Where], torch.Tensor]


def worst_over_layouts(results: list[torch.Tensor], score: Score) -> torch.Tensor:
    """score(result, where) per input, the worst over the layouts; scored again only where a layout's bits differ."""
    worst = score(results[0], slice(None))
    for other in results[1:]:
        where = differing_bits(other, results[0]).nonzero().flatten().numpy()
        if len(where):
            worst[where] = torch.maximum(worst[where], score(other[where], where))
    return worst


def bit_patterns(dtype: torch.dtype, start: int, count: int) -> torch.Tensor:
    """The floats of `dtype` whose bit patterns, read as unsigned integers, are start .. start + count - 1."""
    sign_bit = 1 << (torch.finfo(dtype).bits - 1)
    if start >= sign_bit or start + count <= sign_bit:  # one run of signed integers: no wrap-around to fix
        signed_start = start - 2 * sign_bit if start >= sign_bit else start
        return torch.arange(signed_start, signed_start + count, dtype=INT_OF[dtype]).view(dtype)
    bits = torch.arange(start, start + count, dtype=torch.int64)
    bits = torch.where(bits >= sign_bit, bits - 2 * sign_bit, bits)
    return bits.to(INT_OF[dtype]).view(dtype)


def float32_chunk(x: torch.Tensor, names: tuple[str, ...]) -> list[tuple[float, int, int]]:
    """The candidates' scores on float32 inputs, from the exact scorer (integer arithmetic on cubes of midpoints)."""
    scores = []
    for name in names:
        results = [result.contiguous() for result in results_by_layout(CANDIDATES[name], x, name)]
        score = exact_float32.score(x, results)
        scores.append((score.max_ulp, score.not_correctly_rounded, score.over_one_ulp))
    return scores


def sweep_chunk(dtype: torch.dtype, start: int, count: int, names: tuple[str, ...]) -> list[tuple[float, int, int]]:
    """(max ULP error, not correctly rounded, over 1 ULP) per candidate for bit patterns start..start+count."""
    torch.set_num_threads(1)
    x = bit_patterns(dtype, start, count)
    if dtype == torch.float32:
        return float32_chunk(x, names)
    wide = wide_cbrt(x)
    expected = round_reference(x, dtype, wide)
    results = []
    for name in names:
        by_layout = results_by_layout(CANDIDATES[name], x, name)
        error = worst_over_layouts(by_layout, lambda a, i: ulp_error(a, x[i], expected[i], wide[i]))
        wrong = worst_over_layouts(by_layout, lambda a, i: (ulp_distance(a, expected[i]) > 0).double())
        results.append((float(error.max()), int(wrong.sum()), int((error > 1).sum())))
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


def float64_ulp_error(actual: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """|actual - cbrt(x)| in float64 ULPs, from reference = longdouble_cbrt(x); at most 0.5 where correctly rounded,
    inf for NaN or infinity where the cube root is not."""
    expected = reference.astype(np.float64)
    with np.errstate(all="ignore"):
        error = np.abs(actual.astype(np.longdouble) - reference) / np.spacing(np.abs(expected)).astype(np.longdouble)
    same = (actual == expected) | (np.isnan(actual) & np.isnan(expected))
    error = np.where(np.isnan(error), np.inf, error)
    return np.where(same, np.minimum(error, 0.5), error).astype(np.float64)


def error_against_exact_reference(actual: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(ULP error, not correctly rounded) of actual = cbrt(x) per element, any floating dtype, shape and layout."""
    flat_x, flat = x.detach().cpu().flatten(), actual.detach().cpu().flatten()
    if x.dtype == torch.float64:
        reference = longdouble_cbrt(flat_x.numpy())
        wrong = ~((flat.numpy() == reference.astype(np.float64)) | (flat.isnan().numpy() & np.isnan(flat_x.numpy())))
        return torch.from_numpy(float64_ulp_error(flat.numpy(), reference)), torch.from_numpy(wrong)
    expected = round_reference(flat_x, x.dtype)
    return ulp_error(flat, flat_x, expected), ulp_distance(flat, expected) > 0


def float64_chunk(x: np.ndarray, names: tuple[str, ...]) -> list[tuple[float, int, int]]:
    torch.set_num_threads(1)
    reference = longdouble_cbrt(x)
    expected = reference.astype(np.float64)

    def float64_error(actual: torch.Tensor, i: Where) -> torch.Tensor:
        return torch.from_numpy(float64_ulp_error(actual.numpy(), reference[i]))

    def float64_wrong(actual: torch.Tensor, i: Where) -> torch.Tensor:
        found = actual.numpy()
        return torch.from_numpy(~((found == expected[i]) | (np.isnan(found) & np.isnan(expected[i])))).double()

    results = []
    for name in names:
        by_layout = results_by_layout(CANDIDATES[name], torch.from_numpy(x), name)
        error = worst_over_layouts(by_layout, float64_error)
        wrong = worst_over_layouts(by_layout, float64_wrong)
        results.append((float(error.max()), int(wrong.sum()), int((error > 1).sum())))
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


def measured_on() -> str:
    """The line above the table: numpy's and torch.pow's results depend on the CPU and the library versions."""
    return (f"Measured on {cpu_model()} ({torch.backends.cpu.get_cpu_capability()} build), numpy {np.__version__}, "
            f"torch {torch.__version__}, {time.strftime('%Y-%m-%d')}. The torch.cbrt rows are this repository's kernel, "
            "the same bits on every CPU build; the other rows hold for that CPU and those versions.\n\n")


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
    print(measured_on() + markdown_table(reports), end="")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump([asdict(r) for r in reports], handle, indent=1)


if __name__ == "__main__":
    main()

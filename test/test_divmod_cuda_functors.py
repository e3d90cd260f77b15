"""divmod's CUDA arithmetic without a GPU: the element functions of ATen/native/cuda/DivMod.cuh, compiled as host code
(test/cuda_host/divmod_functors.cpp), give the bits of the CUDA kernels of floor_divide and remainder at the pin.

Those kernels (BinaryDivFloorKernel.cu, BinaryRemainderKernel.cu) are not in the wheel, so they are emulated here in
NumPy, step by step in their types, as the pin's sources write them:
- floor_divide with a tensor divisor is c10::div_floor_floating on scalar_t: for Half and BFloat16 the fmod, the
  difference and the division are float, and the floor and the correction round to scalar_t;
- floor_divide with a CPU scalar divisor reads it in accscalar_t and multiplies by its reciprocal (a zero divisor:
  true division, itself a * (1 / b) for a CPU scalar);
- remainder computes fmod and the sign correction in accscalar_t and rounds once;
- integers: Python's floor division and modulo, with INT_MIN // -1 wrapping.
Inputs are the special values crossed with each other and with random bit patterns, for every dtype. The host build
does not contract a * b + c into an FMA (-ffp-contract=off), so it shows the arithmetic as the source writes it.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from cuda_host_support import build_harness, storage, to_bfloat16, values_of

from scripts.layout import REPO_ROOT

HARNESS = REPO_ROOT / "test" / "cuda_host" / "divmod_functors.cpp"
INTEGERS = {"uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64}
FLOATS = ("float16", "bfloat16", "float32", "float64")
UNSIGNED_OF = {2: np.uint16, 4: np.uint32, 8: np.uint64}


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_harness(HARNESS, tmp_path_factory.mktemp("divmod-functors") / "divmod_functors", ["-ffp-contract=off"])


def run_harness(binary: Path, dtype: str, mode: str, a: np.ndarray, b: np.ndarray, folder: Path) -> tuple[np.ndarray,
                                                                                                          np.ndarray]:
    raw_a, raw_b = storage(a, dtype), storage(b, dtype)
    (folder / "in").write_bytes(raw_a.tobytes() + raw_b.tobytes())
    subprocess.run([str(binary), dtype, mode, str(folder / "in"), str(folder / "out")], check=True)
    out = np.frombuffer((folder / "out").read_bytes(), dtype=raw_a.dtype)
    return out[: a.size], out[a.size :]


def rounding_of(dtype: str) -> tuple[type, Callable[[np.ndarray], np.ndarray]]:
    """The accumulate type of the CUDA kernels (float for Half and BFloat16) and the rounding to scalar_t in it."""
    if dtype == "float16":
        return np.float32, lambda x: x.astype(np.float16).astype(np.float32)
    if dtype == "bfloat16":
        return np.float32, to_bfloat16
    acc = np.float32 if dtype == "float32" else np.float64
    return acc, lambda x: x.astype(acc)


def floor_steps(a: np.ndarray, mod: np.ndarray, div: np.ndarray, adjust: np.ndarray, sign_of_zero: np.ndarray,
                to_scalar: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """div_floor_floating's last steps: floordiv is scalar_t, so the floor and the +1 each round to it."""
    one, half = div.dtype.type(1), div.dtype.type(0.5)
    div = np.where(adjust, div - one, div)
    floordiv = to_scalar(np.floor(div))
    floordiv = np.where(div - floordiv > half, to_scalar(floordiv + one), floordiv)
    zero = to_scalar(np.copysign(np.zeros_like(div), sign_of_zero))
    return np.where(div != 0, floordiv, zero)


def floor_divide_by_tensor(a: np.ndarray, b: np.ndarray, dtype: str) -> np.ndarray:
    acc, to_scalar = rounding_of(dtype)
    a, b = a.astype(acc), b.astype(acc)
    mod = np.fmod(a, b)
    div = (a - mod) / b
    adjust = (mod != 0) & ((b < 0) != (mod < 0))
    quotient = floor_steps(a, mod, div, adjust, to_scalar(a / b), to_scalar)
    return np.where(b == 0, to_scalar(a / b), quotient)


def floor_divide_by_scalar(a: np.ndarray, b: np.ndarray, dtype: str) -> np.ndarray:
    acc, to_scalar = rounding_of(dtype)
    a, b = a.astype(acc), b.astype(acc)
    inv_b = acc(1) / b
    mod = np.fmod(a, b)
    div = (a - mod) * inv_b
    adjust = (mod != 0) & ((b < 0) != (mod < 0))
    quotient = floor_steps(a, mod, div, adjust, a * inv_b, to_scalar)
    return np.where(b == 0, to_scalar(a * inv_b), quotient)


def remainder(a: np.ndarray, b: np.ndarray, dtype: str) -> np.ndarray:
    acc, to_scalar = rounding_of(dtype)
    a, b = a.astype(acc), b.astype(acc)
    mod = np.fmod(a, b)
    return to_scalar(np.where((mod != 0) & ((b < 0) != (mod < 0)), mod + b, mod))


def float_values(dtype: str, rng: np.random.Generator, random: int) -> tuple[np.ndarray, np.ndarray]:
    """The special values (as float64: each is exact in dtype once rounded) and random bit patterns of dtype."""
    acc, to_scalar = rounding_of(dtype)
    info = np.finfo(np.float16 if dtype == "float16" else np.float32 if dtype in ("float32", "bfloat16") else acc)
    top = info.max if dtype != "bfloat16" else np.float32(3.3895313892515355e38)
    positive = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 7.0, 10.0, 1e-3, 0.1, 1 / 3, float(info.tiny), float(info.tiny) / 4,
                float(info.smallest_subnormal), float(top), float(top) / 3, float(info.eps), 1 / float(info.eps),
                float("inf"), float("nan")]
    specials = to_scalar(np.array(positive + [-v for v in positive], dtype=np.float64).astype(acc))
    if dtype == "bfloat16":
        bits = rng.integers(0, 1 << 16, random, dtype=np.uint32) << 16
        patterns = bits.view(np.float32)
    else:
        width = np.dtype(acc if dtype != "float16" else np.float16).itemsize
        patterns = rng.integers(0, np.iinfo(UNSIGNED_OF[width]).max, random, dtype=UNSIGNED_OF[width], endpoint=True)
        patterns = patterns.view(np.float16 if dtype == "float16" else acc).astype(acc)
    return specials.astype(acc), patterns


def pairs(specials: np.ndarray, patterns: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """specials x specials, patterns x specials both ways, and patterns against shuffled patterns."""
    sa, sb = np.meshgrid(specials, specials, indexing="ij")
    pa, pb = np.meshgrid(patterns[: 1 << 10], specials, indexing="ij")
    a = np.concatenate([sa.ravel(), pa.ravel(), pb.ravel(), patterns])
    b = np.concatenate([sb.ravel(), pb.ravel(), pa.ravel(), rng.permutation(patterns)])
    return a, b


def assert_same_bits(actual: np.ndarray, expected: np.ndarray, a: np.ndarray, b: np.ndarray, dtype: str,
                     what: str) -> None:
    """Equal bit patterns; any NaN equals any NaN (CUDA does not keep payloads)."""
    unsigned = f"u{actual.itemsize}"
    shown = values_of(actual, dtype)
    nan = np.isnan(shown) & np.isnan(expected)
    differ = (actual.view(unsigned) != storage(expected, dtype).view(unsigned)) & ~nan
    if differ.any():
        i = int(np.flatnonzero(differ)[0])
        raise AssertionError(f"{what} of {dtype}: {int(differ.sum())} of {differ.size} differ; first: a={a[i]!r} "
                             f"b={b[i]!r} gives {shown[i]!r}, the pin's kernel {expected[i]!r}")


@pytest.mark.parametrize("mode", ["tensors", "scalar"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_floating_outputs_are_floor_divides_and_remainders_bits(harness: Path, tmp_path: Path, dtype: str,
                                                                  mode: str) -> None:
    rng = np.random.default_rng(7)
    specials, patterns = float_values(dtype, rng, 1 << 16)
    a, b = pairs(specials, patterns, rng)
    quotient, rem = run_harness(harness, dtype, mode, a, b, tmp_path)
    with np.errstate(all="ignore"):
        expected = (floor_divide_by_scalar if mode == "scalar" else floor_divide_by_tensor)(a, b, dtype)
        assert_same_bits(quotient, expected, a, b, dtype, "quotient")
        assert_same_bits(rem, remainder(a, b, dtype), a, b, dtype, "remainder")


@pytest.mark.parametrize("dtype", INTEGERS)
def test_integer_outputs_are_floor_divides_and_remainders_for_every_nonzero_divisor(harness: Path, tmp_path: Path,
                                                                                     dtype: str) -> None:
    kind = INTEGERS[dtype]
    info = np.iinfo(kind)
    rng = np.random.default_rng(8)
    specials = np.array(sorted({v for v in (0, 1, 2, 3, 7, -1, -2, -3, -7, info.max, info.max - 1, info.min,
                                            info.min + 1) if info.min <= v <= info.max}), dtype=kind)
    patterns = rng.integers(info.min, info.max, 1 << 16, dtype=kind, endpoint=True)
    a, b = pairs(specials, patterns, rng)
    # The host traps on a % 0, and on INT_MIN % -1 for int and long (x86's idiv); on the device each is the same
    # instruction as remainder's, whose result PTX leaves unspecified for a zero divisor.
    kept = (b != 0) & ~((a == info.min) & (b == -1) & (np.dtype(kind).itemsize >= 4))
    a, b = a[kept], b[kept]
    quotient, rem = run_harness(harness, dtype, "tensors", a, b, tmp_path)
    wide_a, wide_b = a.astype(object), b.astype(object)  # Python ints: exact floor division and modulo
    expected_quotient = np.array([int(q) for q in wide_a // wide_b], dtype=object)
    span = 1 << (8 * np.dtype(kind).itemsize)
    wrapped = [q - span if q > info.max else q for q in expected_quotient]  # INT_MIN // -1 wraps to INT_MIN
    assert np.array_equal(quotient, np.array(wrapped, dtype=kind))
    assert np.array_equal(rem, (wide_a % wide_b).astype(kind))

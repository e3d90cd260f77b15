"""Digest torch.cbrt's result bits in this process's CPU capability (run by test_cpu_capabilities.py).

Prints one JSON object: per dtype, a digest of the result bits for every chunk of inputs (NaN results
canonicalized: payloads are not portable), and a list of violations found in this process: a strided
or tail result that differs from the contiguous one, or a NaN returned for an input that is not NaN.
"""

from __future__ import annotations

import argparse
import hashlib
import json

import torch

from scripts.measure import exact_float32

FLOAT32_CHUNK = 1 << 24
# Longer than two vectors of the widest dtype (bfloat16 on AVX512: 32 lanes), so every tail length occurs.
TAIL_LENGTHS = range(1, 2 * 64 + 2)
INT_OF = {torch.float32: torch.int32, torch.float64: torch.int64, torch.float16: torch.int16, torch.bfloat16: torch.int16}
CANONICAL_NAN = {torch.float32: 0x7FC00000, torch.float64: 0x7FF8000000000000, torch.float16: 0x7E00, torch.bfloat16: 0x7FC0}


def result_bits(x: torch.Tensor, y: torch.Tensor, violations: list[str], what: str) -> torch.Tensor:
    """y's bits with NaNs canonicalized; a NaN for a non-NaN input is a violation."""
    nan = y != y
    if (nan & (x == x)).any():
        violations.append(f"{what}: NaN for {x[nan & (x == x)][:4].tolist()}")
    return torch.where(nan, CANONICAL_NAN[y.dtype], y.view(INT_OF[y.dtype]))


def checked_bits(x: torch.Tensor, violations: list[str], what: str, spread: torch.Tensor | None = None) -> torch.Tensor:
    """Bits of cbrt(x) through the vectorized path, after checking the strided path gives the same.

    `spread` (twice x's size, reused across calls) holds x at every other element.
    """
    contiguous = result_bits(x, torch.cbrt(x), violations, what)
    if spread is None:
        spread = torch.empty(2 * x.numel(), dtype=x.dtype)
    spread[::2] = x
    strided = result_bits(x, torch.cbrt(spread[::2]), violations, what + " strided")
    if not torch.equal(contiguous, strided):
        violations.append(f"{what}: strided results differ for inputs {x[contiguous != strided][:4].tolist()}")
    return contiguous


def digest(bits: torch.Tensor) -> str:
    return hashlib.blake2b(memoryview(bits.numpy()), digest_size=16).hexdigest()


def float32_starts(step: int, share: int, shares: int) -> list[int]:
    """The first bit pattern of each chunk of 2^24 this process digests: every step-th chunk, and of those the
    share-th of `shares` equal runs."""
    starts = list(range(-(2**31), 2**31, FLOAT32_CHUNK * step))
    size = -(-len(starts) // shares)
    return starts[share * size : (share + 1) * size]


def float32_digests(starts: list[int], violations: list[str]) -> list[str]:
    """One digest per chunk of 2^24 consecutive bit patterns, from the exact scorer's library (a digest in C: the
    hash, not the kernel, was the cost)."""
    digests = []
    result = torch.empty(FLOAT32_CHUNK, dtype=torch.float32)
    spread = torch.empty(2 * FLOAT32_CHUNK, dtype=torch.float32)
    for start in starts:
        x = torch.arange(start, start + FLOAT32_CHUNK, dtype=torch.int32).view(torch.float32)
        contiguous, nans = exact_float32.digest(x, torch.cbrt(x, out=result), 0)
        spread[::2] = x
        strided, _ = exact_float32.digest(x, torch.cbrt(spread[::2]).contiguous(), 0)
        if nans:
            violations.append(f"float32 chunk at {start:#x}: NaN for {nans} inputs that are not NaN")
        if strided != contiguous:
            violations.append(f"float32 chunk at {start:#x}: strided results differ from contiguous ones")
        digests.append(f"{contiguous:016x}")
    return digests


def float64_inputs(count: int) -> torch.Tensor:
    """Random bit patterns, every class of special value, and the neighbours of the normal/subnormal edge."""
    random = torch.randint(-(2**63), 2**63 - 1, (count,), dtype=torch.int64, generator=torch.Generator().manual_seed(0))
    edges = torch.tensor([0, 1, 2, 0x000FFFFFFFFFFFFF, 0x0010000000000000, 0x0010000000000001, 0x7FEFFFFFFFFFFFFF,
                          0x7FF0000000000000, 0x7FF8000000000000, 0x7FF0000000000001], dtype=torch.int64)
    return torch.cat([random, edges, edges | -(2**63)]).view(torch.float64)


def tail_violations(x: torch.Tensor, violations: list[str]) -> None:
    """cbrt of every prefix of x (each tail length) equals the prefix of cbrt(x)."""
    whole = result_bits(x, torch.cbrt(x), violations, "tail")
    for length in TAIL_LENGTHS:
        for offset in (0, 1, 3):
            part = x[offset : offset + length]
            if not torch.equal(result_bits(part, torch.cbrt(part), violations, "tail"), whole[offset : offset + length]):
                violations.append(f"{x.dtype}: a tail of {length} elements at offset {offset} differs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--float32-step", type=int, default=1, help="check every N-th chunk of float32 inputs")
    parser.add_argument("--float64-count", type=int, default=1 << 22)
    parser.add_argument("--share", type=int, nargs=2, default=(0, 1), metavar=("K", "N"),
                        help="digest the K-th of N equal shares of the float32 chunks (share 0 also does the rest)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    share, shares = args.share
    violations: list[str] = []
    capability = torch.backends.cpu.get_cpu_capability()
    if share > 0:
        digests = float32_digests(float32_starts(args.float32_step, share, shares), violations)
        print(json.dumps({"capability": capability, "float32": digests, "violations": violations[:20]}))
        return
    all_16bit = torch.arange(-(2**15), 2**15, dtype=torch.int16)
    result = {
        "capability": capability,
        "float16": [digest(checked_bits(all_16bit.view(torch.float16), violations, "float16"))],
        "bfloat16": [digest(checked_bits(all_16bit.view(torch.bfloat16), violations, "bfloat16"))],
        "float64": [digest(checked_bits(float64_inputs(args.float64_count), violations, "float64"))],
    }
    # Special values, subnormals and normals side by side, for the tails of every dtype.
    mixed32 = torch.tensor([0, 1, 0x7FFFFF, 0x800000, 0x7F800000, 0x7FC00000, 0x3F800000, 0x41D80000] * 40, dtype=torch.int32)
    mixed32 = mixed32 ^ (torch.arange(mixed32.numel(), dtype=torch.int32) % 3 == 0).to(torch.int32) * (-(2**31))
    tail_violations(mixed32.view(torch.float32), violations)
    tail_violations(float64_inputs(320), violations)
    for dtype in (torch.float16, torch.bfloat16):
        tail_violations(all_16bit[torch.randperm(all_16bit.numel(), generator=torch.Generator().manual_seed(1))][:320].view(dtype), violations)
    result["float32"] = float32_digests(float32_starts(args.float32_step, share, shares), violations)
    result["violations"] = violations[:20]
    print(json.dumps(result))


if __name__ == "__main__":
    main()

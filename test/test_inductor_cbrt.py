"""torch.compile on CPU gives eager's bits: Inductor's C++ calls Vectorized<T>::cbrt() and its scalar form
at::vec::cbrt_detail::cbrt_scalar.

Every half and bfloat16 input, and 2^20 random float32 and float64 bit patterns with the special classes, through
a compiled kernel with vectorization on and off, contiguous with loop tails and transposed.
"""

from __future__ import annotations

import pytest
import torch
from torch._inductor import config
from torch._inductor.utils import run_and_get_code

BITS = {torch.float16: torch.int16, torch.bfloat16: torch.int16, torch.float32: torch.int32, torch.float64: torch.int64}
SAMPLE = 1 << 20


def every_input(dtype: torch.dtype) -> torch.Tensor:
    """All bit patterns of a 16-bit dtype; for float and double, special values then random bit patterns."""
    integer = BITS[dtype]
    if integer == torch.int16:
        return torch.arange(-(1 << 15), 1 << 15, dtype=torch.int32).to(integer).view(dtype)
    info = torch.finfo(dtype)
    special = torch.tensor(
        [0.0, info.tiny, info.tiny * info.eps, info.max, float("inf"), float("nan"), 1.0, 8.0, -27.0, 1e-30],
        dtype=dtype,
    )
    special = torch.cat([special, -special, torch.nextafter(special, torch.zeros_like(special))])
    low, high = torch.iinfo(integer).min, torch.iinfo(integer).max
    random = torch.randint(
        low, high, (SAMPLE - special.numel(),), dtype=integer, generator=torch.Generator().manual_seed(0)
    )
    return torch.cat([special, random.view(dtype)])


def bits(x: torch.Tensor) -> torch.Tensor:
    """Bit patterns, with every NaN made one, since payloads are not portable."""
    canonical = torch.where(x.isnan(), torch.full_like(x, float("nan")), x)
    return canonical.contiguous().view(BITS[x.dtype])


def assert_same_bits(actual: torch.Tensor, expected: torch.Tensor) -> None:
    differ = (bits(actual) != bits(expected)).flatten().nonzero().flatten()
    assert differ.numel() == 0, (
        f"{differ.numel()} of {actual.numel()} differ, first at {differ[:3].tolist()}: "
        f"{actual.flatten()[differ[:3]].tolist()} != {expected.flatten()[differ[:3]].tolist()}"
    )


def both_cbrts(contiguous: torch.Tensor, transposed: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.cbrt(contiguous), torch.cbrt(transposed)


@pytest.mark.parametrize("vectorized", [True, False], ids=["vectorized", "scalar"])
@pytest.mark.parametrize("dtype", list(BITS), ids=lambda d: str(d).removeprefix("torch."))
def test_compiled_cbrt_gives_eager_bits(dtype: torch.dtype, vectorized: bool) -> None:
    x = every_input(dtype)
    contiguous = x[1:]  # odd length, so vectorized loops end in a tail
    transposed = x.view(256, -1).t()
    torch._dynamo.reset()
    with config.patch({"cpp.simdlen": None if vectorized else 1}):
        (first, second), (code, *_) = run_and_get_code(
            torch.compile(both_cbrts, fullgraph=True), contiguous, transposed
        )
    assert (".cbrt()" if vectorized else "at::vec::cbrt_detail::cbrt_scalar(") in code, code
    assert "std::cbrt" not in code and "aten.cbrt" not in code, code
    assert_same_bits(first, torch.cbrt(contiguous))
    assert_same_bits(second, torch.cbrt(transposed))


LOW_PRECISION_FUNCTION = {
    torch.float16: "at::vec::cbrt_detail::cbrt_scalar(static_cast<c10::Half>(",
    torch.bfloat16: "at::vec::cbrt_detail::cbrt_scalar(static_cast<c10::BFloat16>(",
}


@pytest.mark.parametrize("vectorized", [True, False], ids=["vectorized", "scalar"])
@pytest.mark.parametrize("dtype", list(LOW_PRECISION_FUNCTION), ids=lambda d: str(d).removeprefix("torch."))
def test_low_precision_cbrt_kernel_rounds_once_without_float_conversion(dtype: torch.dtype, vectorized: bool) -> None:
    """A kernel of loads, stores and cbrt computes half and bfloat16 in their own dtype, as eager does: no conversion
    to float, whose cube root rounded to half lands one value off on 20 of the 65,536 inputs (those are checked by
    value; for bfloat16 no input differs, so the generated code is what shows it)."""
    x = every_input(dtype)
    eager = torch.cbrt(x)
    float_then_rounded = torch.cbrt(x.float()).to(dtype)
    double_rounded = (bits(float_then_rounded) != bits(eager)).nonzero().flatten()
    assert double_rounded.numel() == (20 if dtype == torch.float16 else 0)
    torch._dynamo.reset()
    with config.patch({"cpp.simdlen": None if vectorized else 1}):
        result, (code, *_) = run_and_get_code(torch.compile(torch.cbrt, fullgraph=True), x)
    assert (".cbrt()" if vectorized else LOW_PRECISION_FUNCTION[dtype]) in code, code
    assert "convert<float" not in code, code
    assert_same_bits(result[double_rounded], eager[double_rounded])
    assert_same_bits(result, eager)

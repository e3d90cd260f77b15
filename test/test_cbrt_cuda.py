"""The CUDA kernel equals the CPU kernel bit for bit and follows IEEE at the extremes; skipped where no GPU is
visible. The accuracy of both against a correctly rounded reference is scripts/measure/accuracy.py's job."""

from __future__ import annotations

import math

import pytest
import torch

from scripts.gpu.bitwise import DTYPES as BITWISE_DTYPES
from scripts.gpu.bitwise import compare

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")

DTYPES = [torch.float32, torch.float64, torch.half, torch.bfloat16]


@pytest.mark.parametrize("dtype", BITWISE_DTYPES)
def test_cuda_equals_cpu_bit_for_bit_on_every_half_and_a_sample_of_wider_inputs(dtype: str) -> None:
    result = compare(BITWISE_DTYPES[dtype], "cuda", sample=1 << 22, seed=1)
    assert result["different"] == 0, result


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_cuda_extreme_values(dtype: torch.dtype) -> None:
    x = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, -27.0, 8.0], dtype=dtype, device="cuda")
    expected = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, -3.0, 2.0], dtype=dtype)
    result = torch.cbrt(x).cpu()
    torch.testing.assert_close(result, expected, equal_nan=True, atol=0, rtol=0)
    assert result[1].signbit()


def test_cuda_autograd_and_integer_promotion() -> None:
    x = torch.tensor([-8.0, 1.0, 27.0], dtype=torch.float64, device="cuda", requires_grad=True)
    assert torch.autograd.gradcheck(torch.cbrt, (x,))
    assert torch.cbrt(torch.tensor([8], device="cuda")).dtype == torch.float32


def test_cuda_sparse_and_compile() -> None:
    dense = torch.tensor([[0.0, -8.0], [27.0, 0.0]], device="cuda")
    torch.testing.assert_close(torch.cbrt(dense.to_sparse()).to_dense(), torch.cbrt(dense))
    torch._dynamo.reset()
    compiled = torch.compile(torch.cbrt)
    x = torch.randn(4096, device="cuda") * 100
    torch.testing.assert_close(compiled(x), torch.cbrt(x))

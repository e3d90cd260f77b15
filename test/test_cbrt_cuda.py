"""The CUDA kernel agrees with the CPU kernel; skipped where no GPU is visible."""

from __future__ import annotations

import math

import pytest
import torch

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")

DTYPES = [torch.float32, torch.float64, torch.half, torch.bfloat16]


INT_OF = {torch.float32: torch.int32, torch.float64: torch.int64, torch.half: torch.int16, torch.bfloat16: torch.int16}


def every_or_sampled_input(dtype: torch.dtype) -> torch.Tensor:
    """Every half and bfloat16 value; 2^24 float32 and 2^22 float64 random bit patterns."""
    bits = INT_OF[dtype]
    if bits == torch.int16:
        return torch.arange(-(2**15), 2**15, dtype=bits).view(dtype)
    info = torch.iinfo(bits)
    count = 1 << 24 if dtype == torch.float32 else 1 << 22
    return torch.randint(info.min, info.max, (count,), dtype=bits, generator=torch.Generator().manual_seed(0)).view(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_cuda_gives_the_cpu_bits(dtype: torch.dtype) -> None:
    x = every_or_sampled_input(dtype)
    on_gpu, on_cpu = torch.cbrt(x.cuda()).cpu(), torch.cbrt(x)
    assert torch.equal(on_gpu.isnan(), x.isnan())
    same = (on_gpu.view(INT_OF[dtype]) == on_cpu.view(INT_OF[dtype])) | x.isnan()
    assert bool(same.all()), f"{int((~same).sum())} results differ, first for inputs {x[~same][:4].tolist()}"


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

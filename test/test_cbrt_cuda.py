"""torch.cbrt on CUDA: within libdevice's documented error of the correctly rounded cube root, eager equal to
torch.compile'd code bit for bit, IEEE at the extremes, every dtype, layout and variant; skipped where no GPU is
visible. scripts/gpu/check.sh sweeps every float32, half and bfloat16 input against the same bounds
(scripts/gpu/bounds.py, which derives them)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from scripts.gpu import bitwise
from scripts.gpu.bounds import DOCUMENTED_ULP, MAX_ULP
from scripts.measure.accuracy import error_against_exact_reference, longdouble_cbrt, round_reference, ulp_distance

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")

DTYPES = {"float32": torch.float32, "float64": torch.float64, "float16": torch.half, "bfloat16": torch.bfloat16}
SAMPLE = 1 << 22  # random float32 and float64 bit patterns, besides bitwise.inputs' special classes


def correctly_rounded(x: torch.Tensor) -> torch.Tensor:
    if x.dtype == torch.float64:
        return torch.from_numpy(longdouble_cbrt(x.numpy()).astype(np.float64))
    return round_reference(x, x.dtype)


def on_cuda(x: torch.Tensor) -> torch.Tensor:
    return torch.cbrt(x.cuda()).cpu()


def same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    return bool(((a.view(bitwise.INT_OF[a.dtype]) == b.view(bitwise.INT_OF[b.dtype])) | (a.isnan() & b.isnan())).all())


@pytest.mark.parametrize("name", DTYPES)
def test_cuda_is_within_libdevices_documented_error(name: str) -> None:
    x = bitwise.inputs(DTYPES[name], SAMPLE, seed=1)
    actual = on_cuda(x)
    error, _ = error_against_exact_reference(actual, x)
    assert float(error.max()) <= MAX_ULP[name], (float(error.max()), float(x[int(error.argmax())]))
    if name in ("float32", "float64"):  # the documented measure itself: ULPs from the correctly rounded result
        steps = ulp_distance(actual, correctly_rounded(x))
        assert float(steps.max()) <= DOCUMENTED_ULP, (float(steps.max()), float(x[int(steps.argmax())]))


@pytest.mark.parametrize("name", DTYPES)
def test_compiled_cuda_gives_eager_bits(name: str) -> None:
    if not bitwise.lowering_available():
        pytest.skip("this torch has no inductor lowering of cbrt (the overlay left the topic's Python fragments out)")
    result = bitwise.compare(DTYPES[name], "cuda", sample=SAMPLE, seed=1)
    assert result["lowered"] and result["different"] == 0, result


@pytest.mark.parametrize("dtype", DTYPES.values(), ids=str)
def test_cuda_extreme_values(dtype: torch.dtype) -> None:
    x = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan], dtype=dtype)
    result = on_cuda(x)
    torch.testing.assert_close(result, x, equal_nan=True, atol=0, rtol=0)
    assert not result[0].signbit() and result[1].signbit()


@pytest.mark.parametrize("dtype", DTYPES.values(), ids=str)
def test_cuda_subnormals_have_their_cube_roots(dtype: torch.dtype) -> None:
    info = torch.finfo(dtype)
    positive = torch.tensor([info.smallest_normal * info.eps, info.tiny / 2, info.tiny * (1 - info.eps)], dtype=dtype)
    x = torch.cat([positive, -positive])
    assert bool(((x != 0) & (x.abs() < info.tiny)).all())
    result = on_cuda(x)
    assert bool((result.abs() >= info.tiny).all()) and bool((result.signbit() == x.signbit()).all())
    error, _ = error_against_exact_reference(result, x)
    assert float(error.max()) <= MAX_ULP[str(dtype).removeprefix("torch.")]


@pytest.mark.parametrize("dtype", DTYPES.values(), ids=str)
def test_every_layout_and_variant_gives_the_contiguous_bits(dtype: torch.dtype) -> None:
    x = bitwise.inputs(dtype, 1 << 16, seed=2)[: 1 << 16].cuda()
    expected = torch.cbrt(x).cpu()
    assert torch.cbrt(x).dtype == dtype
    spread = torch.empty(2 * x.numel(), dtype=dtype, device="cuda")
    spread[::2] = x
    misaligned = torch.empty(x.numel() + 1, dtype=dtype, device="cuda")[1:]
    misaligned.copy_(x)
    transposed = x.view(256, -1).t()
    assert same_bits(torch.cbrt(spread[::2]).cpu(), expected)  # strided: gpu_kernel's element-wise path
    assert same_bits(torch.cbrt(misaligned).cpu(), expected)  # unaligned: not vectorized
    assert same_bits(torch.cbrt(transposed).t().reshape(-1).cpu(), expected)
    out = torch.empty_like(x)
    torch.cbrt(x, out=out)
    assert same_bits(out.cpu(), expected)
    in_place = x.clone()
    in_place.cbrt_()
    assert same_bits(in_place.cpu(), expected)


def test_cuda_integer_inputs_promote_to_the_default_float_type() -> None:
    integers = torch.tensor([-27, -8, 0, 1, 8, 1000], device="cuda")
    result = torch.cbrt(integers)
    assert result.dtype == torch.get_default_dtype()
    assert same_bits(result.cpu(), torch.cbrt(integers.float()).cpu())
    assert torch.cbrt(torch.tensor([True, False], device="cuda")).dtype == torch.float32


def test_cuda_autograd_and_sparse() -> None:
    x = torch.tensor([-8.0, 1.0, 27.0], dtype=torch.float64, device="cuda", requires_grad=True)
    assert torch.autograd.gradcheck(torch.cbrt, (x,))
    dense = torch.tensor([[0.0, -8.0], [27.0, 0.0]], device="cuda")
    assert same_bits(torch.cbrt(dense.to_sparse()).to_dense().cpu(), torch.cbrt(dense).cpu())

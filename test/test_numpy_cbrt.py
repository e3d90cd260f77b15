"""torch._numpy.cbrt is numpy.cbrt's real cube root and stays differentiable, as it was when it computed pow(x, 1/3).

Expected values come from numpy.cbrt in long double, not from the kernel.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

if not hasattr(torch, "cbrt"):
    pytest.skip("the overlay is not built: run `make`", allow_module_level=True)

import torch._numpy as tnp

VALUES = [-1e300, -1000.0, -27.0, -2.0, -0.125, -1e-300, 1e-300, 0.125, 2.0, 27.0, 1000.0, 1e300]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
def test_negative_inputs_give_the_real_cube_root_of_numpy(dtype: torch.dtype) -> None:
    x = torch.tensor(VALUES, dtype=torch.float64).to(dtype)
    result = tnp.cbrt(tnp.asarray(x)).tensor
    assert result.dtype == dtype
    assert torch.equal(result, torch.cbrt(x))
    expected = np.cbrt(x.numpy().astype(np.longdouble)).astype(np.float64)
    np.testing.assert_allclose(result.double().numpy(), expected, rtol=torch.finfo(dtype).eps, atol=0)


def test_backward_is_one_over_three_cbrt_squared() -> None:
    x = torch.tensor(VALUES[1:-1], dtype=torch.float64, requires_grad=True)
    tnp.cbrt(tnp.asarray(x)).tensor.sum().backward()
    exact = np.cbrt(x.detach().numpy().astype(np.longdouble))
    expected = (1 / (3 * exact * exact)).astype(np.float64)
    # The formula rounds the result (0.67 ULP), squares it, triples and divides: a few ULP in all.
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=4 * np.finfo(np.float64).eps, atol=0)


def test_gradcheck_and_gradgradcheck() -> None:
    x = torch.tensor([-8.0, -1.5, -0.3, 0.2, 1.0, 64.0], dtype=torch.float64, requires_grad=True)

    def cbrt(t: torch.Tensor) -> torch.Tensor:
        return tnp.cbrt(tnp.asarray(t)).tensor

    assert torch.autograd.gradcheck(cbrt, (x,))
    assert torch.autograd.gradgradcheck(cbrt, (x,))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=["complex64", "complex128"])
def test_complex_input_raises_numpys_type_error(dtype: type) -> None:
    """numpy.cbrt has no complex loop; stock torch._numpy.cbrt returned pow(x, 1/3), the principal complex root."""
    x = np.array([-8.0 + 0j, 1j], dtype=dtype)
    with pytest.raises(TypeError) as from_numpy:
        np.cbrt(x)
    with pytest.raises(TypeError) as from_torch:
        tnp.cbrt(tnp.asarray(x))
    assert str(from_torch.value) == str(from_numpy.value)

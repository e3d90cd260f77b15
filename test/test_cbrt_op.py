"""torch.cbrt in the overlay venv: every variant, dtype, extreme input, subsystem and error."""

from __future__ import annotations

import math
import warnings

import pytest
import torch
from expecttest import TestCase

from scripts.measure.accuracy import error_against_exact_reference

FLOATING = [torch.float32, torch.float64, torch.half, torch.bfloat16]
INTEGRAL = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
EXTREMES = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 8.0, -27.0]


# The documented bounds (docs/cbrt.md "Accuracy"): half and bfloat16 correctly rounded.
DOCUMENTED_MAX_ULP = {torch.float32: 0.75, torch.float64: 0.67, torch.half: 0.5, torch.bfloat16: 0.5}


def assert_within_documented_bound(actual: torch.Tensor, x: torch.Tensor) -> None:
    """Against scripts/measure/accuracy.py's exact reference (never torch.cbrt): within the dtype's ULP bound, and
    correctly rounded where the bound is half an ULP."""
    error, wrong = error_against_exact_reference(actual, x)
    worst = int(error.argmax())
    assert float(error[worst]) <= DOCUMENTED_MAX_ULP[x.dtype], (x.flatten()[worst], actual.flatten()[worst], error[worst])
    if DOCUMENTED_MAX_ULP[x.dtype] == 0.5:
        assert not wrong.any(), x.flatten()[wrong][:8]


def random_bit_patterns(dtype: torch.dtype, count: int = 1 << 16) -> torch.Tensor:
    bits = torch.finfo(dtype).bits
    drawn = torch.randint(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1, (count,), generator=torch.Generator().manual_seed(7))
    return drawn.to({16: torch.int16, 32: torch.int32, 64: torch.int64}[bits]).view(dtype)


def test_kernels_are_registered_for_cpu_meta_and_autograd() -> None:
    table = torch._C._dispatch_dump_table("aten::cbrt")
    for key in ("CPU:", "Meta:", "AutogradCPU:", "SparseCPU:", "SparseCsrCPU:", "FuncTorchBatched:"):
        assert any(line.startswith(key) and "registered" in line for line in table.splitlines()), key


@pytest.mark.parametrize("dtype", FLOATING, ids=str)
def test_every_floating_dtype_is_within_its_documented_ulp_bound_of_an_exact_reference(dtype: torch.dtype) -> None:
    x = torch.cat([torch.linspace(-1000, 1000, 10001, dtype=torch.float64).to(dtype), random_bit_patterns(dtype)])
    assert_within_documented_bound(torch.cbrt(x), x)
    assert_within_documented_bound(torch.cbrt(x[::3]), x[::3])  # strided: the per-element path


@pytest.mark.parametrize("dtype", INTEGRAL, ids=str)
def test_integral_inputs_promote_to_the_default_float_dtype(dtype: torch.dtype) -> None:
    x = torch.tensor([0, 1, 8, 27, 64], dtype=torch.int64).to(dtype)
    result = torch.cbrt(x)
    assert result.dtype == torch.get_default_dtype()
    perfect_cubes = {0: 0.0, 1: 1.0, 8: 2.0, 27: 3.0, 64: 4.0}  # bool inputs are 0 and 1
    expected = torch.tensor([perfect_cubes[int(v)] for v in x.tolist()])
    torch.testing.assert_close(result, expected, atol=0, rtol=0)


@pytest.mark.parametrize("dtype", FLOATING, ids=str)
def test_extreme_values_follow_ieee(dtype: torch.dtype) -> None:
    x = torch.tensor(EXTREMES, dtype=dtype)
    expected = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 2.0, -3.0], dtype=dtype)
    result = torch.cbrt(x)
    torch.testing.assert_close(result, expected, equal_nan=True, atol=0, rtol=0)
    assert torch.equal(torch.signbit(result[:2]), torch.tensor([False, True]))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_subnormal_inputs_are_within_the_documented_bound(dtype: torch.dtype) -> None:
    tiny = torch.finfo(dtype).smallest_normal
    x = torch.tensor([tiny / 2, tiny / 1024, tiny * torch.finfo(dtype).eps, -tiny / 3], dtype=dtype)
    assert_within_documented_bound(torch.cbrt(x), x)


def test_empty_and_zero_dim_tensors() -> None:
    assert torch.cbrt(torch.empty(0, 3)).shape == (0, 3)
    assert torch.cbrt(torch.tensor(-8.0)).item() == -2.0


def test_non_contiguous_and_every_other_element_give_the_contiguous_bits() -> None:
    x = torch.randn(64, 33, dtype=torch.float64) * 100
    torch.testing.assert_close(torch.cbrt(x.t()), torch.cbrt(x.t().contiguous()), atol=0, rtol=0)
    torch.testing.assert_close(torch.cbrt(x[:, ::2]), torch.cbrt(x)[:, ::2], atol=0, rtol=0)


def test_out_inplace_method_and_function_forms_agree() -> None:
    x = torch.randn(1000) * 50
    expected = torch.cbrt(x)
    out = torch.empty_like(x)
    assert torch.cbrt(x, out=out) is out
    inplace = x.clone()
    assert inplace.cbrt_() is inplace
    for result in (out, inplace, x.cbrt(), torch.ops.aten.cbrt.default(x), torch.cbrt(input=x)):
        torch.testing.assert_close(result, expected, atol=0, rtol=0)


def test_meta_tensors_give_shape_and_dtype_without_data() -> None:
    result = torch.cbrt(torch.empty(4, 5, dtype=torch.int32, device="meta"))
    assert (result.device.type, result.shape, result.dtype) == ("meta", (4, 5), torch.float32)


def test_fake_tensor_mode_propagates_metadata() -> None:
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode() as mode:
        result = torch.cbrt(mode.from_tensor(torch.randn(3, 2, dtype=torch.half)))
    assert (result.shape, result.dtype) == ((3, 2), torch.half)


def test_backward_is_one_third_over_result_squared_and_inf_at_zero() -> None:
    x = torch.tensor([-27.0, -8.0, 1.0, 8.0, 0.0], dtype=torch.float64, requires_grad=True)
    torch.cbrt(x).sum().backward()
    expected = torch.tensor([1 / 27, 1 / 12, 1 / 3, 1 / 12, math.inf], dtype=torch.float64)
    torch.testing.assert_close(x.grad, expected)


def test_gradcheck_and_gradgradcheck_away_from_zero() -> None:
    x = torch.linspace(-2, 2, 20, dtype=torch.float64).requires_grad_()
    assert torch.autograd.gradcheck(torch.cbrt, (x,))
    assert torch.autograd.gradgradcheck(torch.cbrt, (x,))
    assert torch.autograd.gradcheck(torch.cbrt, (x,), check_forward_ad=True, check_backward_ad=False)


def test_forward_ad_through_torch_func_jvp() -> None:
    x = torch.tensor([-8.0, 1.0, 27.0], dtype=torch.float64)
    value, tangent = torch.func.jvp(torch.cbrt, (x,), (torch.ones_like(x),))
    torch.testing.assert_close(value, torch.tensor([-2.0, 1.0, 3.0], dtype=torch.float64))
    torch.testing.assert_close(tangent, 1 / (3 * value**2))


def test_vmap_uses_a_batch_rule_not_the_fallback() -> None:
    x = torch.randn(4, 7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch._C._functorch._set_vmap_fallback_warning_enabled(True)
        try:
            batched = torch.func.vmap(torch.cbrt)(x)
            inplace = x.clone()
            torch.func.vmap(torch.Tensor.cbrt_)(inplace)
        finally:
            torch._C._functorch._set_vmap_fallback_warning_enabled(False)
    torch.testing.assert_close(batched, torch.cbrt(x), atol=0, rtol=0)
    torch.testing.assert_close(inplace, torch.cbrt(x), atol=0, rtol=0)


def test_torch_compile_on_cpu_matches_eager() -> None:
    torch._dynamo.reset()
    x = torch.randn(257) * 100
    compiled = torch.compile(lambda t: torch.cbrt(t) + 1, fullgraph=True)
    torch.testing.assert_close(compiled(x), torch.cbrt(x) + 1)


def test_refs_and_prims_are_wired_to_the_operator() -> None:
    # refs.cbrt -> prims.cbrt -> torch.cbrt: equal results prove the wiring, not accuracy.
    import torch._prims as prims
    import torch._refs as refs

    x = torch.randn(100, dtype=torch.float64) * 10
    torch.testing.assert_close(refs.cbrt(x), torch.cbrt(x), atol=0, rtol=0)
    torch.testing.assert_close(prims.cbrt(x), torch.cbrt(x), atol=0, rtol=0)
    assert refs.cbrt(torch.tensor([8])).dtype == torch.float32


def test_sparse_coo_and_csr_keep_their_layout_and_values() -> None:
    dense = torch.tensor([[0.0, -8.0, 0.0], [27.0, 0.0, 1.0]])
    expected = torch.tensor([[0.0, -2.0, 0.0], [3.0, 0.0, 1.0]])
    for sparse in (dense.to_sparse(), dense.to_sparse_csr()):
        result = torch.cbrt(sparse)
        assert result.layout == sparse.layout
        torch.testing.assert_close(result.to_dense(), expected, atol=0, rtol=0)
    coo = dense.to_sparse()
    coo.cbrt_()
    torch.testing.assert_close(coo.to_dense(), expected, atol=0, rtol=0)


def test_testing_overrides_and_torch_function_dispatch() -> None:
    assert torch.cbrt in torch.overrides.get_testing_overrides()

    class Tracer(torch.Tensor):
        calls: list[str] = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN206
            cls.calls.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})

    x = torch.ones(2).as_subclass(Tracer)
    torch.cbrt(x)
    x.cbrt()
    assert Tracer.calls[:2] == ["cbrt", "cbrt"]


class TestErrors(TestCase):
    def test_complex_input_is_not_implemented(self) -> None:
        with self.assertRaises(RuntimeError) as caught:
            torch.cbrt(torch.ones(2, dtype=torch.cfloat))
        self.assertExpectedInline(
            str(caught.exception),
            """cbrt is not implemented for complex tensors: it is the real cube root. For the principal complex cube root, use torch.pow(input, 1.0 / 3).""",  # noqa: B950
        )

    def test_complex_meta_and_fake_tensors_are_rejected_like_cpu(self) -> None:
        """The Python meta kernel (torch._refs.cbrt) raises the C++ kernels' message, word for word."""
        from torch._subclasses.fake_tensor import FakeTensorMode

        with self.assertRaises(RuntimeError) as on_cpu:
            torch.cbrt(torch.ones(2, dtype=torch.cdouble))
        with self.assertRaises(RuntimeError) as on_meta:
            torch.cbrt(torch.ones(2, dtype=torch.cdouble, device="meta"))
        with FakeTensorMode() as mode, self.assertRaises(RuntimeError) as on_fake:
            torch.cbrt(mode.from_tensor(torch.ones(2, dtype=torch.cfloat)))
        self.assertEqual(str(on_meta.exception), str(on_cpu.exception))
        self.assertEqual(str(on_fake.exception), str(on_cpu.exception))

    def test_inplace_on_integer_tensor_cannot_hold_the_float_result(self) -> None:
        with self.assertRaises(RuntimeError) as caught:
            torch.ones(2, dtype=torch.int64).cbrt_()
        self.assertExpectedInline(str(caught.exception), """result type Float can't be cast to the desired output type Long""")

    def test_out_with_integer_dtype_is_rejected(self) -> None:
        with self.assertRaisesRegex(RuntimeError, "result type Float can't be cast to the desired output type Int"):
            torch.cbrt(torch.ones(2), out=torch.empty(2, dtype=torch.int32))

    def test_out_with_wider_float_dtype_is_allowed(self) -> None:
        out = torch.empty(2, dtype=torch.float64)
        torch.cbrt(torch.tensor([8.0, -1.0]), out=out)
        self.assertEqual(out.tolist(), [2.0, -1.0])

    def test_inplace_on_expanded_tensor_is_rejected(self) -> None:
        with self.assertRaisesRegex(RuntimeError, "unsupported operation: more than one element of the written-to"):
            torch.ones(1).expand(4).cbrt_()

    def test_wrong_argument_type_names_the_signature(self) -> None:
        with self.assertRaises(TypeError) as caught:
            torch.cbrt("8")
        self.assertExpectedInline(
            str(caught.exception),
            """cbrt(): argument 'input' (position 1) must be Tensor, not str""",
        )

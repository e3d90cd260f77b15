"""torch.divmod in the overlay: the contract is (torch.floor_divide(a, b), torch.remainder(a, b)) bit for bit.

floor_divide and remainder are the stock wheel's kernels (BinaryOpsKernel.cpp), not ours, so comparing with them
checks the fused kernel against an independent implementation; integer results are also checked against NumPy.
Exhaustive for int8 and uint8 pairs; for the other dtypes, sweeps of random bit patterns crossed with the special
values (±0, ±inf, NaN, subnormals, the largest finite values, INT_MIN and -1). Lengths are chosen so that both
the vectorized body and the scalar tail run (Half and BFloat16 round differently in the two for floor_divide).
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import torch

INTEGER_DTYPES = (torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64)
FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
BITS = {torch.float16: torch.int16, torch.bfloat16: torch.int16, torch.float32: torch.int32, torch.float64: torch.int64}


def same_bits(actual: torch.Tensor, expected: torch.Tensor) -> bool:
    """Equal bit patterns, any NaN equal to any NaN (payloads are not part of the contract)."""
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    if not actual.is_floating_point():
        return torch.equal(actual, expected)
    both_nan = actual.isnan() & expected.isnan()
    differ = (actual.view(BITS[actual.dtype]) != expected.view(BITS[actual.dtype])) & ~both_nan
    return not bool(differ.any())


def assert_contract(a: torch.Tensor | float, b: torch.Tensor | float) -> None:
    quotient, remainder = torch.divmod(a, b)
    assert same_bits(quotient, torch.floor_divide(a, b)), "quotient differs from floor_divide"
    assert same_bits(remainder, torch.remainder(a, b)), "remainder differs from remainder"


def float_specials(dtype: torch.dtype) -> torch.Tensor:
    info = torch.finfo(dtype)
    values = [0.0, 1.0, 0.5, 1.5, 2.0, 3.0, 7.0, 1e-3, 10.0, info.tiny, info.tiny / 4, info.smallest_normal * info.eps,
              info.max, info.max / 3, info.eps, 1 / info.eps, float("inf"), float("nan")]
    positive = torch.tensor(values, dtype=torch.float64).to(dtype)
    return torch.cat([positive, -positive])


def random_floats(dtype: torch.dtype, n: int, seed: int) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    bits = torch.finfo(dtype).bits
    patterns = torch.randint(-(1 << (bits - 1)), (1 << (bits - 1)) - 1, (n,), generator=generator,
                             dtype=BITS[dtype])
    return patterns.view(dtype)


def integer_specials(dtype: torch.dtype) -> torch.Tensor:
    info = torch.iinfo(dtype)
    values = {0, 1, 2, 3, 7, info.max, info.max - 1, info.min, info.min + 1, -1, -2, -3, -7}
    return torch.tensor(sorted(v for v in values if info.min <= v <= info.max), dtype=dtype)


def cross(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Every pair (a[i], b[j]), as two flat tensors."""
    return a.repeat_interleave(b.numel()), b.repeat(a.numel())


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8], ids=str)
def test_every_pair_of_8_bit_integers_matches_floor_divide_remainder_and_numpy(dtype: torch.dtype) -> None:
    info = torch.iinfo(dtype)
    everything = torch.arange(info.min, info.max + 1).to(dtype)
    a, b = cross(everything, everything[everything != 0])
    assert_contract(a, b)
    quotient, remainder = torch.divmod(a, b)
    np_quotient, np_remainder = np.divmod(a.numpy(), b.numpy())
    # numpy wraps the one overflowing pair (INT_MIN // -1) as torch does
    assert np.array_equal(quotient.numpy(), np_quotient)
    assert np.array_equal(remainder.numpy(), np_remainder)


@pytest.mark.parametrize("dtype", [torch.int16, torch.int32, torch.int64], ids=str)
def test_wider_integers_match_on_specials_and_random_pairs(dtype: torch.dtype) -> None:
    specials = integer_specials(dtype)
    info = torch.iinfo(dtype)
    generator = torch.Generator().manual_seed(1)
    spread = torch.randint(info.min, info.max, (4099,), generator=generator, dtype=dtype)
    small = torch.randint(-50, 50, (4099,), generator=generator, dtype=dtype)
    values = torch.cat([specials, spread, small])
    a, b = cross(values[:300], torch.cat([specials, small[:100]]))
    keep = b != 0
    assert_contract(a[keep], b[keep])
    assert_contract(values, torch.where(small == 0, 1, small).repeat(3)[: values.numel()])
    quotient, remainder = torch.divmod(a[keep], b[keep])
    np_quotient, np_remainder = np.divmod(a[keep].numpy(), b[keep].numpy())
    assert np.array_equal(quotient.numpy(), np_quotient) and np.array_equal(remainder.numpy(), np_remainder)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
def test_floats_match_on_specials_crossed_with_random_bit_patterns(dtype: torch.dtype) -> None:
    specials = float_specials(dtype)
    randoms = random_floats(dtype, 2053, seed=2)
    values = torch.cat([specials, randoms])
    for a, b in (cross(values, specials), cross(specials, values), (randoms, random_floats(dtype, 2053, seed=3))):
        assert_contract(a, b)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_every_16_bit_float_by_a_set_of_divisors(dtype: torch.dtype) -> None:
    everything = torch.arange(-(1 << 15), 1 << 15, dtype=torch.int32).to(torch.int16).view(dtype)
    for divisor in (3.0, -0.1, 1e-3, 7.5, -2.0):
        b = torch.full_like(everything, divisor)
        assert_contract(everything, b)
        # a divisor held as a tensor of one element broadcasts: floor_divide then divides in float by its value
        assert_contract(everything, torch.tensor(divisor, dtype=dtype))
        assert_contract(everything, divisor)  # a Python number: its value in float, not rounded to the dtype


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + INTEGER_DTYPES, ids=str)
@pytest.mark.parametrize("length", [1, 7, 31, 64, 65, 1000, 70001])
def test_every_length_matches_through_the_vector_body_and_the_tail(dtype: torch.dtype, length: int) -> None:
    generator = torch.Generator().manual_seed(length)
    a = (torch.randn(length, generator=generator, dtype=torch.float64) * 100).to(dtype)
    b = (torch.randn(length, generator=generator, dtype=torch.float64) * 10).to(dtype)
    if not dtype.is_floating_point:
        b = torch.where(b == 0, torch.ones_like(b), b)
    assert_contract(a, b)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32], ids=str)
def test_non_contiguous_broadcast_and_scalar_operands(dtype: torch.dtype) -> None:
    generator = torch.Generator().manual_seed(4)
    base = (torch.randn(37, 53, generator=generator, dtype=torch.float64) * 50).to(dtype)
    base = torch.where(base == 0, torch.ones_like(base), base)  # every element divides: integers raise on 0
    divisor = (torch.randn(53, generator=generator, dtype=torch.float64) * 5 + 11).to(dtype)
    divisor = torch.where(divisor == 0, torch.ones_like(divisor), divisor)
    assert_contract(base.t(), base.t())
    assert_contract(base[:, ::3], divisor[::3])
    assert_contract(base, divisor)  # broadcast along dim 0
    assert_contract(divisor.unsqueeze(1), base[0])  # both broadcast
    assert_contract(base, 3)
    assert_contract(base[0, 0].item(), divisor)  # Scalar_Tensor


def test_type_promotion_and_broadcast_shape_are_those_of_floor_divide() -> None:
    a = torch.arange(-6, 6, dtype=torch.int8).reshape(3, 4)
    cases = [(a, torch.tensor([2, -3, 5, 7], dtype=torch.int64)), (a, 2.5), (a.float(), torch.tensor(3)),
             (a, torch.tensor(2.0, dtype=torch.float64)), (a.to(torch.bool), 3)]
    for x, y in cases:
        quotient, remainder = torch.divmod(x, y)
        expected = torch.floor_divide(x, y)
        assert quotient.dtype == remainder.dtype == expected.dtype
        assert quotient.shape == remainder.shape == expected.shape
        assert_contract(x, y)


def test_method_python_divmod_and_named_tuple() -> None:
    a = torch.tensor([7, -7, 7, -7])
    b = torch.tensor([2, 2, -2, -2])
    result = a.divmod(b)
    assert type(result) is torch.return_types.divmod
    assert result.quotient.tolist() == [3, -4, -4, 3] and result.remainder.tolist() == [1, 1, -1, -1]
    assert [t.tolist() for t in divmod(a, 2)] == [[3, -4, 3, -4], [1, 1, 1, 1]]
    assert [t.tolist() for t in divmod(7, b)] == [[3, 3, -4, -4], [1, 1, -1, -1]]
    assert [t.tolist() for t in divmod(a, b)] == [[3, -4, -4, 3], [1, 1, -1, -1]]


def test_out_tuple_is_written_and_returned() -> None:
    a = torch.randn(5, 6)
    quotient, remainder = torch.empty(5, 6), torch.empty(5, 6)
    b = torch.full((6,), 0.75)
    result = torch.divmod(a, b, out=(quotient, remainder))
    assert result.quotient is quotient and result.remainder is remainder
    assert torch.equal(quotient, torch.floor_divide(a, b)) and torch.equal(remainder, torch.remainder(a, b))


@pytest.mark.parametrize(("a", "b"), [
    (torch.tensor([7, -7, 5, -9]), 2), (torch.tensor([7.5, -7.5, 0.25, -3.0]), -2.5), (7.5, torch.tensor([2.0, -2.0, 0.5])),
    (-7, torch.tensor([2, -2, 3])), (2.5, torch.tensor([2, -3, 4], dtype=torch.int32)),
], ids=["tensor-int", "tensor-float", "float-tensor", "int-tensor", "float-int-tensor"])
def test_out_tuple_of_the_scalar_overloads_is_written_as_floor_divide_and_remainder_write_theirs(a, b) -> None:
    """divmod.Scalar_out and divmod.Scalar_Tensor_out: the operand order and the promotion of the Python number
    as floor_divide and remainder give them (their out= forms are the reference)."""
    expected_quotient, expected_remainder = torch.floor_divide(a, b), torch.remainder(a, b)
    quotient, remainder = torch.empty(0, dtype=expected_quotient.dtype), torch.empty(0, dtype=expected_quotient.dtype)
    result = torch.divmod(a, b, out=(quotient, remainder))
    assert result.quotient is quotient and result.remainder is remainder
    assert same_bits(quotient, expected_quotient) and same_bits(remainder, expected_remainder)


def test_out_tensors_that_overlap_an_input_or_each_other_are_refused_and_full_aliasing_works() -> None:
    a, b = torch.tensor([7.0, -7.0, 5.5, 9.0]), torch.tensor([2.0, 2.0, -3.0, 4.0])
    overlap = "unsupported operation: some elements of the input tensor and the written-to tensor refer"
    with pytest.raises(RuntimeError, match=overlap):
        shared = torch.empty(4)
        torch.divmod(a, b, out=(shared, shared))
    with pytest.raises(RuntimeError, match=overlap):
        storage = torch.empty(6)
        torch.divmod(a, b, out=(storage[:4], storage[2:]))
    with pytest.raises(RuntimeError, match=overlap):
        storage = torch.cat([a, b])
        torch.divmod(storage[:4], b, out=(storage[1:5], torch.empty(4)))
    expected = torch.floor_divide(a, b), torch.remainder(a, b)
    self_, other = a.clone(), b.clone()
    torch.divmod(self_, other, out=(self_, other))  # each output is exactly one input, as TensorIterator allows
    assert same_bits(self_, expected[0]) and same_bits(other, expected[1])


def test_integer_division_by_zero_raises_as_floor_divide_does() -> None:
    a, zero = torch.tensor([1, 2, 3]), torch.tensor([1, 0, 1])
    with pytest.raises(RuntimeError, match="ZeroDivisionError") as expected:
        torch.floor_divide(a, zero)
    with pytest.raises(RuntimeError, match="ZeroDivisionError") as got:
        torch.divmod(a, zero)
    assert str(got.value) == str(expected.value)


def test_float_division_by_zero_follows_ieee_as_floor_divide_does() -> None:
    a = torch.tensor([1.0, -1.0, 0.0, float("inf"), float("nan")])
    assert_contract(a, torch.zeros(5))
    assert_contract(a, -torch.zeros(5))


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        (torch.tensor([1 + 1j]), torch.tensor([2.0]), "not implemented for complex tensors"),
        (torch.tensor([1.0]), torch.tensor([2j]), "not implemented for complex tensors"),
        (torch.tensor([True]), torch.tensor([False]), "not implemented for bool tensors"),
    ],
)
def test_complex_and_bool_inputs_raise_a_type_error_naming_the_fix(a: torch.Tensor, b: torch.Tensor,
                                                                    message: str) -> None:
    with pytest.raises(TypeError, match=message):
        torch.divmod(a, b)
    with pytest.raises(TypeError, match=message):
        torch.divmod(a.to("meta"), b.to("meta"))


def test_mismatched_out_tensors_raise() -> None:
    a, b = torch.randn(4), torch.full((4,), 2.0)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        torch.divmod(a, b, out=(torch.empty(4, dtype=torch.long), torch.empty(4)))
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Int"):
        torch.divmod(a, b, out=(torch.empty(4), torch.empty(4, dtype=torch.int32)))
    with pytest.raises(TypeError, match="expected tuple of 2 elements"):
        torch.divmod(a, b, out=(torch.empty(4),))


def test_meta_tensors_give_the_shapes_and_dtypes_of_the_cpu_kernel() -> None:
    for x, y in [(torch.randn(2, 1, 3), torch.randn(4, 1)), (torch.arange(6).reshape(2, 3), torch.tensor(2.5))]:
        quotient, remainder = torch.divmod(x.to("meta"), y.to("meta") if y.dim() else y)
        cpu_quotient, _ = torch.divmod(x, y)
        assert quotient.device.type == remainder.device.type == "meta"
        assert quotient.shape == remainder.shape == cpu_quotient.shape
        assert quotient.dtype == remainder.dtype == cpu_quotient.dtype


def test_gradients_flow_through_the_remainder_only() -> None:
    a = torch.randn(6, dtype=torch.float64, requires_grad=True)
    b = (torch.rand(6, dtype=torch.float64) + 0.5).requires_grad_()
    quotient, remainder = torch.divmod(a, b)
    assert not quotient.requires_grad and remainder.requires_grad
    assert torch.autograd.gradcheck(lambda x, y: torch.divmod(x, y).remainder, (a, b))
    assert torch.autograd.gradgradcheck(lambda x, y: torch.divmod(x, y).remainder, (a, b))
    grad_a, grad_b = torch.autograd.grad(remainder.sum(), (a, b))
    expected_a, expected_b = torch.autograd.grad(torch.remainder(a, b).sum(), (a, b))
    assert torch.equal(grad_a, expected_a) and torch.equal(grad_b, expected_b)


def test_forward_mode_gradient_is_remainders() -> None:
    import torch.autograd.forward_ad as fwAD

    a, b = torch.randn(5, dtype=torch.float64), torch.rand(5, dtype=torch.float64) + 0.5
    ta, tb = torch.randn(5, dtype=torch.float64), torch.randn(5, dtype=torch.float64)
    with fwAD.dual_level():
        _, remainder = torch.divmod(fwAD.make_dual(a, ta), fwAD.make_dual(b, tb))
        expected = torch.remainder(fwAD.make_dual(a, ta), fwAD.make_dual(b, tb))
        assert torch.equal(fwAD.unpack_dual(remainder).tangent, fwAD.unpack_dual(expected).tangent)


def test_vmap_runs_the_batch_rule_and_matches_the_op_per_example() -> None:
    a, b = torch.randn(4, 3) * 10, torch.randn(3) + 5
    x, y = torch.tensor([7, -7, 9]), torch.tensor([[2.5], [-2.0]])
    torch._C._functorch._set_vmap_fallback_warning_enabled(True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the vmap fallback warns that divmod.Tensor has no batch rule
            quotient, remainder = torch.vmap(torch.divmod, in_dims=(0, None))(a, b)
            mixed = torch.vmap(torch.divmod, in_dims=(None, 0))(x, y)  # promotion: int by float
            by_scalar = torch.vmap(lambda t: torch.divmod(t, -2.5))(a)  # divmod.Scalar
            scalar_by = torch.vmap(lambda t: torch.divmod(7, t))(x.unsqueeze(0).expand(2, 3) + 1)  # Scalar_Tensor
    finally:
        torch._C._functorch._set_vmap_fallback_warning_enabled(False)
    for i, (q, r) in enumerate(itertools.starmap(torch.divmod, ((a[i], b) for i in range(4)))):
        assert torch.equal(quotient[i], q) and torch.equal(remainder[i], r)
    assert torch.equal(by_scalar.quotient, torch.divmod(a, -2.5).quotient)
    assert torch.equal(by_scalar.remainder, torch.divmod(a, -2.5).remainder)
    assert torch.equal(scalar_by.remainder, torch.divmod(7, x.unsqueeze(0).expand(2, 3) + 1).remainder)
    for i in range(2):
        expected = torch.divmod(x, y[i])
        assert torch.equal(mixed.quotient[i], expected.quotient) and torch.equal(mixed.remainder[i], expected.remainder)


def test_scalar_overloads_have_the_remainders_gradients() -> None:
    x = torch.randn(6, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: torch.divmod(t, 0.7).remainder, (x,))
    assert torch.autograd.gradcheck(lambda t: torch.divmod(2.5, t.abs() + 0.5).remainder, (x,))
    grad = torch.autograd.grad(torch.divmod(2.5, x.abs() + 0.5).remainder.sum(), x)[0]
    # remainder.Scalar_Tensor has no derivative: compare with the Tensor overload on a 0-d dividend
    expected = torch.autograd.grad(torch.remainder(torch.tensor(2.5, dtype=x.dtype), x.abs() + 0.5).sum(), x)[0]
    assert torch.equal(grad, expected)


def test_fake_tensors_trace_the_scalar_overloads() -> None:
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        quotient, remainder = torch.divmod(torch.ones(3, dtype=torch.int32), 3)
        assert quotient.shape == remainder.shape == (3,) and quotient.dtype == torch.int32
        assert torch.divmod(2.5, torch.ones(3, dtype=torch.int32)).remainder.dtype == torch.float32


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32], ids=str)
def test_compiled_divmod_gives_the_eager_bits(dtype: torch.dtype) -> None:
    """Inductor runs the eager kernel (an explicit fallback): under CI=1 (conftest), an implicit one for an operator
    with a decomposition is an error."""
    generator = torch.Generator().manual_seed(5)
    a = (torch.randn(1000, generator=generator, dtype=torch.float64) * 100).to(dtype)
    b = (torch.randn(1000, generator=generator, dtype=torch.float64) * 10).to(dtype)
    b = torch.where(b == 0, torch.ones_like(b), b)
    for args in ((a, b), (a, 3), (7, b)):
        torch._dynamo.reset()
        compiled = torch.compile(torch.divmod, fullgraph=True)(*args)
        eager = torch.divmod(*args)
        assert same_bits(compiled.quotient, eager.quotient) and same_bits(compiled.remainder, eager.remainder)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32], ids=str)
def test_pythons_builtin_divmod_compiles_fullgraph_to_the_eager_bits(dtype: torch.dtype) -> None:
    """divmod(a, b) with a tensor operand: Dynamo's builtin dispatches through the operands' nb_divmod slot."""
    generator = torch.Generator().manual_seed(6)
    a = (torch.randn(300, generator=generator, dtype=torch.float64) * 100).to(dtype)
    b = (torch.randn(300, generator=generator, dtype=torch.float64) * 10).to(dtype)
    b = torch.where(b == 0, torch.ones_like(b), b)
    calls = [(lambda x, y: divmod(x, y), (a, b)), (lambda x: divmod(x, 3.0), (a,)), (lambda x: divmod(x, -3), (a,)),
             (lambda y: divmod(7.5, y), (b,)), (lambda y: divmod(-7, y), (b,))]
    for builtin_call, args in calls:
        torch._dynamo.reset()
        compiled = torch.compile(builtin_call, fullgraph=True)(*args)
        eager = builtin_call(*args)
        assert same_bits(compiled[0], eager[0]) and same_bits(compiled[1], eager[1])


@pytest.mark.slow
def test_compiled_divmod_between_fused_ops_gives_the_eager_bits_with_the_cpp_wrapper() -> None:
    """AOTInductor's code path: the C++ wrapper calls the fallback through the dispatcher (divmod has no C shim), and
    the pointwise ops on either side are generated kernels that read its outputs."""
    import torch._inductor.config as inductor_config

    generator = torch.Generator().manual_seed(8)
    a = torch.randn(4099, generator=generator) * 100
    b = torch.randn(4099, generator=generator)

    def around(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        quotient, remainder = torch.divmod(x * 3, y + 0.5)
        return quotient - 1, remainder * 2

    torch._dynamo.reset()
    with inductor_config.patch(cpp_wrapper=True):
        compiled = torch.compile(around, fullgraph=True)(a, b)
    eager = around(a, b)
    assert same_bits(compiled[0], eager[0]) and same_bits(compiled[1], eager[1])


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device: the CUDA kernel is compiled (make CUDA=AUTO) but not run")
@pytest.mark.parametrize("dtype", FLOAT_DTYPES + INTEGER_DTYPES, ids=str)
def test_cuda_matches_floor_divide_and_remainder_on_cuda(dtype: torch.dtype) -> None:
    if dtype.is_floating_point:
        values = torch.cat([float_specials(dtype), random_floats(dtype, 4099, seed=6)])
        a, b = cross(values[:400], values[:400])
    else:
        values = torch.cat([integer_specials(dtype), torch.arange(-50, 50).to(dtype)])
        a, b = cross(values, values[values != 0])
    a, b = a.cuda(), b.cuda()
    assert_contract(a, b)
    assert_contract(a, 3)  # a CPU scalar divisor
    assert_contract(7, b)  # a CPU scalar dividend

"""torch.nanvar and torch.nanstd in the overlay, against numpy.nanvar and an extended-precision two-pass reference.

- float64 is within 4 ULP of a two-pass variance computed in long double, on data far from zero (1e6 +- 1) with
  NaNs, where a one-pass or a float64 two-pass loses digits;
- float32, float16 and bfloat16 are within 1 ULP of the float64 result (of the same data) rounded to their dtype;
- the bits do not depend on the thread count, on reductions of many blocks and on many outputs;
- NaN elements are left out of the mean, the sum of squares and the count, and get a zero gradient;
- keepdim, dim and correction behave as numpy's axis, keepdims and ddof.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

OPS = {"nanvar": (torch.nanvar, np.nanvar), "nanstd": (torch.nanstd, np.nanstd)}
LONG_DOUBLE_DIGITS = np.finfo(np.longdouble).nmant


def far_from_zero(n: int, seed: int) -> torch.Tensor:
    """float64 data at 1e6 +- 1, a fifth of it NaN."""
    generator = torch.Generator().manual_seed(seed)
    values = 1e6 + (torch.rand(n, dtype=torch.float64, generator=generator) * 2 - 1)
    values[torch.rand(n, generator=generator) < 0.2] = float("nan")
    return values


def two_pass_long_double(values: np.ndarray, correction: float) -> np.longdouble:
    kept = values[~np.isnan(values)].astype(np.longdouble)
    mean = kept.sum() / len(kept)
    return ((kept - mean) ** 2).sum() / (len(kept) - np.longdouble(correction))


def ulps(actual: torch.Tensor, expected: torch.Tensor) -> torch.Tensor:
    """|actual - expected| in units of the spacing of expected's dtype at expected (the gap to the next value up)."""
    up = torch.nextafter(expected.abs(), torch.tensor(float("inf"), dtype=expected.dtype))
    return (actual.double() - expected.double()).abs() / (up.double() - expected.abs().double())


@pytest.mark.skipif(LONG_DOUBLE_DIGITS < 63, reason=f"long double has {LONG_DOUBLE_DIGITS} mantissa bits here, "
                    "too few for the extended-precision reference")
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("correction", [0, 1])
def test_float64_is_within_4_ulp_of_an_extended_two_pass_on_data_far_from_zero(threads: int,
                                                                               correction: int) -> None:
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        worst = 0.0
        for seed, n in enumerate((1_000_003, 65_537, 2_049, 100)):
            values = far_from_zero(n, seed)
            expected = two_pass_long_double(values.numpy(), correction)
            actual = torch.nanvar(values, correction=correction).item()
            worst = max(worst, abs(np.longdouble(actual) - expected) / np.spacing(np.float64(expected)))
    finally:
        torch.set_num_threads(before)
    assert worst <= 4, f"{worst:.2f} ULP"


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("name", sorted(OPS))
def test_reduced_precision_is_within_1_ulp_of_the_float64_result_rounded(name: str, dtype: torch.dtype) -> None:
    """Within 1 ULP of numpy's float64 result on the same values, rounded to the dtype; and equal to it on (nearly)
    every output, as a float64 accumulation is: accumulated in the dtype, the sums drift by a unit in the last
    place on many outputs."""
    _, reference = OPS[name]
    op, _ = OPS[name]
    generator = torch.Generator().manual_seed(0)
    # rows of one block and of several, and a reduction over the first dimension
    distances = []
    for shape, dim in (((256, 2000), 1), ((4, 10_000), 1), ((3000, 16), 0)):
        data = (torch.randn(shape, generator=generator) * 3 + 5).to(dtype)
        data[torch.rand(shape, generator=generator) < 0.1] = float("nan")
        expected = torch.from_numpy(reference(data.double().numpy(), axis=dim, ddof=1)).to(dtype)
        distances.append(ulps(op(data, dim=dim), expected))
    distance = torch.cat(distances)
    assert distance.max().item() <= 1, distance.max().item()
    assert (distance == 0).double().mean().item() >= 0.99, f"{(distance != 0).sum().item()} outputs 1 ULP apart"


def numpy_reference(name: str, data: torch.Tensor, **kwargs) -> torch.Tensor:
    _, reference = OPS[name]
    dim = kwargs.pop("dim", None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy's degrees-of-freedom and all-NaN warnings
        return torch.as_tensor(reference(data.numpy(), axis=dim, ddof=kwargs.get("correction", 1),
                                         keepdims=kwargs.get("keepdim", False)))


@pytest.mark.parametrize("name", sorted(OPS))
def test_nans_are_left_out_of_the_mean_the_squares_and_the_count_as_numpy_does(name: str) -> None:
    op, _ = OPS[name]
    nan, inf = float("nan"), float("inf")
    data = torch.tensor([[1.0, nan, 3.0, 4.0],
                         [nan, nan, nan, nan],
                         [2.0, nan, nan, nan],
                         [1.0, inf, 2.0, nan],
                         [-inf, inf, 0.0, 1.0],
                         [5.0, 5.0, 5.0, nan]], dtype=torch.float64)
    for kwargs in ({}, {"dim": 1}, {"dim": 0}, {"dim": 1, "correction": 0}, {"dim": 1, "correction": 2},
                   {"dim": (0, 1), "keepdim": True}, {"dim": 1, "correction": 0.5}):
        torch.testing.assert_close(op(data, **kwargs), numpy_reference(name, data, **kwargs), equal_nan=True,
                                   msg=lambda m, kwargs=kwargs: f"{kwargs}: {m}")
    # a constant slice: exactly zero
    assert op(data[5], correction=0).item() == 0.0


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("name", sorted(OPS))
def test_dim_keepdim_and_correction_are_numpys_axis_keepdims_and_ddof(name: str, keepdim: bool) -> None:
    op, _ = OPS[name]
    generator = torch.Generator().manual_seed(1)
    data = torch.randn(3, 4, 5, dtype=torch.float64, generator=generator)
    data[data > 1.2] = float("nan")
    for dim in (0, 1, 2, -1, (0, 2), (2, 0), (0, 1, 2), None):
        for correction in (0, 1):
            actual = op(data, dim=dim, correction=correction, keepdim=keepdim)
            expected = numpy_reference(name, data, dim=dim, correction=correction, keepdim=keepdim)
            assert actual.shape == expected.shape, (dim, keepdim)
            torch.testing.assert_close(actual, expected, equal_nan=True)
            out = torch.empty(0, dtype=torch.float64)
            assert op(data, dim=dim, correction=correction, keepdim=keepdim, out=out) is out
            torch.testing.assert_close(out, expected, equal_nan=True)


def test_complex_input_gives_the_real_variance_leaving_out_elements_with_a_nan_part() -> None:
    nan = float("nan")
    data = torch.tensor([[1 + 2j, complex(nan, 1.0), 3 - 1j, 2 + 2j],
                         [complex(1.0, nan), 1j, 2j, 5 + 0j]], dtype=torch.complex128)
    for name in OPS:
        op, _ = OPS[name]
        actual = op(data, dim=1)
        assert actual.dtype == torch.float64
        torch.testing.assert_close(actual, numpy_reference(name, data, dim=1))


@pytest.mark.parametrize("case", ["one long row", "rows", "columns"])
def test_the_bits_do_not_depend_on_the_thread_count(case: str) -> None:
    generator = torch.Generator().manual_seed(2)
    data = {"one long row": lambda: torch.randn(1 << 20, generator=generator, dtype=torch.float64),
            "rows": lambda: torch.randn(3, 300_001, generator=generator, dtype=torch.float64),
            "columns": lambda: torch.randn(200_001, 3, generator=generator, dtype=torch.float64)}[case]() * 7 + 3
    data[data > 9] = float("nan")
    dim = {"one long row": None, "rows": 1, "columns": 0}[case]
    before = torch.get_num_threads()
    try:
        results = []
        for threads in (1, 2):
            torch.set_num_threads(threads)
            results.append([torch.nanvar(data, dim=dim), torch.nanstd(data, dim=dim),
                            torch.nanvar(data.float(), dim=dim)])
    finally:
        torch.set_num_threads(before)
    for one, two in zip(*results, strict=True):
        assert torch.equal(one.view(torch.int64 if one.dtype == torch.float64 else torch.int32),
                           two.view(torch.int64 if two.dtype == torch.float64 else torch.int32))


@pytest.mark.parametrize("name", sorted(OPS))
def test_nan_elements_get_a_zero_gradient_and_the_others_numpys_derivative(name: str) -> None:
    op, _ = OPS[name]
    generator = torch.Generator().manual_seed(3)
    data = torch.randn(4, 6, dtype=torch.float64, generator=generator)
    data[0, 1] = data[2, 0] = data[2, 5] = float("nan")
    data.requires_grad_(True)
    (gradient,) = torch.autograd.grad(op(data, dim=1).sum(), data)
    values = data.detach().numpy()
    kept = ~np.isnan(values)
    count = kept.sum(axis=1, keepdims=True)
    mean = np.nansum(values, axis=1, keepdims=True) / count
    expected = np.where(kept, 2 * (values - mean) / (count - 1), 0.0)
    if name == "nanstd":
        expected = expected / (2 * np.nanstd(values, axis=1, ddof=1, keepdims=True))
    assert torch.equal(gradient[~torch.from_numpy(kept)], torch.zeros(3, dtype=torch.float64))
    torch.testing.assert_close(gradient, torch.from_numpy(expected))


def test_integer_and_bool_inputs_are_refused_as_torch_var_refuses_them() -> None:
    for data in (torch.arange(4), torch.tensor([True, False])):
        for op in (torch.nanvar, torch.nanstd):
            with pytest.raises(RuntimeError, match="expected input to have floating point or complex dtype"):
                op(data)
            with pytest.raises(RuntimeError, match="expected input to have floating point or complex dtype"):
                op(data.to("meta"))


def same_bits(actual: torch.Tensor, expected: torch.Tensor) -> bool:
    """Equal shapes, dtypes and bits, any NaN equal to any NaN."""
    both_nan = actual.isnan() & expected.isnan()
    return (actual.shape == expected.shape and actual.dtype == expected.dtype
            and bool(torch.where(both_nan, True, actual.view(torch.int64) == expected.view(torch.int64)).all()))


def test_compiled_code_gives_eagers_bits_and_calls_the_kernel() -> None:
    generator = torch.Generator().manual_seed(4)
    data = torch.randn(6, 50_000, dtype=torch.float64, generator=generator)
    data[data > 1.5] = float("nan")

    def both(t: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.nanvar(t, dim=1, correction=0), t.nanstd(dim=(0, 1), keepdim=True)

    compiled = torch.compile(both, fullgraph=True, dynamic=True)
    for rows in (6, 3):  # a second size: the graph is not specialized to the first
        for ours, eager in zip(compiled(data[:rows]), both(data[:rows]), strict=True):
            assert same_bits(ours, eager)


def test_export_keeps_the_sizes_symbolic() -> None:
    class NanVar(torch.nn.Module):
        def forward(self, x):
            return torch.nanvar(x, dim=1, keepdim=True) + torch.nanstd(x, dim=0).sum()

    generator = torch.Generator().manual_seed(5)
    first, other = (torch.randn(shape, dtype=torch.float64, generator=generator) for shape in ((5, 9), (7, 13)))
    first[0, 0] = other[1, 2] = float("nan")
    sizes = {"x": {0: torch.export.Dim("rows"), 1: torch.export.Dim("columns")}}
    exported = torch.export.export(NanVar(), (first,), dynamic_shapes=sizes)
    code = exported.graph_module.code
    assert "torch.ops.aten.nanvar.default" in code and "torch.ops.aten.nanstd.default" in code
    assert same_bits(exported.module()(other), NanVar()(other))


def scripted_nanvar(x: torch.Tensor) -> torch.Tensor:
    return torch.nanvar(x, dim=[0], correction=0) + x.nanstd(1).sum()


def test_torchscript_calls_the_aten_ops() -> None:
    scripted = torch.jit.script(scripted_nanvar)
    assert "aten::nanvar" in str(scripted.graph) and "aten::nanstd" in str(scripted.graph)
    data = torch.randn(4, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(6))
    data[1, 1] = float("nan")
    assert same_bits(scripted(data), scripted_nanvar(data))


def test_dtensor_keeps_a_sharded_kept_dimension_without_collectives_and_gathers_a_sharded_reduced_one() -> None:
    import torch.distributed as dist
    from torch.distributed.tensor import DeviceMesh, Replicate, Shard, distribute_tensor
    from torch.distributed.tensor.debug import CommDebugMode
    from torch.testing._internal.distributed.fake_pg import FakeStore

    # one process as rank 0 of 2: its shard's result is checked; the fake group moves no data
    dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=2)
    try:
        mesh = DeviceMesh("cpu", [0, 1])
        data = torch.randn(8, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(7))
        data[0, 1] = data[5, 5] = float("nan")
        for op in (torch.nanvar, torch.nanstd):
            for keepdim in (False, True):
                sharded = distribute_tensor(data, mesh, [Shard(0)])
                with CommDebugMode() as comm:
                    result = op(sharded, dim=1, keepdim=keepdim)
                assert comm.get_total_counts() == 0 and result.placements == (Shard(0),)
                assert same_bits(result.to_local(), op(data[:4], dim=1, keepdim=keepdim))
                with CommDebugMode() as comm:
                    result = op(sharded, dim=0, keepdim=keepdim)
                gathers = {str(key): count for key, count in comm.get_comm_counts().items()}
                assert gathers == {"c10d_functional.all_gather_into_tensor": 1}, gathers
                assert result.placements == (Replicate(),)
    finally:
        dist.destroy_process_group()


def opinfo_samples(name: str, dtype: torch.dtype, requires_grad: bool = False) -> list:
    from torch.testing._internal.common_methods_invocations import op_db

    (entry,) = [op for op in op_db if op.name == name and op.variant_test_name == ""]
    torch.manual_seed(0)
    return list(entry.sample_inputs("cpu", dtype, requires_grad=requires_grad))


@pytest.mark.parametrize("name", sorted(OPS))
def test_vmap_runs_the_batch_rule_and_matches_a_loop_on_every_opinfo_sample(name: str) -> None:
    op, _ = OPS[name]
    torch._C._functorch._set_vmap_fallback_warning_enabled(True)
    try:
        for sample in opinfo_samples(name, torch.float64):
            batch = torch.stack([sample.input, sample.input * 2 + 1, sample.input.flip(-1) if sample.input.dim() else
                                 sample.input - 3])
            with warnings.catch_warnings():
                # the slow fallback, taken where no batch rule is registered, warns "There is a performance drop"
                warnings.filterwarnings("error", message=".*performance drop.*")
                for in_dim, batched in ((0, batch), (-1, batch.movedim(0, -1))):
                    result = torch.vmap(lambda t, kwargs=sample.kwargs: op(t, **kwargs), in_dims=in_dim)(batched)
                    expected = torch.stack([op(t, **sample.kwargs) for t in batch])
                    torch.testing.assert_close(result, expected, equal_nan=True, atol=0, rtol=0,
                                               msg=lambda m, s=sample: f"{s.kwargs}: {m}")
    finally:
        torch._C._functorch._set_vmap_fallback_warning_enabled(False)


@pytest.mark.parametrize("dtype", [torch.float64, torch.complex128])
@pytest.mark.parametrize("name", sorted(OPS))
def test_gradients_forward_ad_and_double_backward_check_on_every_opinfo_sample(name: str, dtype: torch.dtype) -> None:
    op, _ = OPS[name]
    checked = 0
    for sample in opinfo_samples(name, dtype, requires_grad=True):
        def call(t, kwargs=sample.kwargs):
            return op(t, **kwargs)

        # the NaN elements stay NaN under finite differences: their gradient, 0, is checked too
        assert torch.autograd.gradcheck(call, (sample.input,), check_forward_ad=True, check_batched_grad=True)
        assert torch.autograd.gradgradcheck(call, (sample.input,), check_fwd_over_rev=True)
        checked += 1
    assert checked >= 20


CUDA = pytest.mark.skipif(not torch.cuda.is_available(),
                          reason="no CUDA device: the CUDA kernel is compiled (make CUDA=AUTO) but not run")


@CUDA
@pytest.mark.parametrize("name", sorted(OPS))
def test_cuda_leaves_nans_out_as_numpy_does_on_every_dim_keepdim_and_correction(name: str) -> None:
    op, _ = OPS[name]
    nan, inf = float("nan"), float("inf")
    special = torch.tensor([[1.0, nan, 3.0, 4.0], [nan, nan, nan, nan], [2.0, nan, nan, nan], [1.0, inf, 2.0, nan],
                            [-inf, inf, 0.0, 1.0], [5.0, 5.0, 5.0, nan]], dtype=torch.float64)
    for kwargs in ({}, {"dim": 1}, {"dim": 0}, {"dim": 1, "correction": 0}, {"dim": 1, "correction": 2},
                   {"dim": (0, 1), "keepdim": True}, {"dim": 1, "correction": 0.5}):
        torch.testing.assert_close(op(special.cuda(), **kwargs).cpu(), numpy_reference(name, special, **kwargs),
                                   equal_nan=True, msg=lambda m, kwargs=kwargs: f"{kwargs}: {m}")
    generator = torch.Generator().manual_seed(1)
    data = torch.randn(3, 4, 5, dtype=torch.float64, generator=generator)
    data[data > 1.2] = nan
    for dim in (0, 1, 2, -1, (0, 2), (2, 0), (0, 1, 2), None):
        for keepdim in (False, True):
            for correction in (0, 1):
                kwargs = {"dim": dim, "correction": correction, "keepdim": keepdim}
                torch.testing.assert_close(op(data.cuda(), **kwargs).cpu(), numpy_reference(name, data, **kwargs),
                                           equal_nan=True)
    # reductions long enough to spread over blocks and over the grid, rows and columns, non-contiguous
    big = torch.randn(64, 1 << 16, dtype=torch.float64, generator=generator) * 3 + 5
    big[torch.rand(big.shape, generator=generator) < 0.2] = nan
    for view, dim in ((big, 1), (big, 0), (big, None), (big.t(), 0), (big[:, ::3], 1)):
        torch.testing.assert_close(op(view.cuda(), dim=dim).cpu(), numpy_reference(name, view, dim=dim),
                                   rtol=1e-11, atol=0)
    complex_data = torch.complex(data, data.flip(0))
    torch.testing.assert_close(op(complex_data.cuda(), dim=1).cpu(), numpy_reference(name, complex_data, dim=1),
                               equal_nan=True)


@CUDA
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("name", sorted(OPS))
def test_cuda_reduced_precision_accumulates_in_float(name: str, dtype: torch.dtype) -> None:
    """float32 within 1e-5 (relative) of numpy's float64 result on the same values, float16 and bfloat16 within
    1 ULP of it rounded to their dtype: an accumulation in float, as var's CUDA kernel does."""
    op, reference = OPS[name]
    generator = torch.Generator().manual_seed(0)
    for shape, dim in (((256, 2000), 1), ((4, 100_000), 1), ((3000, 16), 0)):
        data = (torch.randn(shape, generator=generator) * 3 + 5).to(dtype)
        data[torch.rand(shape, generator=generator) < 0.1] = float("nan")
        expected = torch.from_numpy(reference(data.double().numpy(), axis=dim, ddof=1))
        actual = op(data.cuda(), dim=dim).cpu()
        if dtype == torch.float32:
            torch.testing.assert_close(actual.double(), expected, rtol=1e-5, atol=0)
        else:
            assert ulps(actual, expected.to(dtype)).max().item() <= 1


@CUDA
@pytest.mark.parametrize("name", sorted(OPS))
def test_cuda_gradient_is_zero_at_nans_and_the_cpus_elsewhere(name: str) -> None:
    op, _ = OPS[name]
    generator = torch.Generator().manual_seed(3)
    data = torch.randn(4, 600, dtype=torch.float64, generator=generator)
    data[torch.rand(data.shape, generator=generator) < 0.2] = float("nan")
    gradients = []
    for device in ("cpu", "cuda"):
        leaf = data.to(device).requires_grad_(True)
        (gradient,) = torch.autograd.grad(op(leaf, dim=1).sum(), leaf)
        gradients.append(gradient.cpu())
    assert torch.equal(gradients[1][data.isnan()], torch.zeros(int(data.isnan().sum()), dtype=torch.float64))
    torch.testing.assert_close(gradients[1], gradients[0])

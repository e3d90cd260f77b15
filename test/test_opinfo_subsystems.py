"""The cbrt OpInfo through PyTorch's subsystems.

Compact equivalents of test_meta.py (meta kernels, dispatch-level meta cross-ref,
symbolic shapes), test_decomp.py (decomposition cross-ref and the HasDecompTest
classification), functorch/test_vmap.py (exhaustive vmap, has-a-batch-rule),
test_sparse.py's TestSparseUnaryUfuncs (claimed sparse layouts), torch.library.opcheck and
inductor/test_torchinductor_opinfo.py (compiled vs eager, kept light).
"""

from __future__ import annotations

import itertools
import unittest
import warnings
from functools import partial

import numpy as np
import torch
import torch._dynamo
import torch._dynamo.testing
from opinfo_support import CBRT_OPS, CBRT_OVERLOADS, assert_same_metadata, aten, clone_tensors, instantiate
from torch._C import DispatchKey
from torch._decomp import core_aten_decompositions, decomposition_table
from torch._subclasses.meta_utils import MetaConverter
from torch.func import jvp, vjp, vmap
from torch.fx.experimental.proxy_tensor import make_fx
from torch.testing import make_tensor
from torch.testing._internal.common_device_type import OpDTypes, onlyCPU, onlyCUDA, ops
from torch.testing._internal.common_utils import TestCase
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves, tree_map_only
from torch.utils._triton import has_triton


class _MetaCrossRefMode(TorchDispatchMode):
    """Runs every aten call a second time on meta copies and compares the metadata."""

    def __init__(self, test):
        super().__init__()
        self.test, self.seen = test, set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if not any(isinstance(a, torch.Tensor) for a in tree_leaves((args, kwargs))):
            return func(*args, **kwargs)  # factories keep their device
        converter = MetaConverter()
        meta_args, meta_kwargs = tree_map_only(torch.Tensor, converter, (args, kwargs))
        out = kwargs.get("out")
        resized_out = isinstance(out, torch.Tensor) and out.shape != args[0].shape
        real = func(*args, **kwargs)
        meta = func(*meta_args, **meta_kwargs)
        for r, m in zip(tree_leaves(real), tree_leaves(meta), strict=True):
            if isinstance(r, torch.Tensor):
                self.test.assertEqual(m.device.type, "meta")
                assert_same_metadata(self.test, r, m, what=str(func), strides=not resized_out)
        self.seen.add(func)
        return real


class TestMeta(TestCase):
    @ops(CBRT_OPS)
    def test_meta_outputs_match_real_outputs_for_function_method_inplace_and_out(self, device, dtype, op):
        to_meta = MetaConverter()
        for sample in op.reference_inputs(device, dtype):
            x, mx = sample.input, to_meta(sample.input)
            expected = op(x)
            for name, fn in (("function", op.op), ("method", op.method_variant)):
                assert_same_metadata(self, expected, fn(mx), what=name)
            for out in (
                torch.empty((0,), dtype=expected.dtype),
                make_tensor(x.shape, dtype=expected.dtype, device="cpu", noncontiguous=True),
            ):
                real_out, meta_out = out.to(device), to_meta(out)
                resized = out.shape != x.shape
                assert_same_metadata(self, op(x, out=real_out), op(mx, out=meta_out), what="out", strides=not resized)
            if dtype.is_floating_point:
                if x.numel() > 1 and 0 in x.stride():
                    continue  # in-place into an expanded tensor is rejected on every device
                real_inplace, meta_inplace = x.clone(), to_meta(x.clone())
                assert_same_metadata(
                    self, op.inplace_variant(real_inplace), op.inplace_variant(meta_inplace), what="inplace"
                )
            else:
                for t in (x.clone(), to_meta(x.clone())):
                    with self.assertRaisesRegex(RuntimeError, "can't be cast"):
                        op.inplace_variant(t)

    @ops(CBRT_OPS, allowed_dtypes=(torch.float32, torch.float64, torch.int64))
    def test_every_aten_call_of_forward_and_backward_has_a_matching_meta_result(self, device, dtype, op):
        requires_grad = dtype in op.supported_backward_dtypes(torch.device(device).type)
        mode = _MetaCrossRefMode(self)
        run_every_variant_under(mode, op, device, dtype, requires_grad)
        expected = {aten.cbrt.default, aten.cbrt.out}
        if dtype.is_floating_point:
            expected.add(aten.cbrt_.default)
        self.assertLessEqual(expected, mode.seen)

    def test_meta_kernels_are_the_python_refs_registered_as_decompositions(self):
        self.assertIs(aten.cbrt.default.py_kernels[DispatchKey.Meta], torch._refs.cbrt)
        self.assertIs(aten.cbrt.out.py_kernels[DispatchKey.Meta], torch._refs.cbrt)
        self.assertIs(aten.cbrt_.default.py_kernels[DispatchKey.Meta], torch._refs.cbrt_)
        for overload in CBRT_OVERLOADS:
            self.assertTrue(torch._C._dispatch_has_kernel_for_dispatch_key(overload.name(), "Meta"), overload)

    @ops(CBRT_OPS, allowed_dtypes=(torch.float32, torch.int32))
    def test_symbolic_trace_is_one_aten_cbrt_call_that_generalises_to_other_shapes(self, device, dtype, op):
        x = make_tensor((4, 6), dtype=dtype, device=device)
        for fn in (op.op, op.method_variant):
            graph = make_fx(fn, tracing_mode="symbolic")(x)
            calls = [n.target for n in graph.graph.nodes if n.op == "call_function"]
            self.assertEqual(calls, [aten.cbrt.default])
            (out_node,) = tree_leaves(next(n for n in graph.graph.nodes if n.op == "output").args)
            out_val = out_node.meta["val"]
            self.assertTrue(all(isinstance(s, torch.SymInt) for s in out_val.shape), out_val.shape)
            self.assertEqual(out_val.dtype, op(x).dtype)
            other = make_tensor((3, 5, 2), dtype=dtype, device=device, noncontiguous=True)
            self.assertEqual(graph(other), op(other))


def _max_error(a: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
    a = a.to(ref.dtype)
    same = (a == ref) | (a.isnan() & ref.isnan())
    return torch.where(same, 0, (a - ref).abs()).max() if a.numel() else torch.zeros((), dtype=ref.dtype)


class _DecompCrossRefMode(TorchDispatchMode):
    """test_decomp.py's DecompCrossRefMode, limited to the cbrt overloads.

    The decomposition runs on cloned arguments before the real kernel, so an in-place
    decomposition cannot mutate what the real kernel sees. The decomposition ends in the
    kernel itself (refs.cbrt -> prims.cbrt -> aten.cbrt), so this proves the wiring: dtype,
    shape, in-place aliasing, and a result as close to a long double NumPy reference as the
    kernel's (plus 1e-7).
    """

    def __init__(self, test):
        super().__init__()
        self.test, self.checked = test, set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func not in CBRT_OVERLOADS:
            return func(*args, **kwargs)
        decomp_args, decomp_kwargs = clone_tensors((args, kwargs))
        decomp_out = decomposition_table[func](*decomp_args, **decomp_kwargs)
        real_out = func(*args, **kwargs)
        self.test.assertEqual(real_out.dtype, decomp_out.dtype, msg=str(func))
        self.test.assertEqual(real_out.shape, decomp_out.shape, msg=str(func))
        if func is aten.cbrt_.default:
            # the decomposition of an in-place op still returns (and writes) its self argument
            self.test.assertIs(decomp_out, decomp_args[0])
        x = args[0]
        if real_out.dtype.is_floating_point and x.is_floating_point():
            ref = torch.from_numpy(np.cbrt(x.detach().cpu().double().numpy().astype(np.longdouble)).astype(np.float64))
            ref = ref.to(x.device)
            real_err, decomp_err = _max_error(real_out, ref), _max_error(decomp_out, ref)
            self.test.assertLessEqual(decomp_err.item(), real_err.item() + 1e-7, msg=f"{func} on {x.dtype}")
        else:
            self.test.assertEqual(decomp_out, real_out, msg=str(func))
        self.checked.add(func)
        return real_out


def run_every_variant_under(mode, op, device, dtype, requires_grad):
    """Function, out=, in-place (where the dtype allows) and backward on every reference input, inside `mode`."""
    for sample in op.reference_inputs(device, dtype, requires_grad=requires_grad):
        x = sample.input
        with mode:
            y = op(x)
            op(x.detach(), out=torch.empty((0,), dtype=y.dtype, device=device))
            if dtype.is_floating_point and 0 not in x.stride():
                op.inplace_variant(x.detach().clone())
            if requires_grad and y.numel() > 0:
                y.sum().backward()


class TestDecomp(TestCase):
    @ops(CBRT_OPS)
    def test_decompositions_are_wired_for_every_variant_on_reference_inputs(self, device, dtype, op):
        requires_grad = dtype in op.supported_backward_dtypes(torch.device(device).type)
        mode = _DecompCrossRefMode(self)
        run_every_variant_under(mode, op, device, dtype, requires_grad)
        expected = {aten.cbrt.default, aten.cbrt.out} | ({aten.cbrt_.default} if dtype.is_floating_point else set())
        self.assertEqual(mode.checked, expected)

    @ops(CBRT_OPS, allowed_dtypes=(torch.float32, torch.int64))
    def test_tracing_with_the_decomposition_table_lowers_to_prims_cbrt(self, device, dtype, op):
        x = make_tensor((3, 4), dtype=dtype, device=device)
        graph = make_fx(op.op, decomposition_table=decomposition_table)(x)
        calls = {n.target for n in graph.graph.nodes if n.op == "call_function"}
        self.assertIn(torch.ops.prims.cbrt.default, calls)
        self.assertNotIn(aten.cbrt.default, calls)
        self.assertEqual(graph(x), op(x))

    def test_cbrt_overloads_count_as_core_aten_operators_under_the_has_decomp_rule(self):
        # HasDecompTest.test_aten_core_operators lists every traceable overload that has a
        # decomposition but is not in core_aten_decompositions(): the three cbrt overloads
        # land there, so upstream's test/expect/HasDecompTest.test_aten_core_operators.expect
        # must list aten::cbrt, aten::cbrt.out and aten::cbrt_ (between aten::cauchy_ and aten::ceil).
        core = core_aten_decompositions().keys()
        for overload in CBRT_OVERLOADS:
            self.assertIn(overload, decomposition_table)
            self.assertNotIn(overload, core)
            self.assertFalse(overload.has_kernel_for_dispatch_key(DispatchKey.CompositeImplicitAutograd))


class _VmapFallbackDisabled:
    def __enter__(self):
        self.previous = torch._C._functorch._is_vmap_fallback_enabled()
        torch._C._functorch._set_vmap_fallback_enabled(False)

    def __exit__(self, *exc):
        torch._C._functorch._set_vmap_fallback_enabled(self.previous)


def _jvp_at(fn, primal, tangent):
    return jvp(fn, (primal,), (tangent,))


class TestVmapOperatorsOpInfo(TestCase):
    def _batched(self, x, bdim, batch_size=3):
        slices = [x.detach()] + [make_tensor(x.shape, dtype=x.dtype, device=x.device) for _ in range(batch_size - 1)]
        return torch.stack(slices, dim=bdim)

    def _vmap_matches_loop(self, op):
        # The OpInfo sample plus every reference input small enough to batch cheaply:
        # empty, 0-dim, noncontiguous, expanded, arbitrarily strided and extremal tensors.
        device, dtype = self.device_type, torch.float32
        for sample in itertools.chain(op.sample_inputs(device, dtype), op.reference_inputs(device, dtype)):
            x = sample.input
            if x.numel() > 4096:
                continue
            for bdim, out_dim in itertools.product(range(-1, x.dim() + 1), (0, -1)):
                if x.dim() == 0 and bdim not in (0, -1):
                    continue
                batched = self._batched(x, bdim)
                expected = torch.stack([op(s) for s in batched.unbind(bdim)], dim=out_dim)
                for fn in (op.op, op.method_variant):
                    self.assertEqual(vmap(fn, in_dims=bdim, out_dims=out_dim)(batched), expected)
                inplace_input = batched.clone()
                result = vmap(op.inplace_variant, in_dims=bdim, out_dims=bdim)(inplace_input)
                self.assertEqual(result, expected.movedim(out_dim, bdim))
                self.assertEqual(inplace_input, result)
            nested = torch.stack([self._batched(x, 0), self._batched(x, 0)])
            self.assertEqual(vmap(vmap(op.op))(nested), op(nested))

    @ops(CBRT_OPS, dtypes=OpDTypes.any_one)
    def test_vmap_matches_a_loop_over_every_batch_dim_for_every_variant(self, device, dtype, op):
        self._vmap_matches_loop(op)

    @ops(CBRT_OPS, dtypes=OpDTypes.any_one)
    def test_vmap_of_every_variant_runs_without_the_fallback(self, device, dtype, op):
        with _VmapFallbackDisabled():
            self._vmap_matches_loop(op)
        # the warning route too: no "performance drop" warning is ever raised
        torch._C._functorch._set_vmap_fallback_warning_enabled(True)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                x = make_tensor((3, 5), dtype=dtype, device=device)
                vmap(op.op)(x)
                vmap(op.inplace_variant)(x.clone())
        finally:
            torch._C._functorch._set_vmap_fallback_warning_enabled(False)

    @ops(CBRT_OPS, dtypes=OpDTypes.any_one)
    def test_the_fallback_detector_catches_an_op_without_a_batch_rule(self, device, dtype, op):
        # Control for the test above: histc has no batch rule, so the same setup must fail.
        with _VmapFallbackDisabled(), self.assertRaisesRegex(RuntimeError, "vmap fallback which is currently disabled"):
            vmap(torch.histc)(make_tensor((3, 5), dtype=dtype, device=device))

    @ops(CBRT_OPS, allowed_dtypes=(torch.float32, torch.float64))
    def test_vmap_over_vjp_and_jvp_uses_batch_rules_and_matches_a_loop(self, device, dtype, op):
        for sample in op.sample_inputs(device, dtype):
            x = sample.input
            cotangents = torch.stack([torch.randn_like(x) for _ in range(3)])
            _, pullback = vjp(op.op, x)
            with _VmapFallbackDisabled():
                (batched_vjp,) = vmap(pullback)(cotangents)
                _, batched_jvp = vmap(partial(_jvp_at, op.op, x))(cotangents)
                batched_grad = vmap(torch.func.grad(lambda v: op.op(v).sum()))(cotangents)
            self.assertEqual(batched_vjp, torch.stack([pullback(c)[0] for c in cotangents]))
            self.assertEqual(batched_jvp, torch.stack([_jvp_at(op.op, x, c)[1] for c in cotangents]))
            self.assertEqual(batched_grad, 1 / (3 * op.op(cotangents) ** 2))


class TestSparseUnaryUfuncs(TestCase):
    _LAYOUTS = (
        ("supports_sparse", torch.sparse_coo, None),
        ("supports_sparse_csr", torch.sparse_csr, None),
        ("supports_sparse_csc", torch.sparse_csc, None),
        ("supports_sparse_bsr", torch.sparse_bsr, (2, 2)),
        ("supports_sparse_bsc", torch.sparse_bsc, (2, 2)),
    )

    def _sparse_dense_pairs(self, op, device, dtype):
        for sample in op.sample_inputs(device, dtype):
            dense = sample.input.clone()
            dense[dense.abs() < 4] = 0  # real sparsity, so cbrt(0) == 0 keeps the pattern
            for flag, layout, blocksize in self._LAYOUTS:
                self.assertTrue(getattr(op, flag), msg=flag)
                yield dense, dense.to_sparse(layout=layout, blocksize=blocksize)

    @ops(CBRT_OPS, allowed_dtypes=(torch.float32, torch.float64))
    def test_every_claimed_sparse_layout_matches_the_dense_result(self, device, dtype, op):
        for dense, sparse in self._sparse_dense_pairs(op, device, dtype):
            expected = op(dense)
            for name, result in (
                ("function", op(sparse)),
                ("method", op.method_variant(sparse)),
                ("inplace", op.inplace_variant(sparse.clone())),
                ("out", op(sparse, out=torch.empty_like(sparse))),
            ):
                self.assertEqual(result.layout, sparse.layout, msg=name)
                self.assertEqual(result.to_dense(), expected, msg=f"{name} {sparse.layout}")

    @ops(CBRT_OPS, allowed_dtypes=(torch.float64,))
    def test_sparse_backward_is_unsupported_as_the_opinfo_skip_says(self, device, dtype, op):
        # The OpInfo skips TestSparseUnaryUfuncs.test_sparse_fn_grad; this keeps that skip honest.
        skipped = [
            d for d in op.decorators if d.cls_name == "TestSparseUnaryUfuncs" and d.test_name == "test_sparse_fn_grad"
        ]
        self.assertEqual(len(skipped), 1)
        for _, sparse in self._sparse_dense_pairs(op, device, dtype):
            if sparse.layout not in (torch.sparse_coo, torch.sparse_csr):
                continue
            leaf = sparse.detach().requires_grad_()
            with self.assertRaises(RuntimeError):
                op(leaf).to_dense().sum().backward()


class TestOpcheck(TestCase):
    @ops(CBRT_OPS, allowed_dtypes=(torch.float32,))
    def test_opcheck_passes_for_the_functional_inplace_and_out_overloads(self, device, dtype, op):
        samples = [make_tensor((4, 5), dtype=dtype, device=device, noncontiguous=True)]
        samples += [s.input for s in op.sample_inputs(device, dtype)]
        for x in samples:
            for args, kwargs, overload in (
                ((x.clone().requires_grad_(),), {}, aten.cbrt.default),
                ((x.clone(),), {}, aten.cbrt_.default),
                ((x,), {"out": torch.empty_like(x)}, aten.cbrt.out),
                ((x.to(torch.int32),), {}, aten.cbrt.default),
            ):
                report = torch.library.opcheck(overload, args, kwargs)
                self.assertEqual(set(report.values()), {"SUCCESS"}, msg=f"{overload}: {report}")


class TestInductorOpInfo(TestCase):
    def setUp(self):
        super().setUp()
        if self.device_type == "cuda" and not has_triton():
            self.skipTest("Inductor on CUDA needs Triton")

    def _compiled_matches_eager(self, fn, *args):
        torch._dynamo.reset()
        expected = fn(*args)
        actual = torch.compile(fn, backend="inductor", fullgraph=True)(*args)
        self.assertEqual(actual, expected, exact_dtype=True)
        if actual.is_floating_point():
            self.assertTrue(torch.equal(actual.signbit(), expected.signbit()), msg="signed zeros differ")
        return actual

    def _light_samples(self, op, device, dtype):
        # a handful of the OpInfo's inputs: the sample, a vector with a loop tail,
        # an empty tensor, small values (signed zeros) and extremal values (inf/nan)
        samples = list(op.reference_inputs(device, dtype))
        picks = [samples[0]]
        picks += [next(s for s in samples if s.input.dim() == 1 and s.input.numel() % 16)]
        picks += [next(s for s in samples if s.input.numel() == 0)]
        picks += [next(s for s in samples if s.input.numel() and (s.input == 0).any() and s.input.signbit().any())]
        picks += [next(s for s in samples if s.input.isinf().any())]
        return picks

    @ops(CBRT_OPS, allowed_dtypes=(torch.float32, torch.float64))
    def test_compiled_forward_matches_eager_on_opinfo_samples(self, device, dtype, op):
        for sample in self._light_samples(op, device, dtype):
            self._compiled_matches_eager(op.op, sample.input)

    @ops(CBRT_OPS, allowed_dtypes=(torch.float32, torch.float64))
    def test_compiled_backward_matches_eager(self, device, dtype, op):
        sample = next(iter(op.sample_inputs(device, dtype, requires_grad=True)))
        x = sample.input
        torch._dynamo.reset()
        compiled = torch.compile(lambda t: op.op(t) * 2, backend="inductor")
        y = compiled(x)
        (grad,) = torch.autograd.grad(y.sum(), x)
        self.assertEqual(y, op.op(x) * 2)
        self.assertEqual(grad, 2 / (3 * op.op(x.detach()) ** 2))

    @ops(CBRT_OPS, allowed_dtypes=(torch.int32,))
    def test_compiled_integer_input_is_promoted_to_the_default_float_dtype(self, device, dtype, op):
        x = make_tensor((37,), dtype=dtype, device=device, low=-1000, high=1000)
        self.assertEqual(self._compiled_matches_eager(op.op, x).dtype, torch.float32)

    @onlyCPU
    @ops(CBRT_OPS, allowed_dtypes=(torch.float32,))
    def test_cpp_kernel_calls_the_vec_cbrt_instead_of_falling_back_to_aten(self, device, dtype, op):
        from torch._inductor.utils import run_and_get_code

        torch._dynamo.reset()
        x = make_tensor((1029,), dtype=dtype, device=device)
        result, (code, *_) = run_and_get_code(torch.compile(op.op, backend="inductor"), x)
        self.assertIn(".cbrt()", code)
        self.assertNotIn("aten.cbrt", code)
        self.assertEqual(result, op(x))

    @onlyCUDA
    @ops(CBRT_OPS, allowed_dtypes=(torch.float32,))
    def test_triton_kernel_calls_libdevice_cbrt_instead_of_falling_back_to_aten(self, device, dtype, op):
        from torch._inductor.utils import run_and_get_code

        torch._dynamo.reset()
        x = make_tensor((1029,), dtype=dtype, device=device)
        result, (code, *_) = run_and_get_code(torch.compile(op.op, backend="inductor"), x)
        self.assertIn("libdevice.cbrt" if not torch.version.hip else "aten.cbrt", code)
        self.assertEqual(result, op(x))

    @ops(CBRT_OPS, dtypes=OpDTypes.none)
    def test_dynamo_puts_every_cbrt_form_in_one_graph_without_breaks(self, device, op):
        def fn(x):
            out = torch.empty_like(x)
            torch.cbrt(x, out=out)
            y = x.clone()
            y.cbrt_()
            return torch.cbrt(x) + x.cbrt() + out + y + torch.cbrt_(x.clone())

        torch._dynamo.reset()
        counter = torch._dynamo.testing.CompileCounter()
        x = make_tensor((6,), dtype=torch.float32, device=device)
        self.assertEqual(torch.compile(fn, backend=counter, fullgraph=True)(x), fn(x))
        self.assertEqual(counter.frame_count, 1)


for _cls in (TestMeta, TestDecomp, TestVmapOperatorsOpInfo, TestSparseUnaryUfuncs, TestOpcheck, TestInductorOpInfo):
    instantiate(_cls, globals())

if __name__ == "__main__":
    unittest.main()

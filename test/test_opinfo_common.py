"""test_ops.py's checks for the cbrt OpInfo and the _refs.cbrt PythonRefInfo.

TestCommon (dtypes, references, out=, variants, python refs), TestCompositeCompliance,
TestMathBits, TestJit (test_ops_jit.py), TestTags, TestRefsOpsInfo and TestFakeTensor, run through the venv's
``torch.testing._internal`` machinery on the patched ``op_db``/``python_ref_db`` entries.
"""

from __future__ import annotations

import contextlib
import unittest
import warnings
from functools import partial

import torch
import torch._prims as prims
from opinfo_support import (
    CBRT_OPS,
    CBRT_OPS_AND_REFS,
    CBRT_OVERLOADS,
    CBRT_REFS,
    aten,
    instantiate,
)
from torch._prims.context import TorchRefsMode
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from torch._subclasses.fake_utils import CrossRefFakeMode, outputs_alias_inputs
from torch.testing import make_tensor
from torch.testing._internal import common_utils, composite_compliance
from torch.testing._internal.common_device_type import (
    OpDTypes,
    deviceCountAtLeast,
    onlyCPU,
    onlyCUDA,
    ops,
)
from torch.testing._internal.common_dtype import (
    all_types_and_complex_and,
    floating_and_complex_types_and,
    integral_types_and,
)
from torch.testing._internal.common_jit import JitCommonTestCase, check_against_reference
from torch.testing._internal.common_utils import (
    TestCase,
    clone_input_helper,
    first_sample,
    noncontiguous_like,
    set_default_dtype,
)
from torch.testing._internal.jit_metaprogramming_utils import (
    check_alias_annotation,
    create_script_fn,
    create_traced_fn,
)
from torch.testing._internal.jit_utils import disable_autodiff_subgraph_inlining
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten, tree_map_only

_variant_ops = partial(ops, dtypes=OpDTypes.supported, allowed_dtypes=(torch.float,))


def _distance(a: torch.Tensor, precise: torch.Tensor) -> torch.Tensor:
    """Summed absolute error of ``a`` against ``precise``, NaN matching NaN."""
    a = a.to(precise.dtype)
    same = (a == precise) | (a.isnan() & precise.isnan())
    return torch.where(same, 0, (a - precise).abs()).sum()


class TestOpInfoEntries(TestCase):
    def test_op_db_holds_exactly_one_cbrt_opinfo_and_one_python_ref(self):
        # Guards every @ops(...) below: an empty filter would instantiate no tests at all.
        self.assertEqual([op.name for op in CBRT_OPS], ["cbrt"])
        self.assertEqual([op.name for op in CBRT_REFS], ["_refs.cbrt"])
        (op,), (ref,) = CBRT_OPS, CBRT_REFS
        self.assertIs(ref.torch_opinfo, op)
        self.assertIs(op.op, torch.cbrt)
        self.assertIs(ref.op, torch._refs.cbrt)
        self.assertEqual(op.aten_name, "cbrt")

    def test_opinfo_claims_no_complex_dtype_on_any_device(self):
        # cbrt is the real cube root: complex inputs must stay unclaimed everywhere,
        # which is also why TestMathBits' conj-view tests are not instantiated.
        for op in CBRT_OPS_AND_REFS:
            for device_type in ("cpu", "cuda"):
                claimed = op.supported_dtypes(device_type)
                self.assertFalse(any(d.is_complex for d in claimed), msg=f"{op.name} {device_type}: {claimed}")


class TestCommon(TestCase):
    exact_dtype = True

    @ops(CBRT_OPS_AND_REFS, dtypes=OpDTypes.none)
    def test_claimed_dtypes_are_exactly_the_dtypes_that_work(self, device, op):
        device_type = torch.device(device).type
        backward_dtypes = floating_and_complex_types_and(torch.half, torch.bfloat16)
        forward_ok, forward_bad, backward_ok, backward_bad = set(), set(), set(), set()
        errors = {}
        for dtype in all_types_and_complex_and(torch.half, torch.bfloat16, torch.bool):
            requires_grad = dtype in backward_dtypes
            for sample in op.sample_inputs(device, dtype, requires_grad=requires_grad):
                try:
                    result = op(sample.input, *sample.args, **sample.kwargs)
                    forward_ok.add(dtype)
                except Exception as e:  # noqa: BLE001 - any failure means "unsupported"
                    forward_bad.add(dtype)
                    backward_bad.update({dtype} & set(backward_dtypes))
                    errors[dtype] = e
                    continue
                if not requires_grad:
                    continue
                try:
                    result = sample.output_process_fn_grad(result)
                    result.backward(torch.randn_like(result))
                    backward_ok.add(dtype)
                except Exception as e:  # noqa: BLE001
                    backward_bad.add(dtype)
                    errors[dtype] = e

        claimed = set(op.supported_dtypes(device_type))
        claimed_backward = set(op.supported_backward_dtypes(device_type))
        works, fails = forward_ok - forward_bad, forward_bad - forward_ok
        works_backward, fails_backward = backward_ok - backward_bad, backward_bad - backward_ok
        self.assertEqual(forward_ok & forward_bad, set(), msg="dtypes that work on some samples only")
        self.assertEqual(claimed & fails, set(), msg=f"claimed but failing in forward: {errors}")
        self.assertEqual(claimed_backward & fails_backward, set(), msg=f"claimed but failing in backward: {errors}")
        if op in CBRT_REFS:
            return  # references may support more than the op they mirror
        self.assertEqual(works - claimed, set(), msg="works in forward but is not listed by the OpInfo")
        self.assertEqual(works_backward - claimed_backward, set(), msg="works in backward but is not listed")

    @ops(CBRT_OPS, allowed_dtypes=integral_types_and(torch.bool))
    def test_integral_and_bool_inputs_produce_floating_results(self, device, dtype, op):
        self.assertTrue(op.promotes_int_to_float)
        for sample in op.sample_inputs(device, dtype):
            output = op(sample.input, *sample.args, **sample.kwargs)
            self.assertTrue(output.dtype.is_floating_point, msg=f"{dtype} was promoted to {output.dtype}")
            self.assertEqual(output.dtype, torch.get_default_dtype())

    @ops(CBRT_OPS, allowed_dtypes=(torch.float64, torch.long))
    def test_reference_inputs_match_numpy_in_double_and_long(self, device, dtype, op):
        with set_default_dtype(torch.double):
            for sample in op.reference_inputs(device, dtype):
                self.compare_with_reference(op, op.ref, sample, exact_dtype=(dtype is not torch.long))

    @ops(CBRT_OPS, allowed_dtypes=(torch.float32, torch.long))
    def test_noncontiguous_samples_match_contiguous_forward_and_backward(self, device, dtype, op):
        test_grad = dtype in op.supported_backward_dtypes(torch.device(device).type)
        for sample in op.sample_inputs(device, dtype, requires_grad=test_grad):
            noncontig = sample.noncontiguous()
            self.assertFalse(noncontig.input.is_contiguous() and noncontig.input.numel() > 1)
            self.assertIsNone(sample.input.grad_fn)
            expected = op(sample.input, *sample.args, **sample.kwargs)
            actual = op(noncontig.input, *noncontig.args, **noncontig.kwargs)
            self.assertEqual(actual, expected)
            if not test_grad:
                continue
            grad = torch.randn_like(expected)
            (t_grad,) = torch.autograd.grad(expected, sample.input, grad)
            (n_grad,) = torch.autograd.grad(actual, noncontig.input, noncontiguous_like(grad))
            self.assertEqual(n_grad, t_grad)

    def _check_out(self, op_out, expected, out, *, same_strides_and_storage=True):
        strides, ptr = out.stride(), out.data_ptr()
        self.assertIs(op_out(out=out), out)
        self.assertEqual(out, expected)
        if same_strides_and_storage:
            self.assertEqual(out.stride(), strides, msg="out= strides were not respected")
            self.assertEqual(out.data_ptr(), ptr, msg="out= storage was replaced")

    @ops(CBRT_OPS_AND_REFS, dtypes=OpDTypes.any_one)
    def test_out_argument_keeps_strides_and_storage_and_rejects_bad_device_or_dtype(self, device, dtype, op):
        self.assertTrue(op.supports_out)
        other_device = "cpu" if torch.device(device).type != "cpu" else ("cuda" if torch.cuda.is_available() else None)
        for sample in op.sample_inputs(device, dtype):
            expected = op(sample.input, *sample.args, **sample.kwargs)
            op_out = partial(op, sample.input, *sample.args, **sample.kwargs)
            # right shape, dtype and device but NaN-filled: the old values must not leak
            self._check_out(op_out, expected, torch.full_like(expected, float("nan")))
            # right shape, dtype and device but noncontiguous: strides and storage are kept
            noncontig = make_tensor(expected.shape, dtype=expected.dtype, device=device, noncontiguous=True)
            self._check_out(op_out, expected, noncontig)
            # zero elements: resized silently
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                empty = torch.empty((0,), dtype=expected.dtype, device=device)
                self._check_out(op_out, expected, empty, same_strides_and_storage=False)
            self.assertFalse(any("An output with one or more elements" in str(w.message) for w in caught))
            # wrong device
            if other_device is not None:
                with self.assertRaises(RuntimeError):
                    op_out(out=torch.empty_like(expected, device=other_device))
            # a dtype the floating result cannot safely be cast to
            with self.assertRaises(RuntimeError):
                op_out(out=torch.empty_like(expected, dtype=torch.long))

    @ops(CBRT_OPS_AND_REFS, dtypes=OpDTypes.none)
    def test_nonempty_out_of_wrong_shape_is_resized_with_a_warning(self, device, op):
        for sample in op.sample_inputs(device, torch.float32):
            expected = op(sample.input, *sample.args, **sample.kwargs)
            shape = list(expected.shape) or [1]
            shape[-1] += 1
            out = make_tensor(shape, dtype=expected.dtype, device=device)
            with self.assertWarnsRegex(UserWarning, "An output with one or more elements"):
                op(sample.input, *sample.args, **sample.kwargs, out=out)
            self.assertEqual(out, expected)

    @onlyCPU
    @ops(CBRT_OPS, allowed_dtypes=(torch.float32,))
    def test_out_dtype_mismatch_fails_alike_on_cpu_and_meta(self, device, dtype, op):
        def fails_on(dev, x, expected):
            try:
                op(x.to(dev), out=torch.empty_like(expected, device=dev, dtype=torch.float64))
            except RuntimeError:
                return True
            return False

        for sample in op.sample_inputs(device, dtype):
            expected = op(sample.input)
            # float32 result into a float64 out=: both devices accept it, or both reject it.
            self.assertEqual(fails_on(device, sample.input, expected), fails_on("meta", sample.input, expected))

    @_variant_ops(CBRT_OPS)
    def test_function_method_and_inplace_variants_agree_forward_and_backward(self, device, dtype, op):
        method, inplace = op.method_variant, op.inplace_variant
        self.assertIsNotNone(method)
        self.assertIsNotNone(inplace)
        requires_grad = dtype in op.supported_backward_dtypes(torch.device(device).type)
        for sample in op.sample_inputs(device, dtype, requires_grad=requires_grad):
            tensor = sample.input
            expected = op(tensor, *sample.args, **sample.kwargs)
            expected.sum().backward()
            expected_grad, tensor.grad = tensor.grad, None
            for variant in (method, inplace):
                is_inplace = variant is inplace
                arg = clone_input_helper(tensor) if is_inplace else tensor
                actual = variant(arg, *sample.args, **sample.kwargs)
                self.assertEqual(actual, expected)
                if is_inplace:
                    # the in-place variant writes into (and returns) its input's storage
                    self.assertEqual(actual.data_ptr(), arg.data_ptr())
                if not is_inplace or op.supports_inplace_autograd:
                    actual.sum().backward()
                    self.assertEqual(tensor.grad, expected_grad)
                    tensor.grad = None

    @ops(CBRT_OPS, allowed_dtypes=integral_types_and(torch.bool))
    def test_inplace_on_integral_tensor_is_rejected_since_result_is_floating(self, device, dtype, op):
        for sample in op.sample_inputs(device, dtype):
            with self.assertRaisesRegex(RuntimeError, "can't be cast to the desired output type"):
                op.inplace_variant(sample.input.clone())

    @ops(CBRT_OPS, allowed_dtypes=(torch.bool,))
    def test_bool_inputs_with_noncanonical_true_bytes_match_canonical_ones(self, device, dtype, op):
        def noncanonical(x):
            true_bytes = torch.randint(2, 255, x.shape, dtype=torch.uint8, device=x.device)
            weird = torch.where(x, true_bytes, torch.zeros((), dtype=torch.uint8, device=x.device)).view(torch.bool)
            self.assertEqual(weird, x)
            return weird

        for sample in op.sample_inputs(device, dtype):
            transformed = sample.transform(lambda x: noncanonical(x) if isinstance(x, torch.Tensor) else x)
            self.assertEqual(op(transformed.input), op(sample.input))

    @ops(CBRT_OPS, dtypes=OpDTypes.none)
    def test_error_inputs_raise_what_they_promise(self, device, op):
        # Upstream's test_errors: every ErrorInput of the OpInfo raises its documented error.
        error_inputs = list(op.error_inputs(device))
        self.assertTrue(error_inputs, "the OpInfo should describe the complex-input error")
        for error_input in error_inputs:
            sample = error_input.sample_input
            with self.assertRaisesRegex(error_input.error_type, error_input.error_regex):
                op(sample.input, *sample.args, **sample.kwargs)

    @ops(CBRT_OPS, dtypes=OpDTypes.none)
    def test_complex_inputs_raise_a_clear_error(self, device, op):
        for dtype in (torch.complex64, torch.complex128):
            x = make_tensor((3,), dtype=dtype, device=device)
            for fn in (torch.cbrt, torch.Tensor.cbrt, torch.Tensor.cbrt_, torch._refs.cbrt):
                with self.assertRaisesRegex(RuntimeError, "cbrt is not implemented for .*real cube root"):
                    fn(x.clone())

    @onlyCUDA
    @ops(CBRT_OPS)
    def test_cuda_results_match_cpu_results(self, device, dtype, op):
        for sample in op.reference_inputs(device, dtype):
            cpu_sample = sample.transform(lambda x: x.cpu() if isinstance(x, torch.Tensor) else x)
            self.assertEqual(op(sample.input).cpu(), op(cpu_sample.input), exact_device=False)

    @onlyCUDA
    @deviceCountAtLeast(2)
    @ops(CBRT_OPS, allowed_dtypes=(torch.float32, torch.long))
    def test_result_lives_on_the_input_cuda_device(self, devices, dtype, op):
        for device in devices:
            sample = first_sample(self, op.sample_inputs(device, dtype))
            self.assertEqual(op(sample.input).device, torch.device(device))

    # ---- python references (test_python_ref*, _ref_test_helper) -------------------------

    def _ref_matches_torch_op(self, ctx, device, dtype, op):
        precise = torch.double if dtype.is_floating_point else dtype
        for sample in op.reference_inputs(device, dtype, requires_grad=False):
            with ctx():
                ref_result = op(sample.input, *sample.args, **sample.kwargs)
            torch_result = op.torch_opinfo(sample.input, *sample.args, **sample.kwargs)
            prims.utils.compare_tensor_meta(ref_result, torch_result)
            self.assertEqual(ref_result._is_view(), torch_result._is_view())
            try:
                self.assertEqual(ref_result, torch_result, exact_stride=False, exact_device=True, exact_layout=True)
            except AssertionError:
                if dtype is precise:
                    raise
                # Otherwise the reference has to be at least as close to the precise result.
                precise_result = op.torch_opinfo(sample.input.to(precise))
                self.assertLessEqual(_distance(ref_result, precise_result), _distance(torch_result, precise_result))

    @ops(CBRT_REFS)
    def test_python_ref_matches_op_with_torch_calls_remapped_to_refs(self, device, dtype, op):
        self._ref_matches_torch_op(lambda: TorchRefsMode(strict=True), device, dtype, op)

    @ops(CBRT_REFS)
    def test_python_ref_matches_op_with_torch_calls_kept(self, device, dtype, op):
        self._ref_matches_torch_op(contextlib.nullcontext, device, dtype, op)

    @ops(CBRT_REFS, allowed_dtypes=(torch.float32, torch.float64, torch.int32))
    def test_python_ref_traced_with_aten_executor_matches_op(self, device, dtype, op):
        from copy import copy

        from torch._prims.executor import make_traced

        traced = copy(op)
        traced.op = partial(make_traced(op.op), executor="aten")
        self._ref_matches_torch_op(contextlib.nullcontext, device, dtype, traced)

    @ops(CBRT_REFS)
    def test_python_ref_propagates_metadata_under_prim_fake_mode(self, device, dtype, op):
        mode = FakeTensorMode()
        for sample in op.reference_inputs(device, dtype, requires_grad=False):
            result = op(sample.input, *sample.args, **sample.kwargs)
            fake = sample.transform(lambda x: FakeTensor.from_tensor(x, mode) if isinstance(x, torch.Tensor) else x)
            with mode:
                fake_result = op(fake.input, *fake.args, **fake.kwargs)
            self.assertIsInstance(fake_result, FakeTensor)
            prims.utils.compare_tensor_meta(result, fake_result, check_strides=True)

    @ops(CBRT_REFS, dtypes=OpDTypes.none)
    def test_python_ref_rejects_complex_fake_inputs(self, device, op):
        mode = FakeTensorMode()
        fake = FakeTensor.from_tensor(make_tensor((3,), dtype=torch.complex64, device=device), mode)
        with mode, self.assertRaisesRegex(RuntimeError, "real cube root"):
            op(fake)


class TestCompositeCompliance(TestCase):
    @ops(CBRT_OPS, allowed_dtypes=(torch.float,))
    def test_forward_is_composite_compliant_with_tensor_subclasses(self, device, dtype, op):
        for sample in op.sample_inputs(device, dtype, requires_grad=False):
            args = [sample.input, *sample.args]
            composite_compliance.check_with_mode(op, args, sample.kwargs, self.assertEqual)
            composite_compliance.check_all_permutations(op, args, sample.kwargs, self.assertEqual)

    @ops(CBRT_OPS, allowed_dtypes=(torch.float,))
    def test_backward_formula_is_composite_compliant(self, device, dtype, op):
        for sample in op.sample_inputs(device, dtype, requires_grad=True):
            composite_compliance.check_backward_formula(
                op.get_op(),
                [sample.input, *sample.args],
                sample.kwargs,
                sample.output_process_fn_grad,
                op.gradcheck_wrapper,
                self.assertEqual,
            )

    @ops(CBRT_OPS, allowed_dtypes=(torch.float,))
    def test_forward_ad_formula_is_composite_compliant(self, device, dtype, op):
        self.assertTrue(op.supports_forward_ad)
        for sample in op.sample_inputs(device, dtype, requires_grad=True):
            composite_compliance.check_forward_ad_formula(
                op.get_op(), [sample.input, *sample.args], sample.kwargs, op.gradcheck_wrapper, self.assertEqual
            )

    @ops(CBRT_OPS, allowed_dtypes=(torch.float,))
    def test_copy_on_write_inputs_are_never_materialized_forward_or_backward(self, device, dtype, op):
        self.assertTrue(op.supports_cow_input_no_materialize_forward)
        self.assertTrue(op.supports_cow_input_no_materialize_backward)
        for sample in op.sample_inputs(device, dtype, requires_grad=True):
            source = sample.input.detach().clone()
            cow = torch._lazy_clone(source).requires_grad_()
            self.assertTrue(torch._C._is_cow_tensor(cow))
            result = op(cow)
            self.assertTrue(torch._C._is_cow_tensor(cow), msg="forward materialized its COW input")
            self.assertTrue(torch._C._is_cow_tensor(source))
            self.assertEqual(result, op(source))
            grad = torch._lazy_clone(torch.randn_like(result))
            result.backward(grad)
            self.assertTrue(torch._C._is_cow_tensor(grad), msg="backward materialized its COW grad_output")
            self.assertTrue(torch._C._is_cow_tensor(cow), msg="backward materialized its COW input")


class TestMathBits(TestCase):
    # For a real-only op upstream instantiates only test_neg_view (double); the
    # conj and neg-conj views require complex dtypes, which cbrt does not claim.
    @ops(CBRT_OPS_AND_REFS, allowed_dtypes=(torch.double,))
    def test_negative_bit_views_give_the_same_forward_inplace_and_gradients(self, device, dtype, op):
        self.assertTrue(op.test_neg_view)
        requires_grad = op.supports_autograd
        for sample in op.sample_inputs(device, dtype, requires_grad=requires_grad):

            def neg_view(t, requires_grad=requires_grad):
                with torch.no_grad():
                    physical = torch.neg(t)
                view = torch._neg_view(physical)
                self.assertTrue(view.is_leaf)
                return view.requires_grad_(requires_grad)

            viewed = neg_view(sample.input)
            self.assertTrue(viewed.is_neg())
            expected = op(sample.input)
            actual = op(viewed)
            self.assertEqual(actual, expected)

            if op.inplace_variant is not None:
                inplace_result = op.inplace_variant(neg_view(sample.input, requires_grad=False))
                self.assertTrue(inplace_result.is_neg())
                self.assertEqual(inplace_result, expected)

            if requires_grad:
                grad = torch.randn_like(expected)
                expected.backward(grad)
                actual.backward(torch._neg_view(torch.neg(grad)))
                self.assertEqual(sample.input.grad, viewed.grad)


class TestJit(JitCommonTestCase):
    # test_ops_jit.py: the OpInfo claims supports_scripting/supports_tracing and lists
    # aten::cbrt as a nonfusible autodiff node.
    def setUp(self):
        super().setUp()
        # run_tests() normally picks the graph executor; under pytest it is never called.
        if common_utils.GRAPH_EXECUTOR is None:
            common_utils.GRAPH_EXECUTOR = common_utils.cppProfilingFlagsToProfilingMode()

    @ops(CBRT_OPS, allowed_dtypes=(torch.float32,))
    def test_scripted_and_traced_variants_match_eager_values_and_gradients(self, device, dtype, op):
        self.assertTrue(op.supports_scripting and op.supports_tracing)
        for sample in op.sample_inputs(device, dtype, requires_grad=True):
            args = (sample.input, *sample.args)
            for func_type, variant in (("function", op.op), ("method", op.method_variant)):
                with disable_autodiff_subgraph_inlining():
                    script_fn = create_script_fn(self, op.name, func_type)
                    traced_fn = create_traced_fn(self, variant)
                    for jit_fn in (script_fn, traced_fn):
                        check_against_reference(
                            self, jit_fn, op.get_op(), sample.output_process_fn_grad, args, sample.kwargs
                        )
                        self.assertAutodiffNode(
                            jit_fn.last_graph,
                            op.assert_autodiffed,
                            op.autodiff_nonfusible_nodes,
                            op.autodiff_fusible_nodes,
                        )
                    check_alias_annotation(op.name, args, sample.kwargs, func_type=func_type, aten_name=op.aten_name)


def _check_inplace_view(func, arg, result, size, stride) -> None:
    # An op that changed its input's size or strides in place must carry the inplace_view tag.
    if func is None or result is not arg:
        return
    if isinstance(func, torch._ops.OpOverloadPacket):
        func = func.default
    if (result.size() != size or result.stride() != stride) and func is not aten.resize_.default:
        assert torch.Tag.inplace_view in func.tags, func


class _TagsMode(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        first = args[0] if args and isinstance(args[0], torch.Tensor) else None
        if first is None:
            return func(*args, **kwargs)
        size, stride = first.size(), first.stride()
        result = func(*args, **kwargs)
        _check_inplace_view(func, first, result, size, stride)
        return result


class TestTags(TestCase):
    @onlyCPU
    @ops(CBRT_OPS_AND_REFS, dtypes=OpDTypes.any_one)
    def test_no_call_resizes_or_restrides_its_input_without_the_inplace_view_tag(self, device, dtype, op):
        for sample in op.sample_inputs(device, dtype, requires_grad=False):
            size, stride = sample.input.size(), sample.input.stride()
            with _TagsMode():
                result = op(sample.input, *sample.args, **sample.kwargs)
            _check_inplace_view(getattr(aten, op.aten_name or op.name, None), sample.input, result, size, stride)

    def test_every_cbrt_overload_is_tagged_pointwise_and_only_the_inplace_one_inplace(self):
        for overload in CBRT_OVERLOADS:
            self.assertIn(torch.Tag.pointwise, overload.tags, msg=str(overload))
            self.assertIn(torch.Tag.pt2_compliant_tag, overload.tags, msg=str(overload))
            self.assertNotIn(torch.Tag.inplace_view, overload.tags, msg=str(overload))
            self.assertNotIn(torch.Tag.nondeterministic_seeded, overload.tags, msg=str(overload))
        self.assertIn(torch.Tag.inplace, aten.cbrt_.default.tags)
        self.assertIn(torch.Tag.out, aten.cbrt.out.tags)
        self.assertFalse(aten.cbrt.default._schema.is_mutable)
        self.assertTrue(aten.cbrt_.default._schema.is_mutable)


class TestRefsOpsInfo(TestCase):
    def test_ref_is_exported_by_torch_refs_and_listed_in_python_ref_db(self):
        self.assertIn("cbrt", torch._refs.__all__)
        self.assertIn("_refs.cbrt", {ref.name for ref in CBRT_REFS})

    def test_ref_and_its_inplace_form_are_the_registered_decompositions(self):
        table = torch._decomp.decomposition_table
        self.assertIn(torch._refs.cbrt, table.values())
        self.assertIs(table[aten.cbrt.default], torch._refs.cbrt)
        self.assertIs(table[aten.cbrt.out], torch._refs.cbrt)
        self.assertIs(table[aten.cbrt_.default], torch._refs.cbrt_)

    def test_prims_cbrt_is_wired_to_the_aten_operator(self):
        # prims.cbrt lowers to torch.cbrt: equal results prove the wiring, not accuracy.
        x = torch.linspace(-30, 30, 61, dtype=torch.float64)
        self.assertEqual(prims.cbrt(x), torch.cbrt(x), atol=0, rtol=0)
        with self.assertRaisesRegex(RuntimeError, "cbrt: Complex inputs not supported"):
            prims.cbrt(x.to(torch.complex128))


class TestFakeTensor(TestCase):
    def _fake_matches_real(self, device, dtype, op, context):
        for sample in op.sample_inputs(device, dtype, requires_grad=False):
            mode = FakeTensorMode()
            fake = tree_map_only(torch.Tensor, mode.from_tensor, (sample.input, sample.args, sample.kwargs))
            with context():
                real_result = op(sample.input, *sample.args, **sample.kwargs)
            with context(), mode:
                fake_result = op(fake[0], *fake[1], **fake[2])
            for fake_out, real_out in zip(tree_flatten(fake_result)[0], tree_flatten(real_result)[0], strict=True):
                self.assertIsInstance(fake_out, FakeTensor)
                prims.utils.compare_tensor_meta(fake_out, real_out, check_strides=True)
            self.assertEqual(
                outputs_alias_inputs(fake_result, fake), outputs_alias_inputs(real_result, (sample.input,))
            )

    @ops(CBRT_OPS, dtypes=OpDTypes.any_one)
    def test_fake_outputs_match_real_metadata_and_aliasing(self, device, dtype, op):
        self._fake_matches_real(device, dtype, op, contextlib.nullcontext)

    @ops(CBRT_OPS, dtypes=OpDTypes.any_one)
    def test_fake_outputs_match_real_metadata_under_autocast(self, device, dtype, op):
        self._fake_matches_real(device, dtype, op, partial(torch.autocast, torch.device(device).type))

    def _fake_crossref(self, device, dtype, op, context):
        skip = (aten.detach.default, aten.empty_strided.default, aten.copy_.default, aten.is_same_size.default)
        for sample in op.sample_inputs(device, dtype, requires_grad=True):
            with CrossRefFakeMode(ignore_op_fn=lambda fn: fn in skip, check_aliasing=True):
                with warnings.catch_warnings(), context(), torch.autograd.set_multithreading_enabled(False):
                    composite_compliance.compute_expected_grads(
                        op.get_op(),
                        [sample.input, *sample.args],
                        sample.kwargs,
                        sample.output_process_fn_grad,
                        op.gradcheck_wrapper,
                    )

    @ops(CBRT_OPS, allowed_dtypes=(torch.float,))
    def test_every_forward_and_backward_call_passes_fake_crossref(self, device, dtype, op):
        self._fake_crossref(device, dtype, op, contextlib.nullcontext)

    @ops(CBRT_OPS, allowed_dtypes=(torch.float,))
    def test_every_forward_and_backward_call_passes_fake_crossref_under_autocast(self, device, dtype, op):
        self._fake_crossref(device, dtype, op, partial(torch.autocast, torch.device(device).type))

    @onlyCPU
    @ops(CBRT_OPS, allowed_dtypes=(torch.float32,))
    def test_fake_cuda_tensors_get_cuda_outputs_without_a_gpu(self, device, dtype, op):
        # FakeTensorMode can model CUDA tensors without a GPU: the cbrt meta kernel is device-agnostic.
        with FakeTensorMode(allow_non_fake_inputs=False):
            x = torch.empty(4, 6, device="cuda", dtype=dtype).t()
            for fn in (op.op, op.method_variant):
                out = fn(x)
                self.assertEqual(out.device.type, "cuda")
                self.assertEqual(out.stride(), x.stride())
            self.assertEqual(torch.cbrt(torch.empty(3, device="cuda", dtype=torch.int32)).dtype, torch.float32)


instantiate(TestCommon, globals())
instantiate(TestCompositeCompliance, globals())
instantiate(TestMathBits, globals())
instantiate(TestJit, globals())
instantiate(TestTags, globals())
instantiate(TestRefsOpsInfo, globals(), only_for=("cpu",))
instantiate(TestFakeTensor, globals())

if __name__ == "__main__":
    unittest.main()

"""test_unary_ufuncs.py for the cbrt UnaryUfuncInfo.

Reference numerics on the OpInfo input generators, within the documented ulp bounds of scripts/measure/accuracy.py's
correctly rounded reference rather than of the OpInfo's np.cbrt (whose float32 error, up to 2 ulp, depends on
the SIMD path NumPy picks on the machine), with the OpInfo's reference giving the result dtype; and the contiguity,
slicing and out= consistency checks test_unary_ufuncs.py runs for every unary ufunc.
"""

from __future__ import annotations

import unittest

import numpy as np
import torch
from opinfo_support import CBRT_OPS, instantiate
from torch.testing import make_tensor
from torch.testing._internal.common_device_type import ops
from torch.testing._internal.common_dtype import all_types_and_complex_and, floating_types_and
from torch.testing._internal.common_utils import TestCase, numpy_to_torch_dtype_dict
from torch.testing._internal.opinfo.core import (
    generate_elementwise_unary_extremal_value_tensors,
    generate_elementwise_unary_large_value_tensors,
    generate_elementwise_unary_small_value_tensors,
    generate_elementwise_unary_tensors,
)

from scripts.measure.accuracy import longdouble_cbrt, round_reference

# Against the correctly rounded reference: half and bfloat16 are correctly rounded,
# so exact; float32 (0.75 ulp) and float64 (0.67 ulp) are at most 1 ulp from the correctly rounded result, which
# rtol = one ulp of 1.0 accepts and 2 ulp rejects. Integer inputs compute in float32 on both sides.
_ONE_ULP = {torch.float32: 2.0**-23, torch.float64: 2.0**-52}


def _correctly_rounded_reference(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    # Integer inputs compute in the default float dtype, as the kernel and the OpInfo's wrapper do.
    flat = t.detach().cpu().flatten()
    if dtype is torch.float64:
        return torch.from_numpy(longdouble_cbrt(flat.numpy()).astype(np.float64)).view(t.shape)
    x = flat if flat.dtype.is_floating_point else flat.to(dtype)
    return round_reference(x, dtype).view(t.shape)


class TestUnaryUfuncs(TestCase):
    exact_dtype = True

    def _within_one_ulp(self, dtype, op, samples):
        checked = 0
        for sample in samples:
            t = sample.input
            torch_kwargs, numpy_kwargs = op.sample_kwargs(t.device, dtype, t)
            array = t.detach().cpu().to(torch.float32 if dtype is torch.bfloat16 else dtype).numpy()
            actual = op(t, **torch_kwargs)
            expected = np.asarray(op.ref(array, **numpy_kwargs))
            expected_dtype = numpy_to_torch_dtype_dict[expected.dtype.type]
            # NumPy has no bfloat16, and integer inputs go through the default float dtype
            self.assertEqual(actual.dtype, dtype if dtype.is_floating_point else torch.get_default_dtype())
            self.assertTrue(expected_dtype.is_floating_point, msg=str(expected.dtype))
            expected = _correctly_rounded_reference(t, actual.dtype)
            msg = f"{dtype} input of shape {tuple(t.shape)} and strides {t.stride()}"
            self.assertEqual(
                actual,
                expected,
                msg=msg,
                exact_device=False,
                equal_nan=True,
                atol=0,
                rtol=_ONE_ULP.get(actual.dtype, 0),
            )
            checked += 1
        self.assertGreater(checked, 0)

    @ops(CBRT_OPS)
    def test_normal_values_within_one_ulp(self, device, dtype, op):
        self._within_one_ulp(
            dtype, op, generate_elementwise_unary_tensors(op, device=device, dtype=dtype, requires_grad=False)
        )

    @ops(
        CBRT_OPS,
        allowed_dtypes=floating_types_and(
            torch.bfloat16, torch.half, torch.int8, torch.int16, torch.int32, torch.int64
        ),
    )
    def test_small_values_within_one_ulp(self, device, dtype, op):
        self._within_one_ulp(dtype, op, generate_elementwise_unary_small_value_tensors(op, device=device, dtype=dtype))

    @ops(CBRT_OPS, allowed_dtypes=floating_types_and(torch.bfloat16, torch.half, torch.int16, torch.int32, torch.int64))
    def test_large_values_within_one_ulp(self, device, dtype, op):
        self.assertTrue(op.handles_large_floats)
        self._within_one_ulp(dtype, op, generate_elementwise_unary_large_value_tensors(op, device=device, dtype=dtype))

    @ops(CBRT_OPS, allowed_dtypes=floating_types_and(torch.bfloat16, torch.half))
    def test_extremal_values_within_one_ulp(self, device, dtype, op):
        self._within_one_ulp(
            dtype, op, generate_elementwise_unary_extremal_value_tensors(op, device=device, dtype=dtype)
        )

    @ops(CBRT_OPS)
    def test_domain_is_the_whole_real_line(self, device, dtype, op):
        # No domain means test_float_domains has nothing to probe: no finite input may give NaN.
        self.assertEqual(op.domain, (None, None))
        self.assertIsNone(op.reference_numerics_filter)
        if dtype.is_floating_point:
            info = torch.finfo(dtype)
            x = torch.tensor(
                [info.min, -1.0, -info.tiny, -0.0, 0.0, info.tiny, 1.0, info.max], dtype=dtype, device=device
            )
        else:
            x = make_tensor((64,), dtype=dtype, device=device)
        self.assertFalse(op(x).isnan().any())

    def _make(self, op, shape, device, dtype):
        return make_tensor(shape, dtype=dtype, device=device, low=op.domain[0], high=op.domain[1])

    @ops(CBRT_OPS)
    def test_every_other_element_matches_contiguous(self, device, dtype, op):
        contig = self._make(op, (1026,), device, dtype)
        non_contig = contig[::2]
        self.assertFalse(non_contig.is_contiguous())
        self.assertEqual(op(contig)[::2], op(non_contig))

    @ops(CBRT_OPS)
    def test_transposed_input_matches_contiguous(self, device, dtype, op):
        contig = self._make(op, (789, 357), device, dtype)
        non_contig = contig.T
        self.assertEqual(op(contig), op(non_contig).T)

    @ops(CBRT_OPS)
    def test_noncontiguous_input_matches_contiguous(self, device, dtype, op):
        for shape in ((5, 7), (1024,)):
            contig = self._make(op, shape, device, dtype)
            non_contig = torch.empty((*shape, 2), device=device, dtype=dtype)[..., 0]
            non_contig.copy_(contig)
            self.assertFalse(non_contig.is_contiguous())
            self.assertEqual(op(contig), op(non_contig))

    @ops(CBRT_OPS)
    def test_indexed_noncontiguous_input_matches_its_contiguous_copy(self, device, dtype, op):
        non_contig = self._make(op, (2, 2, 1, 2), device, dtype)[:, 1, ...]
        self.assertFalse(non_contig.is_contiguous())
        self.assertEqual(op(non_contig.contiguous()), op(non_contig))

    @ops(CBRT_OPS)
    def test_expanded_input_matches_every_slice(self, device, dtype, op):
        for shape in ((1, 3), (1, 7), (5, 7)):
            contig = self._make(op, shape, device, dtype)
            expanded = contig.clone().expand(3, -1, -1)
            expected, actual = op(contig), op(expanded)
            for i in range(3):
                self.assertEqual(actual[i], expected)

    @ops(CBRT_OPS)
    def test_size_one_dims_match_a_contiguous_copy(self, device, dtype, op):
        for shape, index in (
            ((5, 100), (slice(0, 1), slice(0, 50))),
            ((10, 1, 5, 3), (slice(None), slice(None), slice(0, 1))),
        ):
            view = self._make(op, shape, device, dtype)[index]
            copy = torch.empty(view.size(), device=device, dtype=dtype).copy_(view)
            self.assertEqual(op(view), op(copy))

    @ops(CBRT_OPS)
    def test_many_dims_with_size_one_slices_match_a_contiguous_copy(self, device, dtype, op):
        view = self._make(op, (5, 2, 3, 1, 4, 5, 3, 2, 1, 2, 3, 4), device, dtype)[:1, :, :, :, :, :, :, :, :, :, :, :2]
        copy = torch.empty(view.size(), device=device, dtype=dtype).copy_(view)
        self.assertEqual(op(view), op(copy))

    @ops(CBRT_OPS)
    def test_batched_result_matches_stacked_slice_results(self, device, dtype, op):
        batch = self._make(op, (1024, 512), device, dtype)
        self.assertEqual(op(batch), torch.stack([op(row) for row in batch]))

    @ops(CBRT_OPS)
    def test_out_accepts_exactly_the_dtypes_the_result_can_be_cast_to(self, device, dtype, op):
        x = self._make(op, (64, 64), device, dtype)
        expected = op(x)
        for out_dtype in all_types_and_complex_and(torch.bool, torch.half, torch.bfloat16):
            out = torch.empty_like(x, dtype=out_dtype)
            if not torch.can_cast(expected.dtype, out_dtype):
                with self.assertRaises(RuntimeError, msg=f"{expected.dtype} -> {out_dtype}"):
                    op(x, out=out)
                continue
            self.assertIs(op(x, out=out), out)
            self.assertEqual(out, expected.to(out_dtype), exact_dtype=True)


instantiate(TestUnaryUfuncs, globals())

if __name__ == "__main__":
    unittest.main()

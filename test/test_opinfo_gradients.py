"""test_ops_gradients.py and test_ops_fwd_gradients.py for the cbrt OpInfo.

Runs the venv's ``TestGradients`` helpers (gradcheck/gradgradcheck over the
OpInfo's samples, honouring check_batched_grad, check_batched_forward_grad,
gradcheck_nondet_tol, gradcheck_fast_mode and gradcheck_wrapper) in float64.
"""

from __future__ import annotations

import unittest
from functools import partial

import torch
from opinfo_support import CBRT_OPS, instantiate
from torch.testing._internal.common_device_type import OpDTypes, ops
from torch.testing._internal.common_utils import TestGradients, gradcheck, gradgradcheck

# gradcheck needs double precision; cbrt has no complex dtypes, so this is float64 only.
_gradcheck_ops = partial(ops, dtypes=OpDTypes.supported, allowed_dtypes=(torch.double, torch.cdouble))


class TestBwdGradients(TestGradients):
    @_gradcheck_ops(CBRT_OPS)
    def test_function_gradients_match_finite_differences(self, device, dtype, op):
        self._skip_helper(op, device, dtype)
        self._grad_test_helper(device, dtype, op, op.get_op())

    @_gradcheck_ops(CBRT_OPS)
    def test_method_gradients_match_finite_differences(self, device, dtype, op):
        self._skip_helper(op, device, dtype)
        self._grad_test_helper(device, dtype, op, op.get_method())

    @_gradcheck_ops(CBRT_OPS)
    def test_inplace_gradients_match_finite_differences(self, device, dtype, op):
        self._skip_helper(op, device, dtype)
        self.assertTrue(op.supports_inplace_autograd)
        self._grad_test_helper(device, dtype, op, self._get_safe_inplace(op.get_inplace()))

    @_gradcheck_ops(CBRT_OPS)
    def test_function_second_derivatives_match_finite_differences(self, device, dtype, op):
        self._skip_helper(op, device, dtype)
        self.assertTrue(op.supports_gradgrad)
        self._check_helper(device, dtype, op, op.get_op(), "bwgrad_bwgrad")

    @_gradcheck_ops(CBRT_OPS)
    def test_method_second_derivatives_match_finite_differences(self, device, dtype, op):
        self._skip_helper(op, device, dtype)
        self._check_helper(device, dtype, op, op.get_method(), "bwgrad_bwgrad")

    @_gradcheck_ops(CBRT_OPS)
    def test_inplace_second_derivatives_match_finite_differences(self, device, dtype, op):
        self._skip_helper(op, device, dtype)
        self._check_helper(device, dtype, op, self._get_safe_inplace(op.get_inplace()), "bwgrad_bwgrad")

    @_gradcheck_ops(CBRT_OPS)
    def test_gradients_hold_on_the_whole_real_line_away_from_zero(self, device, dtype, op):
        # The OpInfo samples are uniform in [-9, 9); this also covers large
        # magnitudes and values near (but not at) the singular point 0.
        x = torch.tensor([-1e6, -123.5, -1.0, -1e-3, 2e-3, 0.5, 7.0, 3.5e5], dtype=dtype, device=device)
        x.requires_grad_()
        self.assertTrue(gradcheck(op.op, (x,), check_batched_grad=True))
        self.assertTrue(gradgradcheck(op.op, (x,), check_batched_grad=True))

    @_gradcheck_ops(CBRT_OPS)
    def test_gradient_at_zero_is_inf_with_the_sign_of_the_incoming_gradient(self, device, dtype, op):
        x = torch.zeros(2, dtype=dtype, device=device, requires_grad=True)
        op(x).backward(torch.tensor([1.0, -1.0], dtype=dtype, device=device))
        self.assertEqual(x.grad, torch.tensor([float("inf"), -float("inf")], dtype=dtype))


class TestFwdGradients(TestGradients):
    def _forward_grad_helper(self, device, dtype, op, variant, is_inplace):
        self.assertTrue(op.supports_forward_ad)
        check_batched = op.check_inplace_batched_forward_grad if is_inplace else op.check_batched_forward_grad
        self._grad_test_helper(
            device,
            dtype,
            op,
            variant,
            check_forward_ad=True,
            check_backward_ad=False,
            check_batched_grad=False,
            check_batched_forward_grad=check_batched,
        )

    @_gradcheck_ops(CBRT_OPS)
    def test_forward_mode_gradients_match_finite_differences(self, device, dtype, op):
        self._skip_helper(op, device, dtype)
        self._forward_grad_helper(device, dtype, op, op.get_op(), is_inplace=False)

    @_gradcheck_ops(CBRT_OPS)
    def test_inplace_forward_mode_gradients_match_finite_differences(self, device, dtype, op):
        self._skip_helper(op, device, dtype)
        self._forward_grad_helper(device, dtype, op, self._get_safe_inplace(op.get_inplace()), is_inplace=True)

    @_gradcheck_ops(CBRT_OPS)
    def test_forward_over_reverse_gradients_match_finite_differences(self, device, dtype, op):
        self._skip_helper(op, device, dtype)
        self.assertTrue(op.supports_fwgrad_bwgrad)
        self._check_helper(device, dtype, op, op.get_op(), "fwgrad_bwgrad")


instantiate(TestBwdGradients, globals())
instantiate(TestFwdGradients, globals())

if __name__ == "__main__":
    unittest.main()

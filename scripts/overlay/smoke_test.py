#!/usr/bin/env python3
"""Smoke test of an installed cbrt overlay: run with the venv's interpreter.

Each check prints one line; the exit status is the number of failed checks.
CUDA checks run only when a GPU is visible.
"""

from __future__ import annotations

import sys
import traceback
import warnings
from collections.abc import Callable

import torch

Check = Callable[[], None]
CHECKS: list[tuple[str, Check]] = []


def check(fn: Check) -> Check:
    CHECKS.append((fn.__name__, fn))
    return fn


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


@check
def loaded_before_prims() -> None:
    expect("_torch_cbrt_overlay" in sys.modules, "the loader was not imported by torch/__init__.py")
    expect(hasattr(torch, "cbrt") and hasattr(torch, "cbrt_"), "torch.cbrt / torch.cbrt_ missing")
    expect("cbrt" in torch.__all__, "torch.cbrt not in torch.__all__")
    expect(torch.cbrt.__module__ == "torch", f"torch.cbrt.__module__ is {torch.cbrt.__module__}")


@check
def values_and_backward() -> None:
    x = torch.tensor([-27.0, -8, -1, 1, 8, 27], requires_grad=True)
    y = torch.cbrt(x)
    expect(torch.equal(y.detach(), torch.tensor([-3.0, -2, -1, 1, 2, 3])), f"cbrt gave {y}")
    expect(type(y.grad_fn).__name__ == "CbrtBackward0", f"grad_fn is {y.grad_fn}")
    y.sum().backward()
    expect(torch.allclose(x.grad, 1 / (3 * y.detach() ** 2)), f"grad {x.grad}")


@check
def gradcheck() -> None:
    z = torch.linspace(-2, 2, 20, dtype=torch.double)
    z = z[z != 0].requires_grad_()
    expect(torch.autograd.gradcheck(torch.cbrt, (z,)), "gradcheck")
    expect(torch.autograd.gradgradcheck(torch.cbrt, (z,)), "gradgradcheck")


@check
def dispatch_table() -> None:
    dump = torch._C._dispatch_dump("aten::cbrt")
    for key in ("CPU:", "Meta:", "Autograd[alias]:", "SparseCPU:", "SparseCsrCPU:"):
        expect(key in dump, f"no {key} kernel in\n{dump}")


@check
def meta_and_fake() -> None:
    expect(torch.cbrt(torch.empty(3, device="meta")).shape == (3,), "meta")
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        expect(torch.cbrt(torch.empty(2, 3)).shape == (2, 3), "fake")


@check
def forward_ad() -> None:
    _, tangent = torch.func.jvp(torch.cbrt, (torch.tensor([8.0]),), (torch.tensor([1.0]),))
    expect(torch.allclose(tangent, torch.tensor([1 / 12])), f"jvp tangent {tangent}")


@check
def int_to_float() -> None:
    out = torch.cbrt(torch.ones(3, dtype=torch.int64))
    expect(out.dtype == torch.get_default_dtype(), f"int64 input gave {out.dtype}")


@check
def ops_overloads() -> None:
    expect(torch.ops.aten.cbrt.default(torch.tensor([27.0])).item() == 3.0, "aten.cbrt.default")
    out = torch.empty(1)
    torch.ops.aten.cbrt.out(torch.tensor([8.0]), out=out)
    expect(out.item() == 2.0, "aten.cbrt.out")
    expect(torch.ops.aten.cbrt_(torch.tensor([64.0])).item() == 4.0, "aten.cbrt_")


@check
def python_bindings() -> None:
    t = torch.tensor([125.0])
    expect(t.cbrt().item() == 5.0 and t.cbrt_() is t and t.item() == 5.0, "Tensor.cbrt / cbrt_")
    out = torch.empty(2)
    expect(torch.cbrt(input=torch.tensor([1.0, 8.0]), out=out) is out, "out= returns out")
    for bad in (lambda: torch.cbrt(1), lambda: torch.cbrt(torch.ones(1), 2)):
        try:
            bad()
        except TypeError:
            continue
        raise AssertionError("a bad call did not raise TypeError")


@check
def torch_function_override() -> None:
    seen: list[object] = []

    class Sub(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN206
            seen.append(func)
            return super().__torch_function__(func, types, args, kwargs or {})

    s = torch.tensor([8.0]).as_subclass(Sub)
    torch.cbrt(s)
    s.cbrt()
    expect(torch.cbrt in seen and torch.Tensor.cbrt in seen, f"__torch_function__ saw {seen}")


@check
def sparse() -> None:
    dense = torch.tensor([[0.0, 8.0], [27.0, 0.0]])
    expected = torch.tensor([[0.0, 2.0], [3.0, 0.0]])
    expect(torch.equal(torch.cbrt(dense.to_sparse()).to_dense(), expected), "sparse COO")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expect(torch.equal(torch.cbrt(dense.to_sparse_csr()).to_dense(), expected), "sparse CSR")


@check
def transforms() -> None:
    batch = torch.tensor([[8.0], [27.0]])
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="There is a performance drop")
        expect(torch.equal(torch.vmap(torch.cbrt)(batch), torch.tensor([[2.0], [3.0]])), "vmap")
    functional = torch.func.functionalize(lambda a: a.clone().cbrt_())
    expect(functional(torch.tensor([8.0])).item() == 2.0, "functionalize")


@check
def cuda() -> None:
    if not torch.cuda.is_available():
        print("    (no GPU: skipped)")
        return
    for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        x = torch.tensor([-27.0, 8.0], dtype=dtype, device="cuda")
        expect(torch.equal(torch.cbrt(x).cpu(), torch.tensor([-3.0, 2.0], dtype=dtype)), f"CUDA {dtype}")


def main() -> int:
    failed = 0
    for name, fn in CHECKS:
        try:
            fn()
            print(f"ok    {name}")
        except Exception:
            failed += 1
            print(f"FAIL  {name}\n{traceback.format_exc()}")
    print(f"{len(CHECKS) - failed} passed, {failed} failed")
    return failed


if __name__ == "__main__":
    sys.exit(main())

"""Upstream's numerical cbrt checks on one commit's Python side: `python test/series_numerics.py SHADOW_DIR`.

SHADOW_DIR holds torch Python files at their wheel paths (scripts/patchset/python_states.py writes one commit
boundary's); an import hook loads them in place of the install's, before torch is imported, so torch._refs,
torch._prims, the OpInfo database, ... are that commit's, while the operator is the overlay's. Then, on CPU, for
float16, bfloat16, float32 and float64:

- test_ops.py's TestCommon.test_python_ref and test_python_ref_torch_fallback (_ref_test_helper): torch._refs.cbrt
  against torch.cbrt on the PythonRefInfo's reference_inputs, with TestCase.assertEqual and the OpInfo's tolerance
  overrides; where they differ, the reference must be no farther than the operator from the result computed in
  float64 (summed absolute error, NaN matching NaN);
- test_decomp.py's TestDecomp cross-reference (DecompCrossRefMode, run_all=False): every aten.cbrt call that
  the OpInfo's sample_inputs make, under the python dispatcher, also runs torch._decomp.decomposition_table's
  entry; float16 and bfloat16 compare both to the float64 operator (op_assert_ref: the decomposition's largest
  error may exceed the operator's by 1e-7), float32 and float64 compare them directly (op_assert_equal,
  dtype_precisions), and aten.cbrt must have been decomposed;
- not an upstream test: _ref_test_helper's comparison applied to prims.cbrt itself, the prim that the
  decomposition ends in. The reference computes float16 and bfloat16 in float32 (its type promotion wrapper), which
  hides a composite prims.cbrt from the two checks above on CPU: in those dtypes the composite is off by one ulp
  on 18 float16 inputs of all 65536 and on no bfloat16 input, always within tolerance. The prim runs in the
  input's dtype, where the composite misses tolerance and is farther than the kernel from the float64 result.

Unlike upstream, every sample is checked (upstream stops at the first failure), so the report counts them.
Prints one JSON line: the modules loaded from SHADOW_DIR, then per check and dtype the samples and failures, or
`skip` with the reason when this commit has no torch._refs.cbrt / cbrt OpInfo yet.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from pathlib import Path

HIDDEN_LIST = "hidden-modules.json"  # scripts/patchset/python_states.py
DTYPE_NAMES = ("float16", "bfloat16", "float32", "float64")


class ShadowFinder(importlib.abc.MetaPathFinder):
    """Loads a module from `root` when root holds its file; a package keeps the install's directory as __path__,
    so its other submodules still come from the install."""

    def __init__(self, root: Path) -> None:
        self.root = root
        hidden = root / HIDDEN_LIST
        self.hidden = set(json.loads(hidden.read_text())) if hidden.is_file() else set()

    def find_spec(self, name, path=None, target=None):  # noqa: ANN001, ANN201 - importlib's protocol
        if name in self.hidden:
            raise ModuleNotFoundError(f"{name} does not exist at this commit", name=name)
        relative = name.replace(".", "/")
        package = self.root / relative / "__init__.py"
        if package.is_file():
            installed = importlib.machinery.PathFinder.find_spec(name, path)
            locations = list(installed.submodule_search_locations) if installed else []
            return importlib.util.spec_from_file_location(name, package, submodule_search_locations=locations)
        module = self.root / f"{relative}.py"
        return importlib.util.spec_from_file_location(name, module) if module.is_file() else None


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:300]


def main() -> None:
    # One thread: the checks' tensors are small, and runs side by side on a busy machine otherwise spin.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    root = Path(sys.argv[1]).resolve()
    sys.meta_path.insert(0, ShadowFinder(root))

    import torch
    import torch._prims as prims
    from torch._decomp import decomposition_table
    from torch._dispatch.python import enable_python_dispatcher
    from torch._prims.context import TorchRefsMode
    from torch.testing._internal.common_device_type import precisionOverride, toleranceOverride
    from torch.testing._internal.common_methods_invocations import op_db, python_ref_db
    from torch.testing._internal.common_utils import TestCase, set_rng_seed
    from torch.testing._internal.opinfo.core import DecorateInfo
    from torch.utils._python_dispatch import TorchDispatchMode

    shadowed = sorted(
        name
        for name, module in list(sys.modules.items())
        if root in Path(getattr(module, "__file__", None) or "/").parents
    )
    report: dict[str, object] = {"shadowed": shadowed}
    refs = [op for op in python_ref_db if op.name == "_refs.cbrt"]
    ops = [op for op in op_db if op.name == "cbrt"]
    if not hasattr(torch._refs, "cbrt") or not refs or not ops:
        report["skip"] = "no torch._refs.cbrt and cbrt OpInfo/PythonRefInfo at this commit: nothing to compare yet"
        print(json.dumps(report))
        return
    (ref_op,), (opinfo,) = refs, ops
    aten = torch.ops.aten
    dtypes = [getattr(torch, name) for name in DTYPE_NAMES]

    def case(test_class: str, test_name: str, dtype: torch.dtype) -> TestCase | None:
        """A TestCase as @ops would run it: seeded like setUp, with the OpInfo's active tolerance override; None
        when a DecorateInfo skips the test."""
        test = TestCase()
        set_rng_seed()
        for info in (ref_op if test_class == "TestCommon" else opinfo).decorators:
            if isinstance(info, DecorateInfo) and not info.is_active(test_class, test_name, "cpu", dtype, {}):
                continue
            for decorator in info.decorators if isinstance(info, DecorateInfo) else (info,):
                if isinstance(decorator, toleranceOverride) and dtype in decorator.d:
                    test.precision, test.rel_tol = decorator.d[dtype].atol, decorator.d[dtype].rtol
                elif isinstance(decorator, precisionOverride) and dtype in decorator.d:
                    test.precision = decorator.d[dtype]
                elif any(word in getattr(decorator, "__qualname__", "") for word in ("skip", "expectedFailure")):
                    return None
        return test

    # ---- test_ops.py: TestCommon._ref_test_helper ------------------------------------------------------------

    def distance(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        same = (a == b) | (a.isnan() & b.isnan())
        return torch.where(same, 0, (a - b).abs()).sum()

    def python_ref(test_name: str, ctx, dtype: torch.dtype, function=None) -> dict[str, object]:  # noqa: ANN001
        """_ref_test_helper: `function` (default: the PythonRefInfo's, torch._refs.cbrt) against torch.cbrt."""
        test = case("TestCommon", test_name, dtype)
        if test is None:
            return {"skip": "skipped by the PythonRefInfo"}
        function = function or ref_op
        precise = torch.double
        samples, failures = 0, []
        for i, sample in enumerate(ref_op.reference_inputs("cpu", dtype, requires_grad=False)):
            samples += 1
            try:
                with ctx():
                    ref_result = function(sample.input, *sample.args, **sample.kwargs)
                torch_result = ref_op.torch_opinfo(sample.input, *sample.args, **sample.kwargs)
                prims.utils.compare_tensor_meta(ref_result, torch_result)
                test.assertEqual(ref_result._is_view(), torch_result._is_view())
                try:
                    test.assertEqual(
                        ref_result,
                        torch_result,
                        exact_stride=False,
                        exact_device=True,
                        exact_layout=True,
                        exact_is_coalesced=True,
                    )
                    continue
                except AssertionError:
                    if dtype is precise:
                        raise
                precise_sample = sample.transform(
                    lambda x: (
                        precise
                        if isinstance(x, torch.dtype)
                        else x.to(precise)
                        if isinstance(x, torch.Tensor) and x.dtype is dtype
                        else x
                    )
                )
                precise_result = ref_op.torch_opinfo(
                    precise_sample.input, *precise_sample.args, **precise_sample.kwargs
                )
                ref_distance, torch_distance = (
                    distance(ref_result, precise_result),
                    distance(torch_result, precise_result),
                )
                if not ref_distance <= torch_distance:
                    raise AssertionError(
                        f"Reference result was farther ({ref_distance}) from the precise computation than the torch "
                        f"result was ({torch_distance})!"
                    )
            except Exception as error:  # noqa: BLE001 - each sample's failure is reported, as upstream's test would
                failures.append(f"sample {i} {tuple(sample.input.shape)}: {_first_line(error)}")
        return {"samples": samples, "failures": failures}

    # ---- test_decomp.py: TestDecomp's DecompCrossRefMode, op_assert_ref / op_assert_equal ----------------------

    dtype_precisions = {
        torch.float16: (0.001, 1e-5),
        torch.bfloat16: (0.016, 1e-4),
        torch.float32: (1.3e-6, 1e-5),
        torch.float64: (1e-7, 1e-7),
    }

    class CrossRef(TorchDispatchMode):
        def __init__(self, test: TestCase, dtype: torch.dtype, failures: list[str], label: str) -> None:
            super().__init__()
            self.test, self.dtype, self.failures, self.label = test, dtype, failures, label
            self.decomposed: set[object] = set()

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN201
            kwargs = kwargs or {}
            if func not in decomposition_table or func.name().endswith("_"):
                return func(*args, **kwargs)
            self.decomposed.add(func)
            decomp_out = decomposition_table[func](*args, **kwargs)
            real_out = func(*args, **kwargs)
            try:
                if self.dtype in (torch.float16, torch.bfloat16):
                    upcast = [
                        a.to(torch.float64) if isinstance(a, torch.Tensor) and a.is_floating_point() else a
                        for a in args
                    ]
                    ref = func(*upcast, **kwargs)
                    assert real_out.dtype == decomp_out.dtype, f"{func}: dtype {real_out.dtype} vs {decomp_out.dtype}"
                    if real_out.numel() and decomp_out.numel():
                        assert real_out.shape == decomp_out.shape, f"{func}: shape"
                        real_diff, decomp_diff = (real_out - ref).abs().max(), (decomp_out - ref).abs().max()
                        if decomp_diff > real_diff + 1e-7:
                            raise RuntimeError(
                                f"Difference from float64 is larger with decomposition {func.__name__} than original. "
                                f"Original max diff: {real_diff}, Decomp max diff: {decomp_diff}"
                            )
                else:
                    self.test.assertEqual(real_out.dtype, decomp_out.dtype)
                    # _getDefaultRtolAndAtol of the two results' dtypes
                    rtol, atol = (
                        max(dtype_precisions.get(o.dtype, (0, 0))[j] for o in (real_out, decomp_out)) for j in (0, 1)
                    )
                    self.test.assertEqual(real_out, decomp_out, rtol=rtol, atol=atol)
            except Exception as error:  # noqa: BLE001
                self.failures.append(f"{self.label}: {_first_line(error)}")
            return real_out

    def decomp(dtype: torch.dtype) -> dict[str, object]:
        test = case("TestDecomp", "test_quick", dtype)
        if test is None:
            return {"skip": "skipped by the OpInfo"}
        requires_grad = opinfo.supports_autograd and dtype in opinfo.supported_backward_dtypes("cpu")
        samples, failures = 0, []
        for i, sample in enumerate(opinfo.sample_inputs("cpu", dtype, requires_grad=requires_grad)):
            samples += 1
            mode = CrossRef(test, dtype, failures, f"sample {i} {tuple(sample.input.shape)}")
            with mode, enable_python_dispatcher():
                opinfo.op(sample.input, *sample.args, **sample.kwargs)
            if aten.cbrt.default not in mode.decomposed:
                failures.append(
                    f"sample {i}: aten.cbrt was not decomposed, saw calls for: {sorted(map(str, mode.decomposed))}"
                )
        return {"samples": samples, "failures": failures}

    report["test_python_ref"] = {
        str(d).removeprefix("torch."): python_ref("test_python_ref", lambda: TorchRefsMode(strict=True), d)
        for d in dtypes
    }
    report["test_python_ref_torch_fallback"] = {
        str(d).removeprefix("torch."): python_ref("test_python_ref_torch_fallback", contextlib.nullcontext, d)
        for d in dtypes
    }
    report["test_decomp"] = {str(d).removeprefix("torch."): decomp(d) for d in dtypes}
    # Not an upstream test: the same comparison for the prim the decomposition ends in. Where the device has an
    # aten.cbrt kernel prims.cbrt runs it, so this holds exactly; the composite it ran before does not.
    report["prims_cbrt"] = {
        str(d).removeprefix("torch."): python_ref("test_python_ref", contextlib.nullcontext, d, torch.ops.prims.cbrt)
        for d in dtypes
    }
    print(json.dumps(report))


if __name__ == "__main__":
    main()

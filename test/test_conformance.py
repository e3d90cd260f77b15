"""The conformance layer: checks that every operator of the patch set gets, driven by its OpInfo, where users meet it.

The operators come from the sources (scripts/patchset/native_ops.py: every `- func:` a fragment adds that has a
Python binding), so a new operator is checked here without a test of its own.

- Threads: each sample, its tensors tiled past two parallel chunks, gives the same bits on 1 and 2 threads.
- out=: an out= that is one of the inputs is refused (upstream's overlap error) or gives the result's bits.
- NaN and +-inf in each floating input in turn (its first, middle and last element) give the OpInfo's reference.
- torch.compile(fullgraph=True): the Python operators and builtins that the operator's Tensor dunders back (divmod
  for __divmod__ and __rdivmod__, ...) compile and give eager's bits.
- MPS: every OpInfo is named in common_mps.py's list of operators MPS does not implement, which upstream's
  test_mps.py TestConsistency reads (it runs every op_db entry not listed).
- Overloads: every overload taking a Scalar where another takes a Tensor, through the dispatcher and torch.<op>,
  with Python int, float, bool and complex numbers against every supported dtype, gives the Tensor overload's
  result on the number as a wrapped scalar, and the reference; every out= overload writes its functional bits.
- Layouts: each tensor argument alone, then all of them, strided, transposed, expanded and offset, gives the
  contiguous bits, at sizes below one vector, as sampled, flattened to 1-D and past two parallel chunks.
- Piecewise points (test/piecewise_points.py): at the points where an operator is piecewise, every derivative is
  the one-sided finite difference from the side its documentation takes, backward and forward.
- Broadcast memory (conformance_memory_worker.py, a process of its own): each tensor argument of each OpInfo
  sample, tiled to 2 MiB, against a batch that would make a copy of it to the broadcast shape 128 MiB: the
  call's peak memory grows by at most twice its outputs and 32 MiB.
- DTensor: every combination of Replicate and Shard(d) over the tensor arguments of each OpInfo sample, on two
  gloo ranks, gives eager's bits or an error (no sharding rule at all); an operator with a rule never errors.
  The collectives each combination takes are counted and written to build/test-results/dtensor_placements.txt.
"""

from __future__ import annotations

import ast
import inspect
import json
import math
import operator
import os
import socket
import subprocess
import sys
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import torch
from conformance_support import as_outputs, aten_overload, opinfo, same_bits, samples
from piecewise_points import PIECEWISE

from scripts.layout import REPO_ROOT
from scripts.patchset.native_ops import NativeOp, native_ops

WORKER = Path(__file__).with_name("conformance_dtensor_worker.py")
REPORT = REPO_ROOT / "build" / "test-results" / "dtensor_placements.txt"


def patch_set_operators() -> list[str]:
    """The patch set's public operators (torch.<name>), from the native_functions.yaml fragments."""
    return list(dict.fromkeys(op.root for op in native_ops() if op.python_binding and not op.inplace))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# at::internal::GRAIN_SIZE: a kernel's parallel_for splits work of more elements than this between threads
GRAIN_SIZE = 32768
OVERLAP_ERROR = "unsupported operation: some elements of the input tensor and the written-to tensor refer"


def call(name: str, arguments: list, kwargs: dict, **extra):
    return opinfo(name).op(*arguments, **kwargs, **extra)


def tiled_variants(arguments: list) -> list[list]:
    """The sample's arguments with every tensor, then the first alone, repeated along its last dimension past two
    parallel chunks, plus a ramp so that no two tiles are alike: long rows whose elements all differ (a sample's
    sample points tiled are unsorted, which some kernels search along a path of their own)."""
    tensors = [a for a in arguments if isinstance(a, torch.Tensor) and a.dim() > 0 and a.numel() > 0]
    if not tensors:
        return []
    times = 2 * GRAIN_SIZE // max(t.numel() for t in tensors) + 1

    def tile(a):
        if not isinstance(a, torch.Tensor) or a.dim() == 0:
            return a
        tiled = a.repeat(*([1] * (a.dim() - 1)), times)
        if tiled.is_floating_point():
            tiled = tiled + torch.linspace(0, 1, tiled.shape[-1], dtype=tiled.dtype)
        return tiled

    first = next(i for i, a in enumerate(arguments) if isinstance(a, torch.Tensor))
    return [[tile(a) for a in arguments], [tile(a) if i == first else a for i, a in enumerate(arguments)]]


@pytest.mark.parametrize("op", patch_set_operators())
def test_the_bits_do_not_depend_on_the_thread_count_past_one_parallel_chunk(op: str) -> None:
    checked = 0
    before = torch.get_num_threads()
    try:
        for sample in samples(op):
            for arguments in tiled_variants([sample.input, *sample.args]):
                torch.set_num_threads(1)
                try:
                    one = as_outputs(call(op, arguments, sample.kwargs))
                except (RuntimeError, TypeError, ValueError):
                    continue  # the tiled shapes do not broadcast
                torch.set_num_threads(2)
                two = as_outputs(call(op, arguments, sample.kwargs))
                assert all(map(same_bits, two, one)), (sample, [a.shape for a in arguments if hasattr(a, "shape")])
                checked += 1
    finally:
        torch.set_num_threads(before)
    assert checked, f"no sample of {op} could be tiled past a parallel chunk"


@pytest.mark.parametrize("op", patch_set_operators())
def test_nan_and_infinities_in_each_input_give_the_reference(op: str) -> None:
    reference = opinfo(op).ref
    checked = 0
    for sample in samples(op):
        arguments = [sample.input, *sample.args]
        for at, argument in enumerate(arguments):
            if not isinstance(argument, torch.Tensor) or not argument.is_floating_point() or argument.numel() == 0:
                continue
            for special in (math.nan, math.inf, -math.inf):
                for where in sorted({0, argument.numel() // 2, argument.numel() - 1}):
                    changed = [a.clone() if isinstance(a, torch.Tensor) else a for a in arguments]
                    changed[at].view(-1)[where] = special
                    actual = as_outputs(call(op, changed, sample.kwargs))
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")  # numpy's invalid-value warnings
                        expected = reference(*[a.numpy() if isinstance(a, torch.Tensor) else a for a in changed],
                                             **sample.kwargs)
                    expected = list(expected) if isinstance(expected, tuple) else [expected]
                    placed = f"{special} in argument {at} at {where}"
                    for ours, theirs in zip(actual, expected, strict=True):
                        torch.testing.assert_close(ours, torch.as_tensor(np.asarray(theirs)).to(ours.dtype),
                                                   equal_nan=True, msg=lambda m, placed=placed: f"{placed}: {m}")
                    checked += 1
    assert checked, f"no sample of {op} has a floating input"


# Python's binary operators by name: the builtins, and the operator module's (and_, or_: a trailing underscore)
BINARY_OPERATORS = {"divmod": divmod, "pow": pow, **{
    name.rstrip("_"): getattr(operator, name)
    for name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "matmul", "and_", "or_", "xor", "lshift",
                 "rshift")}}


def python_operator(dunder: str):
    """The Python operator a Tensor dunder backs, and whether the tensor is its right operand (__rdivmod__ backs
    divmod(number, tensor)); None for a dunder of no binary operator."""
    name = dunder.strip("_")
    if name in BINARY_OPERATORS:
        return BINARY_OPERATORS[name], False
    if name.startswith("r") and name[1:] in BINARY_OPERATORS:
        return BINARY_OPERATORS[name[1:]], True
    return None


def dunders_backed_by(op: str) -> list[str]:
    """The Tensor dunders (torch/_tensor.py) whose body calls torch.<op>."""
    found = []
    for name in sorted(vars(torch.Tensor)):
        if not (name.startswith("__") and name.endswith("__")):
            continue
        try:
            source = inspect.getsource(inspect.unwrap(vars(torch.Tensor)[name]))
        except (TypeError, OSError):  # C methods and slots have no Python source
            continue
        if f"torch.{op}(" in source:
            found.append(name)
    return found


@pytest.mark.parametrize("op", patch_set_operators())
def test_the_python_operators_its_tensor_dunders_back_compile_fullgraph_to_eager_bits(op: str) -> None:
    dunders = [d for d in dunders_backed_by(op) if python_operator(d) is not None]
    if not dunders:
        pytest.skip(f"no Tensor dunder calls torch.{op}")
    sample = next(s for s in samples(op) if s.args and isinstance(s.args[0], torch.Tensor))
    for dunder in dunders:
        function, reflected = python_operator(dunder)
        operands = [(2.5, sample.input), (-3, sample.input)] if reflected else [
            (sample.input, sample.args[0]), (sample.input, 2.5)]
        for a, b in operands:
            torch._dynamo.reset()
            compiled = as_outputs(torch.compile(lambda x, y, f=function: f(x, y), fullgraph=True)(a, b))
            eager = as_outputs(function(a, b))
            assert all(map(same_bits, compiled, eager)), (dunder, a, b)


@pytest.mark.parametrize("op", [name for name in patch_set_operators() if opinfo(name).supports_out])
def test_an_out_that_is_one_of_the_inputs_is_refused_or_gives_the_result(op: str) -> None:
    checked = 0
    for sample in samples(op):
        arguments = [sample.input, *sample.args]
        expected = as_outputs(call(op, arguments, sample.kwargs))
        for at, argument in enumerate(arguments):
            if not isinstance(argument, torch.Tensor):
                continue
            for position, output in enumerate(expected):
                if argument.shape != output.shape or argument.dtype != output.dtype:
                    continue
                aliased = [a.clone() if isinstance(a, torch.Tensor) else a for a in arguments]
                outs = [aliased[at] if i == position else torch.empty_like(e) for i, e in enumerate(expected)]
                try:
                    call(op, aliased, sample.kwargs, out=tuple(outs) if len(outs) > 1 else outs[0])
                except RuntimeError as error:
                    assert str(error).startswith(OVERLAP_ERROR), error
                    continue
                assert all(map(same_bits, outs, expected)), (sample, at, position)
                checked += 1
    print(f"{op}: {checked} out= aliasing an input gave the result")


def buffer(shape: list[int], dtype: torch.dtype) -> torch.Tensor:
    """Storage whose elements outside a view show if a kernel reads them: NaN, or the dtype's largest integer."""
    gap = math.nan if dtype.is_floating_point or dtype.is_complex else torch.iinfo(dtype).max if dtype != torch.bool \
        else True
    return torch.full(shape, gap, dtype=dtype)


def strided(a: torch.Tensor) -> torch.Tensor | None:
    """Every other element of a buffer twice as long along the last dimension (step 2)."""
    if a.dim() == 0 or a.numel() == 0:
        return None
    return buffer([*a.shape[:-1], 2 * a.shape[-1]], a.dtype)[..., ::2].copy_(a)


def transposed(a: torch.Tensor) -> torch.Tensor | None:
    """The last two dimensions stored in the other order (column-major rows)."""
    if a.dim() < 2 or a.shape[-1] < 2 or a.shape[-2] < 2:
        return None
    return a.transpose(-1, -2).contiguous().transpose(-1, -2)


def expanded(a: torch.Tensor) -> torch.Tensor | None:
    """The first element of each row repeated along the last dimension with stride 0 (other values: the contiguous
    copy is the baseline)."""
    if a.dim() == 0 or a.shape[-1] < 2:
        return None
    return a[..., :1].expand(a.shape)


def offset(a: torch.Tensor) -> torch.Tensor | None:
    """Contiguous, three elements into its storage."""
    if a.numel() == 0:
        return None
    return buffer([a.numel() + 3], a.dtype)[3:].view(a.shape).copy_(a)


# PyTorch has no negative strides (flip copies), so a reversed input is a contiguous one: the layouts a kernel
# meets are these.
LAYOUTS = {"strided": strided, "transposed": transposed, "expanded": expanded, "offset": offset}


def short(arguments: list) -> list:
    """Every dimension of every tensor cut to at most 3 elements: fewer than one vector of any dtype holds; sizes of
    1 stay 1 and equal sizes equal, so what broadcast still does."""
    return [a[tuple(slice(0, 3) for _ in range(a.dim()))] if isinstance(a, torch.Tensor) else a for a in arguments]


def flat(arguments: list) -> list | None:
    """The tensors flattened to 1-D where they all have one shape (a batched sample as a 1-D one)."""
    shapes = {tuple(a.shape) for a in arguments if isinstance(a, torch.Tensor)}
    if len(shapes) != 1 or len(next(iter(shapes))) < 2:
        return None
    return [a.reshape(-1) if isinstance(a, torch.Tensor) else a for a in arguments]


def sized_variants(arguments: list) -> dict[str, list]:
    """The sample's arguments as they are, cut below one vector, flattened to 1-D, and tiled past two parallel
    chunks."""
    variants = {"as sampled": arguments, "short": short(arguments), "1-D": flat(arguments)}
    for name, tiled in zip(("tiled", "first tiled"), tiled_variants(arguments), strict=False):
        variants[name] = tiled
    return {name: v for name, v in variants.items() if v is not None}


def layout_dtypes(op: str) -> list[torch.dtype]:
    """float64, float32 (vectors of other widths) and an integer dtype (another kernel), those the op supports."""
    supported = opinfo(op).supported_dtypes("cpu")
    return [d for d in (torch.float64, torch.float32, torch.int32) if d in supported]


@pytest.mark.parametrize("op", patch_set_operators())
def test_every_input_in_every_layout_alone_and_all_together_gives_the_contiguous_bits(op: str) -> None:
    sizes: Counter[str] = Counter()
    for dtype in layout_dtypes(op):
        for sample in samples(op, dtype):
            for size, arguments in sized_variants([sample.input, *sample.args]).items():
                tensors = [i for i, a in enumerate(arguments) if isinstance(a, torch.Tensor)]
                for layout, relaid in LAYOUTS.items():
                    for changed in [*([i] for i in tensors), tensors]:
                        relaid_once = {i: relaid(arguments[i]) for i in changed}
                        laid = [a if relaid_once.get(i) is None else relaid_once[i] for i, a in enumerate(arguments)]
                        if all(laid[i] is arguments[i] for i in changed):
                            continue  # no tensor here takes this layout
                        contiguous = [a.contiguous() if isinstance(a, torch.Tensor) else a for a in laid]
                        expected = outcome(call, op, contiguous, sample.kwargs)
                        actual = outcome(call, op, laid, sample.kwargs)
                        where = (dtype, size, layout, changed, [tuple(a.shape) for a in contiguous
                                                                if isinstance(a, torch.Tensor)], sample.kwargs)
                        if isinstance(expected, str):
                            assert actual == expected, where
                            continue
                        assert all(map(same_bits, actual, expected)), where
                        sizes[size] += 1
    assert set(sizes) >= {"as sampled", "short", "tiled"}, sizes


# Python numbers of every kind a Scalar takes, each sign and zero
PYTHON_SCALARS = (3, -3, 0, 2.5, -2.5, 0.0, True, False, 1 + 2j)


def overloads_of(op: str) -> list[NativeOp]:
    """The operator's overloads with a Python binding, in-place ones aside: its functional and out= forms."""
    return [o for o in native_ops() if o.root == op and o.python_binding and not o.inplace]


def positional_types(native_op: NativeOp) -> list[str]:
    schema = aten_overload(native_op.base, native_op.overload)._schema
    return [str(a.type) for a in schema.arguments if not a.kwarg_only]


def tensor_form(native_op: NativeOp) -> tuple[NativeOp, list[int]] | None:
    """For a functional overload that takes a Scalar where another takes a Tensor (op.Scalar, op.Scalar_Tensor): that
    Tensor overload and the positions of the Scalar operands; None for any other overload."""
    types = positional_types(native_op)
    scalars = [i for i, kind in enumerate(types) if kind == "number"]
    if not scalars:
        return None
    for other in overloads_of(native_op.root):
        other_types = positional_types(other)
        if other.functional and len(other_types) == len(types) and all(
                kind == ("Tensor" if i in scalars else types[i]) for i, kind in enumerate(other_types)):
            return other, scalars
    return None


def as_wrapped_scalars(arguments: list, scalars: list[int]) -> list:
    """The Python numbers at `scalars` as TensorIterator takes a wrapped number beside a tensor: a 0-dim tensor of
    the dtype the number and the tensor promote to (torch.result_type)."""
    beside = next(a for a in arguments if isinstance(a, torch.Tensor))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # complex with a reduced float: "ComplexHalf support is experimental"
        return [torch.tensor(a, dtype=torch.result_type(beside, a)) if i in scalars else a
                for i, a in enumerate(arguments)]


def outcome(function, *arguments, **kwargs) -> list[torch.Tensor] | str:
    """The call's outputs, or the type of the error it raised."""
    try:
        return as_outputs(function(*arguments, **kwargs))
    except (IndexError, RuntimeError, TypeError, ValueError, ZeroDivisionError) as error:
        return type(error).__name__


def numpy_reference(op: str, arguments: list, kwargs: dict, dtype: torch.dtype) -> list[np.ndarray]:
    """The OpInfo's reference on the operands as numpy computes in `dtype` (Python numbers as numpy arrays of it)."""
    as_numpy = [(a.to(dtype) if isinstance(a, torch.Tensor) else torch.tensor(a, dtype=dtype)).numpy()
                for a in arguments]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy's division-by-zero and invalid-value warnings
        return as_outputs(opinfo(op).ref(*as_numpy, **kwargs))


@pytest.mark.parametrize("op", patch_set_operators())
def test_every_scalar_overload_gives_the_tensor_overloads_result_on_wrapped_scalars_and_the_reference(op: str) -> None:
    forms = [(o, form) for o in overloads_of(op) if o.functional for form in [tensor_form(o)] if form]
    if not forms:
        pytest.skip(f"no overload of {op} takes a Scalar where another takes a Tensor")
    compared: Counter[str] = Counter()
    for native_op, (tensor_overload, scalars) in forms:
        overload = aten_overload(native_op.base, native_op.overload)
        by_tensors = aten_overload(tensor_overload.base, tensor_overload.overload)
        bindings = [getattr(torch, op)]  # the Python binding picks its overload by the arguments' types
        for dtype in opinfo(op).supported_dtypes("cpu"):
            sample = next(s for s in samples(op, dtype) if s.input.dim() > 0 and s.input.numel() > 0)
            for scalar in PYTHON_SCALARS:
                arguments = [scalar if i in scalars else a for i, a in enumerate([sample.input, *sample.args])]
                expected = outcome(by_tensors, *as_wrapped_scalars(arguments, scalars), **sample.kwargs)
                for function in [overload, *bindings]:
                    actual = outcome(function, *arguments, **sample.kwargs)
                    where = f"{native_op.name} on {dtype} with {scalar!r} (through {function})"
                    if isinstance(expected, str) or isinstance(actual, str):
                        assert actual == expected, f"{where}: {actual} where the Tensor overload gives {expected}"
                        continue
                    assert all(map(same_bits, actual, expected)), f"{where}: {actual} != {expected}"
                if isinstance(expected, str):
                    continue
                if dtype != torch.bfloat16:  # numpy has no bfloat16
                    reference = numpy_reference(op, arguments, sample.kwargs, expected[0].dtype)
                    for ours, theirs in zip(expected, reference, strict=True):
                        torch.testing.assert_close(ours, torch.from_numpy(np.asarray(theirs)).to(ours.dtype),
                                                   equal_nan=True, msg=lambda m, w=where: f"{w}: {m}")
                compared[native_op.name] += 1
    assert set(compared) == {native_op.name for native_op, _ in forms}, compared


@pytest.mark.parametrize("op", patch_set_operators())
def test_every_out_overload_writes_its_functional_overloads_bits(op: str) -> None:
    outs = [o for o in overloads_of(op) if not o.functional]
    compared = 0
    for out_overload in outs:
        schema = aten_overload(out_overload.base, out_overload.overload)._schema
        out_names = [a.name for a in schema.arguments if a.is_out]
        types = positional_types(out_overload)
        (functional,) = [o for o in overloads_of(op) if o.functional and positional_types(o) == types]
        for dtype in opinfo(op).supported_dtypes("cpu"):
            for sample in samples(op, dtype)[:3]:
                arguments = [next(s for s in PYTHON_SCALARS if isinstance(s, float)) if kind == "number" else a
                             for kind, a in zip(types, [sample.input, *sample.args], strict=False)]
                expected = outcome(aten_overload(functional.base, functional.overload), *arguments, **sample.kwargs)
                if isinstance(expected, str):
                    continue
                written = [torch.full_like(e, 7) for e in expected]
                returned = as_outputs(aten_overload(out_overload.base, out_overload.overload)(
                    *arguments, **sample.kwargs, **dict(zip(out_names, written, strict=True))))
                assert all(map(same_bits, written, expected)), (out_overload.name, dtype, sample)
                assert all(r is w for r, w in zip(returned, written, strict=True)), out_overload.name
                compared += 1
    if not outs:
        pytest.skip(f"{op} has no out= overload")
    assert compared, f"no sample of {op} ran through its out= overloads"


# The finite difference's step: the pieces of the samples are wider than a thousand of them (four steps stay on one
# piece), and float64's rounding of the results at these magnitudes is a millionth of it
STEP = 2.0**-20


def one_sided_difference(function, arguments: list, at: int, element: int, side: float) -> list[torch.Tensor]:
    """d(outputs)/d(arguments[at].flat[element]) by finite differences within one side of the point, no point on it
    (which holds where the function jumps at p): the slopes over [p + sh, p + 2sh] and [p + 2sh, p + 4sh],
    extrapolated to p (second order, as the central difference taken where side is 0)."""

    def moved(by: float) -> list[torch.Tensor]:
        shifted = list(arguments)
        shifted[at] = arguments[at].clone()
        shifted[at].view(-1)[element] += by
        return as_outputs(function(*shifted))

    if side == 0:
        return [(p - m) / (2 * STEP) for p, m in zip(moved(STEP), moved(-STEP), strict=True)]
    h = side * STEP
    one, two, four = moved(h), moved(2 * h), moved(4 * h)
    return [2 * (b - a) / h - (d - b) / (2 * h) for a, b, d in zip(one, two, four, strict=True)]


def forward_column(function, arguments: list, at: int, element: int) -> list[torch.Tensor | None]:
    """d(outputs)/d(arguments[at].flat[element]) in forward mode; None for an output with no tangent."""
    with torch.autograd.forward_ad.dual_level():
        tangent = torch.zeros_like(arguments[at])
        tangent.view(-1)[element] = 1
        duals = [torch.autograd.forward_ad.make_dual(a, tangent) if i == at else a for i, a in enumerate(arguments)]
        return [torch.autograd.forward_ad.unpack_dual(o).tangent for o in as_outputs(function(*duals))]


def backward_jacobians(function, arguments: list, at: int) -> list[torch.Tensor | None]:
    """d(output)/d(arguments[at]) of each output in backward mode, (output elements, argument elements), one vjp per
    output element; None for an output autograd does not differentiate."""
    leaf = arguments[at].detach().requires_grad_()
    jacobians = []
    for output in as_outputs(function(*[leaf if i == at else a for i, a in enumerate(arguments)])):
        if not output.requires_grad:
            jacobians.append(None)
            continue
        rows = [torch.autograd.grad(o, leaf, retain_graph=True, allow_unused=True)[0] for o in output.view(-1)]
        jacobians.append(torch.stack([r.reshape(-1) if r is not None else torch.zeros_like(leaf).reshape(-1)
                                      for r in rows]).view(*output.shape, -1))
    return jacobians


@pytest.mark.parametrize("op", patch_set_operators())
def test_gradients_at_piecewise_points_are_the_documented_one_sided_derivatives(op: str) -> None:
    assert op in PIECEWISE, f"declare {op}'s piecewise points, or that it has none, in test/piecewise_points.py"
    if PIECEWISE[op] is None:
        pytest.skip(f"{op} has no piecewise points (test/piecewise_points.py)")
    checked = 0
    for point in PIECEWISE[op](samples(op)):
        if any(a.numel() > 64 for a in point.arguments if isinstance(a, torch.Tensor)):
            continue  # a vjp per output element: small samples
        function = lambda *arguments, point=point: call(op, list(arguments), point.kwargs)  # noqa: E731
        for at, sides in point.sides.items():
            jacobians = backward_jacobians(function, point.arguments, at)
            for element, side in enumerate(sides.reshape(-1).tolist()):
                expected = one_sided_difference(function, point.arguments, at, element, side)
                forward = forward_column(function, point.arguments, at, element)
                for index, (difference, tangent, jacobian) in enumerate(zip(expected, forward, jacobians,
                                                                            strict=True)):
                    if jacobian is None:
                        assert tangent is None, (op, at, element, index)
                        continue
                    where = (f"output {index} by argument {at} element {element} from side {side} at "
                             f"{[a.reshape(-1).tolist() for a in point.arguments]}, {point.kwargs}")
                    for mode, derivative in (("backward", jacobian[..., element]), ("forward", tangent)):
                        torch.testing.assert_close(derivative, difference, rtol=1e-6, atol=1e-6,
                                                   msg=lambda m, w=where, mode=mode: f"{mode} {w}: {m}")
                checked += 1
    assert checked, f"no sample of {op} was put on its piecewise points"


def test_every_patch_set_opinfo_is_listed_as_unimplemented_on_mps() -> None:
    """None of the operators has an MPS kernel (their yaml dispatches to CPU and CUDA)."""
    import torch.testing._internal.common_mps as common_mps

    listed: set[str] = set()
    for node in ast.walk(ast.parse(Path(common_mps.__file__).read_text())):
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(target, ast.Name) and target.id == "UNIMPLEMENTED_XFAILLIST" and isinstance(node.value, ast.Dict):
            listed |= {key.value for key in node.value.keys if isinstance(key, ast.Constant)}
    assert listed, "common_mps.py has no UNIMPLEMENTED_XFAILLIST"
    assert [op for op in patch_set_operators() if op not in listed] == []


MEMORY_WORKER = Path(__file__).with_name("conformance_memory_worker.py")
# What a call may take beyond its outputs: its temporaries of the outputs' size (a result computed in another
# dtype, then copied), and the libraries' own
MEMORY_SLACK_BYTES = 32 << 20


@pytest.fixture(scope="module")
def memory_records() -> list[dict]:
    ran = subprocess.run([sys.executable, str(MEMORY_WORKER), *patch_set_operators()], capture_output=True,
                         text=True, env={**os.environ, "OMP_NUM_THREADS": "1"}, timeout=600)
    assert ran.returncode == 0, ran.stderr[-3000:]
    return json.loads(ran.stdout)


@pytest.mark.parametrize("op", patch_set_operators())
def test_an_input_broadcast_against_a_batch_is_read_in_place_not_copied(memory_records: list[dict], op: str) -> None:
    records = [r for r in memory_records if r["op"] == op]
    if not records:
        pytest.skip(f"no OpInfo sample of {op} has two tensor arguments to broadcast")
    copied = [r for r in records if r["growth_bytes"] > 2 * r["output_bytes"] + MEMORY_SLACK_BYTES]
    assert not copied, "\n".join(
        f"sample {r['sample']}, argument {r['broadcast']} broadcast, shapes {r['shapes']}: peak grew by "
        f"{r['growth_bytes'] >> 20} MiB for {r['output_bytes'] >> 20} MiB of outputs" for r in copied)


@pytest.fixture(scope="module")
def dtensor_records(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    report = tmp_path_factory.mktemp("dtensor") / "records.json"
    env = {**os.environ, "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(free_port()), "WORLD_SIZE": "2",
           "OMP_NUM_THREADS": "1"}
    ranks = [subprocess.Popen([sys.executable, str(WORKER), str(report), *patch_set_operators()],
                              env={**env, "RANK": str(rank)}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
             for rank in range(2)]
    logs = [rank.communicate(timeout=600)[0] for rank in ranks]
    assert all(rank.returncode == 0 for rank in ranks), "\n".join(log[-3000:] for log in logs)
    records = json.loads(report.read_text())
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(placement_table(records))
    return records


def placement_table(records: list[dict]) -> str:
    """One line per (operator, sample, placements): the collectives it took, or its error."""
    lines = ["# op | sample | shapes | placements | collectives | result"]
    for r in records:
        collectives = ", ".join(f"{k}: {v}" for k, v in sorted(r["collectives"].items())) if "collectives" in r else ""
        outcome = r.get("error") or ("eager's bits" if r["matches"] else f"MISMATCH {r.get('error_after', '')}")
        lines.append(f"{r['op']} | {r['sample']} | {r['shapes']} | {', '.join(r['placements'])} | "
                     f"{collectives or 'none'} | {outcome}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("op", patch_set_operators())
def test_every_dtensor_placement_of_every_tensor_argument_gives_eager_bits_or_no_rule_at_all(
        dtensor_records: list[dict], op: str) -> None:
    records = [r for r in dtensor_records if r["op"] == op]
    assert records, f"no OpInfo sample of {op} was checked"
    mismatches = [r for r in records if "error" not in r and not r["matches"]]
    assert not mismatches, placement_table(mismatches[:20])
    errors = Counter(r["error"] for r in records if "error" in r)
    if errors.total() < len(records):  # the operator has a sharding rule: every placement must then work
        assert not errors, placement_table([r for r in records if "error" in r][:20])
    else:
        assert all("sharding strategy" in error for error in errors), errors

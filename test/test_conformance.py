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
from conformance_support import as_outputs, opinfo, same_bits, samples

from scripts.layout import REPO_ROOT
from scripts.patchset.native_ops import native_ops

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
    if len(errors) < len(records):  # the operator has a sharding rule: every placement must then work
        assert not errors, placement_table([r for r in records if "error" in r][:20])
    else:
        assert all("sharding strategy" in error for error in errors), errors

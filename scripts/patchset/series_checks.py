"""What upstream suites demand of every commit of the stack, checked on the files of that commit.

Each rule names the upstream test that would fail: a commit that adds a public function must also
bring its docs, listings, testing override and trace rule (TestTorch.test_doc, test_overrides,
dynamo's trace rules); HasDecompTest's expect files must list the operator's overloads where its
decompositions put them; a new ref needs its PythonRefInfo (TestRefsOpsInfo), and an OpInfo needs
everything its generated tests call (CUDA kernel, derivative, batch rule, inductor lowering).

The rules are written once for any operator: the operators, their overloads, variants and schemas come from the
sources (scripts/patchset/native_ops.py), and the files that hold a CUDA kernel or a batch rule are the ones the
sources add or edit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from scripts.patchset.fragments import Sources, load_sources
from scripts.patchset.native_ops import NATIVE_FUNCTIONS, NativeOp, native_ops

Reader = Callable[[str], "str | None"]  # upstream path -> the file at that commit, None when absent

HAS_DECOMPOSITION = "test/expect/HasDecompTest.test_has_decomposition.expect"
CORE_OPERATORS = "test/expect/HasDecompTest.test_aten_core_operators.expect"
OPINFOS = "torch/testing/_internal/common_methods_invocations.py"
LISTING_ALTERNATIVES = {
    "docs/source/torch.md": ("docs/source/torch.rst",),
    "docs/source/tensors.md": ("docs/source/tensors.rst",),
}


@dataclass(frozen=True)
class Demand:
    test: str  # the upstream test that fails when this is not met
    path: str
    needle: str  # a line of `path` that must be present (stripped comparison)
    anywhere_in_line: bool = False  # the needle may be part of a longer line
    alternatives: tuple[str, ...] = ()  # other files where the needle also counts
    or_else: tuple[tuple[str, str], ...] = ()  # other (path, line start) pairs, any of which meets the demand


def lines_of(read: Reader, path: str) -> set[str]:
    text = read(path)
    return {line.strip() for line in text.splitlines()} if text is not None else set()


def meets(read: Reader, demand: Demand) -> bool:
    for candidate in (demand.path, *demand.alternatives, *LISTING_ALTERNATIVES.get(demand.path, ())):
        lines = lines_of(read, candidate)
        if demand.needle in lines or (demand.anywhere_in_line and any(demand.needle in line for line in lines)):
            return True
    return any(line.startswith(start) for path, start in demand.or_else for line in lines_of(read, path))


def overloads(ops: Sequence[NativeOp]) -> tuple[str, ...]:
    """The dispatcher names of the operators' overloads (aten::op, aten::op.out, aten::op_), as expect files list them."""
    return tuple(sorted(op.qualified for op in ops))


def functions(ops: Sequence[NativeOp]) -> list[str]:
    return list(dict.fromkeys(op.base for op in ops if "function" in op.variants))


def methods(ops: Sequence[NativeOp]) -> list[str]:
    return list(dict.fromkeys(op.base for op in ops if "method" in op.variants))


def public_api(root: str, ops: Sequence[NativeOp]) -> tuple[Demand, ...]:
    """What test_doc, the docs listings, test_overrides and dynamo's trace rules demand of a public operator."""
    return (
        *(Demand("TestTorch.test_doc", "torch/_torch_docs.py", f"torch.{name},") for name in functions(ops)),
        *(Demand("TestTorch.test_doc", "torch/_tensor_docs.py", f'"{name}",') for name in methods(ops)),
        Demand("docs coverage (test_doc listings)", "docs/source/torch.md", root),
        *(Demand("docs coverage (test_doc listings)", "docs/source/tensors.md", f"Tensor.{name}") for name in methods(ops)),
        Demand("test_overrides (get_testing_overrides)", "torch/overrides.py", f"torch.{root}: lambda ", True),
        Demand("dynamo test_trace_rules", "torch/_dynamo/trace_rules.py", f'"torch.{root}",'),
    )


def candidates(paths: Sequence[str], fallback: str) -> tuple[str, tuple[str, ...]]:
    """A demand's path and alternatives: the files of `paths`, or `fallback` when the sources have none."""
    return (paths[0], tuple(paths[1:])) if paths else (fallback, ())


OPINFO_START = re.compile(r"^\s*\w*Info\(")


def claims_cuda(opinfos: str, root: str) -> bool:
    """Whether the OpInfo of `root` has CUDA dtypes: all but one that sets `dtypesIfCUDA=empty_types()`, as an operator's commit
    does when its CUDA kernel is a later commit (the OpInfo's tests then instantiate no CUDA variant)."""
    lines = opinfos.splitlines()
    start = next((i for i, line in enumerate(lines) if re.match(rf"\s*\w*Info\('{re.escape(root)}',", line)), None)
    if start is None:
        return True
    end = next((i for i in range(start + 1, len(lines)) if OPINFO_START.match(lines[i])), len(lines))
    return not any(line.strip() == "dtypesIfCUDA=empty_types()," for line in lines[start:end])


def opinfo_needs(root: str, ops: Sequence[NativeOp], sources: Sources, on_cuda: bool = True) -> tuple[Demand, ...]:
    """What an OpInfo's generated tests call: a CUDA kernel (where it claims CUDA dtypes), a derivative, a batch
    rule, an inductor lowering."""
    cuda = [f.upstream_path for f in sources.new_files
            if f.upstream_path.startswith("aten/src/ATen/native/cuda/") and f.upstream_path.endswith(".cu")]
    functorch = [f.upstream_path for f in sources.fragment_files
                 if f.upstream_path.startswith("aten/src/ATen/functorch/BatchRules")]
    cuda_path, cuda_more = candidates(cuda, "aten/src/ATen/native/cuda/<a new kernel file>.cu")
    rules_path, rules_more = candidates(functorch, "aten/src/ATen/functorch/<a BatchRules file>.cpp")
    functional = [op for op in ops if op.functional]
    return (
        *((Demand("test_ops on CUDA", cuda_path, f"REGISTER_DISPATCH({root}_stub", True, cuda_more),) if on_cuda else ()),
        *(Demand("test_ops_gradients", "tools/autograd/derivatives.yaml", f"- name: {op.schema}") for op in functional),
        Demand("functorch test_vmap (batch rule)", rules_path, f"({root}", True, rules_more),
        inductor_handles(root),
    )


def inductor_handles(root: str) -> Demand:
    """Inductor refuses an implicit fallback under CI=1 once the operator has a decomposition (make_fallback: "a
    decomposition exists, we should switch to it"): it needs a pointwise override, a lowering, an explicit
    fallback, or its decomposition in Inductor's table."""
    return Demand("inductor (MissingOperatorWithDecomp)", "torch/_inductor/codegen/common.py", f"{root}=OverridesData(",
                  or_else=(("torch/_inductor/lowering.py", f"make_fallback(aten.{root}"),
                           ("torch/_inductor/lowering.py", f"@register_lowering(aten.{root}"),
                           ("torch/_inductor/decomposition.py", f"aten.{root},")))


def unmet(read: Reader, demands: tuple[Demand, ...]) -> list[str]:
    return [f"{d.test}: {d.path} lacks {d.needle!r}" for d in demands if not meets(read, d)]


def decomposition_lists(read: Reader, decomposed: bool, names: Sequence[str]) -> list[str]:
    """HasDecompTest: without a decomposition the overloads are in one expect file, with one in the other."""
    expected_in, expected_out = (CORE_OPERATORS, HAS_DECOMPOSITION) if decomposed else (HAS_DECOMPOSITION, CORE_OPERATORS)
    problems = [f"HasDecompTest: {expected_in} lacks {op}" for op in names if op not in lines_of(read, expected_in)]
    problems += [f"HasDecompTest: {expected_out} still lists {op}" for op in names if op in lines_of(read, expected_out)]
    return problems


def by_root(ops: Sequence[NativeOp]) -> dict[str, list[NativeOp]]:
    grouped: dict[str, list[NativeOp]] = {}
    for op in ops:
        grouped.setdefault(op.root, []).append(op)
    return grouped


def unmet_demands(read: Reader, sources: Sources | None = None) -> list[str]:
    """Every upstream demand the files of one commit fail; empty when its suites can pass. Each operator of the
    sources is checked from the commit that adds a functional form (`op`, or `op.Tensor` when every overload is
    named) to native_functions.yaml."""
    sources = load_sources() if sources is None else sources
    native = {line.strip() for line in (read(NATIVE_FUNCTIONS) or "").splitlines()}
    problems = []
    for root, ops in by_root(native_ops(sources)).items():
        if not any(f"- func: {op.schema}" in native for op in ops if op.functional):
            continue
        if any(op.python_binding for op in ops):
            problems += unmet(read, public_api(root, ops))
        refs = lines_of(read, "torch/_refs/__init__.py")
        decomposed = any(line.startswith(f"def {root}(") for line in refs)
        if any(op.has_kernels for op in ops):
            problems += decomposition_lists(read, decomposed, overloads(ops))
        opinfos = lines_of(read, OPINFOS)
        opinfo = any(re.match(rf"\w*Info\('{re.escape(root)}',", line) for line in opinfos)
        if decomposed and f'"_refs.{root}",' not in opinfos:
            problems.append(
                f"TestRefsOpsInfo.test_refs_are_in_python_ref_db: {OPINFOS} lacks the _refs.{root} PythonRefInfo"
            )
        if opinfo:
            problems += unmet(read, opinfo_needs(root, ops, sources, claims_cuda(read(OPINFOS) or "", root)))
    return problems

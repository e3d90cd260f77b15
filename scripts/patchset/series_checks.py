"""What upstream suites demand of every commit of the stack, checked on the files of that commit.

Each rule names the upstream test that would fail: a commit that adds a public function must also
bring its docs, listings, testing override and trace rule (TestTorch.test_doc, test_overrides,
dynamo's trace rules); HasDecompTest's expect files must list cbrt's overloads where its
decompositions put them; a new ref needs its PythonRefInfo (TestRefsOpsInfo), and an OpInfo needs
everything its generated tests call (CUDA kernel, derivative, batch rule, inductor lowering).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Reader = Callable[[str], "str | None"]  # upstream path -> the file at that commit, None when absent

OVERLOADS = ("aten::cbrt", "aten::cbrt.out", "aten::cbrt_")
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


def lines_of(read: Reader, path: str) -> set[str]:
    text = read(path)
    return {line.strip() for line in text.splitlines()} if text is not None else set()


def meets(read: Reader, demand: Demand) -> bool:
    for candidate in (demand.path, *LISTING_ALTERNATIVES.get(demand.path, ())):
        lines = lines_of(read, candidate)
        if demand.needle in lines or (demand.anywhere_in_line and any(demand.needle in line for line in lines)):
            return True
    return False


PUBLIC_API = (
    Demand("TestTorch.test_doc", "torch/_torch_docs.py", "torch.cbrt,"),
    Demand("TestTorch.test_doc", "torch/_torch_docs.py", "torch.cbrt_,"),
    Demand("TestTorch.test_doc", "torch/_tensor_docs.py", '"cbrt",'),
    Demand("TestTorch.test_doc", "torch/_tensor_docs.py", '"cbrt_",'),
    Demand("docs coverage (test_doc listings)", "docs/source/torch.md", "cbrt"),
    Demand("docs coverage (test_doc listings)", "docs/source/tensors.md", "Tensor.cbrt"),
    Demand("docs coverage (test_doc listings)", "docs/source/tensors.md", "Tensor.cbrt_"),
    Demand("test_overrides (get_testing_overrides)", "torch/overrides.py", "torch.cbrt: lambda input, out=None: -1,"),
    Demand("dynamo test_trace_rules", "torch/_dynamo/trace_rules.py", '"torch.cbrt",'),
)
OPINFO_NEEDS = (
    Demand("test_ops on CUDA", "aten/src/ATen/native/cuda/CbrtKernel.cu", "REGISTER_DISPATCH(cbrt_stub", True),
    Demand("test_ops_gradients", "tools/autograd/derivatives.yaml", "- name: cbrt(Tensor self) -> Tensor"),
    Demand("functorch test_vmap (batch rule)", "aten/src/ATen/functorch/BatchRulesUnaryOps.cpp", "UNARY_POINTWISE_ALL(cbrt);"),
    Demand("inductor (MissingOperatorWithDecomp)", "torch/_inductor/codegen/common.py", "cbrt=OverridesData("),
)


def unmet(read: Reader, demands: tuple[Demand, ...]) -> list[str]:
    return [f"{d.test}: {d.path} lacks {d.needle!r}" for d in demands if not meets(read, d)]


def decomposition_lists(read: Reader, decomposed: bool) -> list[str]:
    """HasDecompTest: without a decomposition the overloads are in one expect file, with one in the other."""
    expected_in, expected_out = (CORE_OPERATORS, HAS_DECOMPOSITION) if decomposed else (HAS_DECOMPOSITION, CORE_OPERATORS)
    problems = [f"HasDecompTest: {expected_in} lacks {op}" for op in OVERLOADS if op not in lines_of(read, expected_in)]
    problems += [f"HasDecompTest: {expected_out} still lists {op}" for op in OVERLOADS if op in lines_of(read, expected_out)]
    return problems


def unmet_demands(read: Reader) -> list[str]:
    """Every upstream demand the files of one commit fail; empty when its suites can pass."""
    native = read("aten/src/ATen/native/native_functions.yaml") or ""
    if "- func: cbrt(Tensor self) -> Tensor" not in native:
        return []
    problems = unmet(read, PUBLIC_API)
    decomposed = "def cbrt(a):" in lines_of(read, "torch/_refs/__init__.py")
    problems += decomposition_lists(read, decomposed)
    opinfo = "UnaryUfuncInfo('cbrt'," in lines_of(read, OPINFOS)
    if decomposed and '"_refs.cbrt",' not in lines_of(read, OPINFOS):
        problems.append(f"TestRefsOpsInfo.test_refs_are_in_python_ref_db: {OPINFOS} lacks the _refs.cbrt PythonRefInfo")
    if opinfo:
        problems += unmet(read, OPINFO_NEEDS)
    return problems

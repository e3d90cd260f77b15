"""Every commit of the stack carries what the upstream suites its content triggers demand.

The rules (scripts/patchset/series_checks.py) are proven on small file sets, then the real stack is applied
to a checkout-shaped tree and each of its commits is checked.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import checkout_shaped_tree

from scripts.gitutil import git
from scripts.patchset.fragments import load_sources
from scripts.patchset.series_checks import CORE_OPERATORS, HAS_DECOMPOSITION, OPINFOS, OVERLOADS, unmet_demands
from scripts.upstream.apply_checkout import apply_to_checkout
from scripts.upstream.series_from_checkout import file_reader

OPERATOR = {"aten/src/ATen/native/native_functions.yaml": "- func: cbrt(Tensor self) -> Tensor\n"}
PUBLIC_API = {
    "torch/_torch_docs.py": "    torch.cbrt,\n    torch.cbrt_,\n",
    "torch/_tensor_docs.py": '    "cbrt",\n    "cbrt_",\n',
    "docs/source/torch.rst": "    cbrt\n",
    "docs/source/tensors.md": "    Tensor.cbrt\n    Tensor.cbrt_\n",
    "torch/overrides.py": "        torch.cbrt: lambda input, out=None: -1,\n",
    "torch/_dynamo/trace_rules.py": '        "torch.cbrt",\n',
    HAS_DECOMPOSITION: "".join(f"{op}\n" for op in OVERLOADS),
}


def reader(files: dict[str, str]):  # noqa: ANN201 - a series_checks.Reader
    return files.get


def test_a_commit_without_the_operator_demands_nothing() -> None:
    assert unmet_demands(reader({})) == []


def test_the_operator_with_its_public_api_meets_every_demand() -> None:
    assert unmet_demands(reader({**OPERATOR, **PUBLIC_API})) == []


@pytest.mark.parametrize("path", sorted(PUBLIC_API))
def test_the_operator_without_a_piece_of_its_public_api_fails_an_upstream_test(path: str) -> None:
    files = {**OPERATOR, **PUBLIC_API}
    del files[path]
    assert unmet_demands(reader(files))


def test_a_decomposition_moves_the_overloads_to_the_core_list_and_needs_a_python_ref_info() -> None:
    refs = {"torch/_refs/__init__.py": "def cbrt(a):\n"}
    problems = unmet_demands(reader({**OPERATOR, **PUBLIC_API, **refs}))
    assert any(HAS_DECOMPOSITION in p and "still lists" in p for p in problems)
    assert any(CORE_OPERATORS in p for p in problems)
    assert any("test_refs_are_in_python_ref_db" in p for p in problems)


def test_an_opinfo_needs_the_cuda_kernel_derivative_batch_rule_and_lowering() -> None:
    opinfo = {OPINFOS: "    UnaryUfuncInfo('cbrt',\n"}
    problems = unmet_demands(reader({**OPERATOR, **PUBLIC_API, **opinfo}))
    assert [p.split(":")[0] for p in problems] == [
        "test_ops on CUDA",
        "test_ops_gradients",
        "functorch test_vmap (batch rule)",
        "inductor (MissingOperatorWithDecomp)",
    ]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    sources = load_sources()
    checkout = checkout_shaped_tree(tmp_path_factory.mktemp("stack") / "pytorch", sources)
    apply_to_checkout(checkout, "cbrt", sources)
    return checkout, git(checkout, "rev-list", "--reverse", "main..cbrt").split()


def test_every_commit_of_the_real_stack_meets_what_its_suites_demand(stack: tuple[Path, list[str]]) -> None:
    checkout, commits = stack
    assert len(commits) == len(load_sources().topics)
    for commit in commits:
        subject = git(checkout, "log", "-1", "--format=%s", commit).strip()
        assert unmet_demands(file_reader(checkout, commit)) == [], subject


def test_no_commit_lists_cbrt_in_a_decomposition_list_that_a_later_commit_takes_back(
    stack: tuple[Path, list[str]],
) -> None:
    """The operator brings its decomposition, so cbrt is never listed as having none, and once listed among the
    operators whose decomposition inductor and export do not apply, it stays."""
    checkout, commits = stack

    def listed(commit: str, expect: str) -> bool:
        return "aten::cbrt" in (file_reader(checkout, commit)(expect) or "").splitlines()

    assert not any(listed(commit, HAS_DECOMPOSITION) for commit in commits)
    core = [listed(commit, CORE_OPERATORS) for commit in commits]
    assert any(core) and core == sorted(core), core

"""Every commit of the stack carries what the upstream suites its content triggers demand.

The rules (scripts/series_checks.py) are proven on small file sets, then the real stack is applied
to a checkout-shaped tree and each of its commits is checked.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import checkout_shaped_tree

from scripts.apply_checkout import apply_to_checkout
from scripts.fragments import load_sources
from scripts.gitutil import git
from scripts.series_checks import (
    CORE_DECOMPOSITIONS,
    CORE_OPERATORS,
    HAS_DECOMPOSITION,
    OPINFOS,
    OVERLOADS,
    unmet_demands,
)
from scripts.series_from_checkout import file_reader

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


REFS = {"torch/_refs/__init__.py": "def cbrt(a):\n"}
CORE_DECOMPOSITION = {CORE_DECOMPOSITIONS: "            aten.cbrt,\n            aten.cbrt_,\n"}
PYTHON_REF_INFO = {OPINFOS: '        "_refs.cbrt",\n'}


def test_a_decomposition_takes_the_overloads_off_the_list_and_needs_a_python_ref_info() -> None:
    problems = unmet_demands(reader({**OPERATOR, **PUBLIC_API, **REFS, **CORE_DECOMPOSITION}))
    assert any(HAS_DECOMPOSITION in p and "lists" in p for p in problems)
    assert any("test_refs_are_in_python_ref_db" in p for p in problems)


def test_a_decomposition_of_an_operator_without_a_core_tag_is_a_core_aten_decomposition() -> None:
    public_api = {k: v for k, v in PUBLIC_API.items() if k != HAS_DECOMPOSITION}
    decomposed = {**OPERATOR, **public_api, **REFS, **PYTHON_REF_INFO}
    assert unmet_demands(reader({**decomposed, **CORE_DECOMPOSITION})) == []
    problems = unmet_demands(reader(decomposed))
    assert [p.split(":")[0] for p in problems] == ["HasDecompTest.test_aten_core_operators"]
    listed = {CORE_OPERATORS: "".join(f"{op}\n" for op in OVERLOADS)}
    assert unmet_demands(reader({**decomposed, **CORE_DECOMPOSITION, **listed}))


def test_an_opinfo_needs_the_cuda_kernel_derivative_batch_rule_and_lowering() -> None:
    opinfo = {OPINFOS: "    UnaryUfuncInfo('cbrt',\n"}
    problems = unmet_demands(reader({**OPERATOR, **PUBLIC_API, **opinfo}))
    assert [p.split(":")[0] for p in problems] == [
        "test_ops on CUDA",
        "test_ops_gradients",
        "functorch test_vmap (batch rule)",
        "inductor (MissingOperatorWithDecomp)",
    ]


def test_inductor_needs_no_lowering_for_a_decomposition_it_uses() -> None:
    opinfo = {OPINFOS: "    UnaryUfuncInfo('cbrt',\n" + PYTHON_REF_INFO[OPINFOS]}
    public_api = {k: v for k, v in PUBLIC_API.items() if k != HAS_DECOMPOSITION}
    problems = unmet_demands(reader({**OPERATOR, **public_api, **REFS, **CORE_DECOMPOSITION, **opinfo}))
    assert not any(p.startswith("inductor") for p in problems)


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


def test_no_commit_lists_cbrt_in_a_has_decomp_expect_file(stack: tuple[Path, list[str]]) -> None:
    """The operator lands with its decomposition, a core ATen decomposition: no expect line is added, then taken back."""
    checkout, commits = stack
    for commit in commits:
        read = file_reader(checkout, commit)
        for listing in (HAS_DECOMPOSITION, CORE_OPERATORS):
            assert not set(OVERLOADS) & set((read(listing) or "").splitlines()), (commit, listing)

"""Every commit of each stack carries what the upstream suites its content triggers demand.

The rules (scripts/patchset/series_checks.py) are proven on small file sets, then each real stack is applied on its
own branch from the pin of a checkout-shaped tree (as its PR lands: without the other stacks) and each of its
commits is checked.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import checkout_shaped_tree, fragment_toml, write

from scripts.gitutil import git
from scripts.patchset.fragments import load_sources
from scripts.patchset.native_ops import NATIVE_FUNCTIONS, NO_PYTHON_BINDING, native_ops
from scripts.patchset.python_states import Boundary, boundaries, with_fragments_moved, write_shadow
from scripts.patchset.series_checks import CORE_OPERATORS, HAS_DECOMPOSITION, OPINFOS, overloads, unmet_demands
from scripts.upstream.apply_checkout import apply_to_checkout
from scripts.upstream.series_from_checkout import file_reader

OVERLOADS = overloads(native_ops())
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


def test_an_opinfo_that_claims_no_cuda_dtypes_needs_no_cuda_kernel_and_only_its_own_claim_counts() -> None:
    own = "    UnaryUfuncInfo('cbrt',\n        dtypesIfCUDA=empty_types(),\n    ),\n"
    later = "    UnaryUfuncInfo('cbrt',\n    ),\n    OpInfo('other',\n        dtypesIfCUDA=empty_types(),\n    ),\n"
    needs_cuda = [unmet_demands(reader({**OPERATOR, **PUBLIC_API, OPINFOS: text})) for text in (own, later)]
    assert [[p.split(":")[0] for p in problems if "CUDA" in p] for problems in needs_cuda] == [[], ["test_ops on CUDA"]]


@pytest.mark.parametrize("handled_by", [
    ("torch/_inductor/codegen/common.py", "    cbrt=OverridesData(\n"),
    ("torch/_inductor/lowering.py", "make_fallback(aten.cbrt, warn=False)\n"),
    ("torch/_inductor/lowering.py", "@register_lowering(aten.cbrt, broadcast=True)\n"),
    ("torch/_inductor/decomposition.py", "        aten.cbrt,\n"),
], ids=["override", "fallback", "lowering", "decomposition"])
def test_inductor_handles_the_operator_by_an_override_a_lowering_a_fallback_or_its_decomposition(
    handled_by: tuple[str, str],
) -> None:
    files = {**OPERATOR, **PUBLIC_API, OPINFOS: "    UnaryUfuncInfo('cbrt',\n", handled_by[0]: handled_by[1]}
    assert not [p for p in unmet_demands(reader(files)) if p.startswith("inductor")]


def test_an_operator_whose_every_overload_is_named_is_checked_from_the_commit_that_adds_it(tmp_path: Path) -> None:
    """divmod.Tensor, divmod.Scalar, ...: no overload is plain `divmod`; the out= one alone demands nothing."""
    functional = "divmod.Tensor(Tensor self, Tensor other) -> (Tensor quotient, Tensor remainder)"
    out = ("divmod.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) quotient, Tensor(b!) remainder)"
           " -> (Tensor(a!) quotient, Tensor(b!) remainder)")
    write(tmp_path / "topics.toml", '[[topic]]\nid = "op"\nstack = "op"\nsubject = "s"\nbody = "b"\n')
    write(tmp_path / "aten_native" / f"{NATIVE_FUNCTIONS}.fragments.toml",
          fragment_toml("op", "after", "- func: sqrt(Tensor self) -> Tensor\n", f"- func: {functional}\n- func: {out}\n"))
    sources = load_sources(tmp_path)
    assert unmet_demands(reader({NATIVE_FUNCTIONS: f"- func: {functional}\n"}), sources)
    assert unmet_demands(reader({NATIVE_FUNCTIONS: f"- func: {out}\n"}), sources) == []


def test_a_derivative_helper_without_python_binding_or_kernels_demands_nothing(tmp_path: Path) -> None:
    """A CompositeImplicitAutograd `_op_backward`: torchgen binds no `torch._op_backward`, so no listing, override or
    trace rule names it, and the dispatcher decomposes it, so HasDecompTest lists it nowhere."""
    helper = "_op_backward(Tensor grad, Tensor self) -> Tensor"
    write(tmp_path / "topics.toml", '[[topic]]\nid = "op"\nstack = "op"\nsubject = "s"\nbody = "b"\n')
    write(tmp_path / "aten_native" / f"{NATIVE_FUNCTIONS}.fragments.toml",
          fragment_toml("op", "after", "- func: sqrt(Tensor self) -> Tensor\n",
                        f"- func: {helper}\n  variants: function\n"))
    sources = load_sources(tmp_path)
    assert unmet_demands(reader({NATIVE_FUNCTIONS: f"- func: {helper}\n"}), sources) == []


def test_a_public_composite_operator_still_needs_its_public_api(tmp_path: Path) -> None:
    composite = "op(Tensor self) -> Tensor"
    write(tmp_path / "topics.toml", '[[topic]]\nid = "op"\nstack = "op"\nsubject = "s"\nbody = "b"\n')
    write(tmp_path / "aten_native" / f"{NATIVE_FUNCTIONS}.fragments.toml",
          fragment_toml("op", "after", "- func: sqrt(Tensor self) -> Tensor\n", f"- func: {composite}\n"))
    problems = unmet_demands(reader({NATIVE_FUNCTIONS: f"- func: {composite}\n"}), load_sources(tmp_path))
    assert any("test_overrides" in p for p in problems)
    assert not any("HasDecompTest" in p for p in problems)


def test_the_names_without_python_binding_are_torchgens() -> None:
    from torchgen.packaged.autograd.gen_python_functions import SKIP_PYTHON_BINDINGS

    assert {p.pattern for p in NO_PYTHON_BINDING} <= {p.pattern.strip("^$") for p in SKIP_PYTHON_BINDINGS}


@pytest.fixture(scope="module")
def stacks(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list[str]]]:
    """One checkout; every stack on a branch of its own name from main (the pin), with its commits in order."""
    sources = load_sources()
    checkout = checkout_shaped_tree(tmp_path_factory.mktemp("stack") / "pytorch", sources)
    commits = {}
    for name in sources.stacks:
        git(checkout, "checkout", "-q", "main")
        apply_to_checkout(checkout, name, sources, name)
        commits[name] = git(checkout, "rev-list", "--reverse", f"main..{name}").split()
    return checkout, commits


@pytest.fixture(scope="module")
def stack(stacks: tuple[Path, dict[str, list[str]]]) -> tuple[Path, list[str]]:
    """The cbrt stack's commits."""
    checkout, commits = stacks
    return checkout, commits["cbrt"]


@pytest.mark.parametrize("name", load_sources().stacks)
def test_every_commit_of_each_real_stack_meets_what_its_suites_demand(
    stacks: tuple[Path, dict[str, list[str]]], name: str
) -> None:
    checkout, commits = stacks
    assert len(commits[name]) == len(load_sources().of_stack(name).topics)
    for commit in commits[name]:
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


# ---- upstream's numerical checks on the Python side of every commit -------------------------------------------
#
# The operator comes from the overlay installed in this interpreter's torch; the Python side (refs, prims, the
# OpInfo database, ...) of each commit boundary is the install's shipped files plus the fragments of the topics up
# to it (scripts/patchset/python_states.py), loaded in place of the install's by test/series_numerics.py.

NUMERICS = Path(__file__).resolve().parent / "series_numerics.py"
PRIMS_FRAGMENTS = "frontend/torch/_prims/__init__.py.fragments.toml"
CHECKS = ("test_python_ref", "test_python_ref_torch_fallback", "test_decomp", "prims_cbrt")
TOPIC_IDS = [topic.id for topic in load_sources().topics]


def torch_site() -> Path:
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        pytest.skip(f"{sys.executable} has no torch")
    return Path(spec.origin).parent.parent


@dataclass
class Run:
    boundary: Boundary
    report: dict | None = None
    error: str = ""

    def failures(self, checks: tuple[str, ...] = CHECKS) -> dict[str, list[str]]:
        assert self.report is not None, self.error
        return {
            f"{check} {dtype}": result["failures"]
            for check in checks
            for dtype, result in self.report[check].items()
            if result.get("failures")
        }


@pytest.fixture(scope="module")
def numerics(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Run]:
    """series_numerics.py on every boundary of the real series ("real") and of the series with the prims fragments
    moved from aten-op into the next topic ("planted"), each distinct Python state once, all at the same time."""
    site = torch_site()
    real = load_sources()
    planted = with_fragments_moved(real, PRIMS_FRAGMENTS, "numpy")
    runs: dict[tuple[str, str], Run] = {}
    started: dict[tuple, tuple[subprocess.Popen, Run]] = {}
    # Per stack: a commit's Python side is the pin's plus its own stack's commits up to it, as its PR lands.
    per_stack = [(label, s.of_stack(name)) for label, s in (("real", real), ("planted", planted)) for name in s.stacks]
    for label, sources in per_stack:
        for boundary in boundaries(sources, site):
            run = runs[label, boundary.topic] = Run(boundary)
            if not boundary.touches_python or boundary.shadow_key() in started:
                continue
            shadow = write_shadow(boundary, tmp_path_factory.mktemp(f"{label}-{boundary.topic}"))
            process = subprocess.Popen(
                [sys.executable, str(NUMERICS), str(shadow)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            started[boundary.shadow_key()] = (process, run)
    for process, run in started.values():
        stdout, stderr = process.communicate(timeout=900)
        if process.returncode == 0 and stdout.strip():
            run.report = json.loads(stdout.strip().splitlines()[-1])
        else:
            run.error = f"series_numerics.py exited {process.returncode}:\n{stderr[-3000:]}"
    reports = {key: run for run in runs.values() if (key := run.boundary.shadow_key()) in started}
    for run in runs.values():  # a boundary whose Python state another one has: that one's report
        if run.boundary.touches_python and run.report is None and not run.error:
            same = reports[run.boundary.shadow_key()]
            run.report, run.error = same.report, same.error
    return runs


@pytest.mark.parametrize("topic", TOPIC_IDS)
def test_refs_and_decomposition_match_the_operator_at_every_commit_of_the_python_side(
    topic: str, numerics: dict[tuple[str, str], Run]
) -> None:
    """test_ops.py's test_python_ref(_torch_fallback) and test_decomp.py's cross-reference, on each commit's files."""
    run = numerics["real", topic]
    if not run.boundary.touches_python:
        pytest.skip(f"{topic} edits no torch Python file: its Python side is the commit before's")
    assert run.report is not None, run.error
    if "skip" in run.report:
        pytest.skip(f"after {topic}: {run.report['skip']}")
    # The state really was this commit's: refs, prims and the OpInfo database came from its files.
    assert {"torch._refs", "torch._prims", "torch.testing._internal.common_methods_invocations"} <= set(
        run.report["shadowed"]
    )
    for check in CHECKS:
        assert set(run.report[check]) == {"float16", "bfloat16", "float32", "float64"}
        assert all(result.get("samples", 0) > 0 for result in run.report[check].values()), (check, run.report[check])
    assert run.failures() == {}, f"after {topic}"


def test_the_prims_switch_split_off_into_a_later_commit_leaves_the_aten_commit_red(
    numerics: dict[tuple[str, str], Run],
) -> None:
    """The planted bug: prims.cbrt's switch to aten.cbrt one commit late. At the [ATen] commit prims.cbrt is still
    copysign(pow(abs(a), 1/3), a): in float16 and bfloat16 it misses the tolerance on reference inputs and lands
    farther than the kernel from the float64 result, the failure review reported (5 and 2 of 35 samples).

    Upstream's test_python_ref and test_decomp, as series_numerics.py reproduces them, stay green there on CPU:
    torch._refs.cbrt computes float16 and bfloat16 in float32, where the composite is within a float16 ulp, and
    within tolerance in float32 and float64. This test pins that too, so the prims check is known to be what
    catches the split."""
    assert numerics["planted", "numpy"].boundary.shadow_key() == numerics["real", "numpy"].boundary.shadow_key()
    assert numerics["planted", "vec-cbrt"].boundary.shadow_key() == numerics["real", "vec-cbrt"].boundary.shadow_key()
    planted = numerics["planted", "aten-op"]
    assert planted.boundary.shadow_key() != numerics["real", "aten-op"].boundary.shadow_key()
    assert planted.report is not None, planted.error
    failing = planted.failures(("prims_cbrt",))
    assert set(failing) == {"prims_cbrt float16", "prims_cbrt bfloat16"}, failing
    assert all("farther" in line for lines in failing.values() for line in lines), failing
    assert planted.failures(("test_python_ref", "test_python_ref_torch_fallback", "test_decomp")) == {}

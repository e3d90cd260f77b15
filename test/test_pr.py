"""`make pr`: PR.md generated from the repo, results only from files, and the series copied next to it; one PR per
stack, with nothing of another stack in it."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import TEST_USER, checkout_shaped_tree, write

from scripts.gitutil import git
from scripts.layout import REPO_ROOT
from scripts.patchset.fragments import FragmentError, load_sources
from scripts.patchset.native_ops import native_ops
from scripts.patchset.testplan import suite_command
from scripts.upstream.apply_checkout import ApplyError, apply_to_checkout
from scripts.upstream.pr import (
    COMPLETE_COMMAND,
    NOT_RUN,
    FixesError,
    PrInputs,
    all_touched_paths,
    body_passages,
    complete_command,
    issue_number,
    markdown_section,
    write_pr,
)
from scripts.upstream.suites import Suite, all_suites

CBRT, DIVMOD = load_sources().stacks[:2]

PASSING_SUITE = """\
<testsuites><testsuite name="test_ops.py">
  <testcase classname="TestCommonCPU" name="test_out_cbrt_cpu_float32"/>
  <testcase classname="TestCommonCPU" name="test_dtypes_cbrt_cpu"/>
  <testcase classname="TestCommonCPU" name="test_python_ref_cbrt_cpu_complex64"><skipped/></testcase>
</testsuite></testsuites>
"""

FAILING_SUITE = """\
<testsuites><testsuite name="test_meta.py">
  <testcase classname="TestMetaCPU" name="test_meta_outplace_cbrt_cpu_float32"><failure/></testcase>
</testsuite></testsuites>
"""

BENCHMARKS = """\
# Benchmarks

Made by `make bench`; every figure below comes from that one run.

- machine: some CPU

## Targets (ratios measured side by side in the same run)

| target | sizes | worst ratio | required | met |
|---|---|---|---|---|
| torch.cbrt vs composite | 2^20 | 3.21x | 2x | yes |

## Throughput (Gelem/s)

| dtype | size |
"""

OPERATOR_PAGE = """\
# torch.cbrt

## Accuracy

```sh
# not a heading: a comment in a code block
python -m scripts.measure.accuracy
```

| dtype | max ULP error |
|---|---|
| float32 | 0.5 |

### float64

Random bit patterns.

## Benchmarks

elsewhere
"""


@pytest.fixture
def real_repo_pr(tmp_path: Path) -> tuple[Path, str]:
    # no results of any run, make test's own included, whatever this checkout's build/ holds
    inputs = PrInputs(REPO_ROOT, tmp_path / "pr", tmp_path / "no-results", overlay_xml=tmp_path / "no-results" / "overlay.xml")
    pr = write_pr(inputs)
    return inputs.output, pr.read_text()


@pytest.fixture(scope="module")
def divmod_pr(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    where = tmp_path_factory.mktemp("divmod-pr")
    inputs = PrInputs(REPO_ROOT, where / "pr", where / "none", overlay_xml=where / "none" / "overlay.xml", stack=DIVMOD)
    return inputs.output, write_pr(inputs).read_text()


def test_pr_names_every_topic_subject_in_order(real_repo_pr: tuple[Path, str]) -> None:
    _, text = real_repo_pr
    subjects = [topic.subject for topic in load_sources().of_stack(CBRT).topics]
    positions = [text.index(subject) for subject in subjects]
    assert positions == sorted(positions)


@pytest.mark.parametrize("stack", [CBRT, DIVMOD])
def test_each_pr_names_its_own_stacks_topics_and_no_other(
    real_repo_pr: tuple[Path, str], divmod_pr: tuple[Path, str], stack: str
) -> None:
    text = (real_repo_pr if stack == CBRT else divmod_pr)[1]
    sources = load_sources()
    own = sources.of_stack(stack)
    assert text.startswith(f"# {'Add torch.cbrt' if stack == CBRT else 'Add torch.divmod'}")
    size = "One commit" if len(own.topics) == 1 else f"Stack of {len(own.topics)} commits"
    assert f"\n{size} on PyTorch v" in text
    for topic in sources.topics:
        assert (f"{topic.subject}:" in text) == (topic.stack == stack), topic.id
    for op in native_ops(sources):
        assert (f"`{op.schema}`" in text) == (op.topic in {t.id for t in own.topics}), op.name
    assert f"STACK={stack}" in text and f"on branch {stack}" in text


def test_pr_lists_every_touched_file(real_repo_pr: tuple[Path, str]) -> None:
    _, text = real_repo_pr
    paths = all_touched_paths(load_sources().of_stack(CBRT))
    assert "aten/src/ATen/native/sparse/SparseUnaryOps.cpp" in paths
    for path in paths:
        assert f"`{path}`" in text


def test_divmod_pr_lists_its_files_and_not_cbrts(divmod_pr: tuple[Path, str]) -> None:
    _, text = divmod_pr
    for path in all_touched_paths(load_sources().of_stack(DIVMOD)):
        assert f"`{path}`" in text
    assert "SparseUnaryOps.cpp" not in text and "CbrtKernel" not in text


def test_divmod_pr_has_its_own_prose(divmod_pr: tuple[Path, str]) -> None:
    _, text = divmod_pr
    motivation = markdown_section(text, lambda title: title == "Motivation")
    follow_ups = markdown_section(text, lambda title: title == "Follow-ups")
    assert motivation is not None and follow_ups is not None
    assert "pytorch/pytorch#90820" in motivation[0] and "We would take a PR" in motivation[0]
    assert "divmod(tensor, 3)" in motivation[0] and "TypeError" in motivation[0]
    assert "MPS" in follow_ups[0] and "core" in follow_ups[0] and "inductor" in follow_ups[0]
    assert "What CI does not cover" not in text  # cbrt's coverage questions are cbrt's


def test_divmod_pr_filters_the_suites_on_divmod_alone(divmod_pr: tuple[Path, str]) -> None:
    _, text = divmod_pr
    matrix = markdown_section(text, lambda title: title == "Test matrix")
    plan = markdown_section(text, lambda title: title == "Test Plan")
    assert matrix is not None and plan is not None
    assert any(line.startswith("| `test_ops.py` | `-k '_divmod_'` |") for line in matrix)
    assert not any(line.startswith("| `test_unary_ufuncs.py`") for line in matrix)  # no divmod test runs there
    assert "python test/test_ops.py -k _divmod_" in plan
    assert "cbrt" not in "\n".join(matrix + plan)


@pytest.mark.parametrize("stack", [s for s in load_sources().stacks if s != CBRT])
def test_each_pr_quotes_only_its_own_operators_figures(stack: str, tmp_path: Path) -> None:
    from scripts.upstream.pr import texts

    inputs = PrInputs(REPO_ROOT, tmp_path / "pr", tmp_path / "none", overlay_xml=tmp_path / "none.xml", stack=stack)
    text = write_pr(inputs).read_text()
    benchmarks = markdown_section(text, lambda title: title == "Benchmarks")
    declared = texts(stack).benchmarks
    assert declared is not None and benchmarks is not None and benchmarks[0] == f"From `{declared.doc}`:"
    first_row = next(line for line in (REPO_ROOT / declared.doc).read_text().splitlines() if line.startswith("| "))
    assert first_row in benchmarks
    assert (markdown_section(text, lambda title: title == "Accuracy") is None) == (texts(stack).accuracy is None)
    assert "cbrt" not in "\n".join(benchmarks), "the first stack's figures in another stack's PR"


def test_divmod_pr_copies_the_divmod_series(divmod_pr: tuple[Path, str]) -> None:
    output, _ = divmod_pr
    patches = REPO_ROOT / "patches" / DIVMOD
    assert sorted(p.name for p in output.iterdir() if p.name != "PR.md") == sorted(p.name for p in patches.iterdir())
    for source in patches.iterdir():
        assert (output / source.name).read_bytes() == source.read_bytes()


def test_an_unknown_stack_is_refused_naming_the_stacks(tmp_path: Path) -> None:
    with pytest.raises(FragmentError, match=f"unknown stack 'nope': topics.toml has {CBRT}, {DIVMOD}"):
        write_pr(PrInputs(REPO_ROOT, tmp_path / "pr", tmp_path / "none", stack="nope"))


def test_a_stack_without_prose_in_pr_toml_is_refused_naming_the_file(tmp_path: Path) -> None:
    from scripts.upstream.pr import texts

    toml = write(tmp_path / "pr.toml", '[stack.one]\ntitle = "t"\nmotivation = "m"\nfollow_ups = "f"\n')
    assert texts("one", toml).title == "t"
    with pytest.raises(FragmentError, match=r"has no \[stack.two\] table \(it has: one\)"):
        texts("two", toml)


def test_pr_quotes_the_code_it_replaces(real_repo_pr: tuple[Path, str]) -> None:
    _, text = real_repo_pr
    assert "return torch.copysign(torch.pow(a.abs(), 1 / 3), a)" in text
    assert '# "cbrt",  # No corresponding torch operation' in text
    assert "- `cbrt.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)`" in text
    assert "no existing schema changes" in text


def test_pr_without_results_says_not_run_yet_for_every_suite(real_repo_pr: tuple[Path, str]) -> None:
    _, text = real_repo_pr
    matrix = markdown_section(text, lambda title: title == "Test matrix")
    assert matrix is not None
    rows = [line for line in matrix if line.startswith("| `")]
    named = {path for topic in load_sources().of_stack(CBRT).topics for path in topic.tests}
    suites = all_suites(load_sources())
    assert [row.split("`")[1] for row in rows] == [suite.path for suite in suites if suite.path in named]
    assert all(f"| {NOT_RUN} |" in row for row in rows)
    assert all(("cbrt" in row or "`-k 'test_doc'`" in row) and "divmod" not in row for row in rows)


def test_pr_copies_the_series_next_to_it(real_repo_pr: tuple[Path, str]) -> None:
    output, _ = real_repo_pr
    patches = REPO_ROOT / "patches" / CBRT
    for source in [*patches.glob("*.patch"), patches / "series"]:
        assert (output / source.name).read_bytes() == source.read_bytes()
    series = (output / "series").read_text().split()
    assert series and all((output / name).is_file() for name in series)


def test_pr_checklist_points_at_the_files_to_review(real_repo_pr: tuple[Path, str]) -> None:
    _, text = real_repo_pr
    checklist = markdown_section(text, lambda title: title == "Reviewer checklist")
    assert checklist is not None
    assert all(line.startswith("- [ ] ") for line in checklist)
    by_label = {line.split(":", 1)[0]: line for line in checklist}
    assert (
        "`aten/src/ATen/native/UnaryOps.cpp`" in by_label["- [ ] structured kernel (TORCH_META_FUNC / TORCH_IMPL_FUNC)"]
    )
    assert "`tools/autograd/derivatives.yaml`" in by_label["- [ ] derivatives.yaml (backward, forward AD)"]
    assert "`aten/src/ATen/functorch/BatchRulesUnaryOps.cpp`" in by_label["- [ ] vmap batch rule"]


def fixture_repo(root: Path) -> Path:
    """The conftest sources plus an exported series, results and reports, as a repo root."""
    write(root / "patches/cbrt/0001-ATen-first-topic.patch", "Subject: [PATCH 1/2] [ATen] first topic\n")
    write(root / "patches/cbrt/0002-docs-second-topic.patch", "Subject: [PATCH 2/2] [docs] second topic\n")
    write(root / "patches/cbrt/series", "0001-ATen-first-topic.patch\n0002-docs-second-topic.patch\n")
    return root


def test_pr_reads_results_and_reports_from_files(sources_root: Path, tmp_path: Path) -> None:
    root = fixture_repo(sources_root)
    topics = (root / "topics.toml").read_text()
    suites = 'tests = ["test_ops.py", "test_meta.py", "test_overrides.py"]\n'  # the matrix rows: the Test Plans' suites
    write(root / "topics.toml", topics.replace('files = ["aten/src/ATen/native/New.cpp"]\n',
                                               'files = ["aten/src/ATen/native/New.cpp"]\n' + suites, 1))
    results = tmp_path / "results"
    write(results / "test_ops.xml", PASSING_SUITE)
    write(results / "test_meta.xml", FAILING_SUITE)
    write(root / "docs/BENCHMARKS.md", BENCHMARKS)
    write(root / "docs/cbrt.md", OPERATOR_PAGE)
    text = write_pr(PrInputs(root, tmp_path / "pr", results)).read_text()
    assert "| `test_ops.py` | `-k '_cbrt_'` | ok | 2 | 0 | 0 | 1 |" in text
    assert "| `test_meta.py` | `-k '_cbrt_'` | FAILED | 0 | 1 | 0 | 0 |" in text
    assert f"| `test_overrides.py` | `-k 'test_torch_cbrt or test_Tensor_cbrt'` | {NOT_RUN} |" in text
    assert "| torch.cbrt vs composite | 2^20 | 3.21x | 2x | yes |" in text
    assert "- machine: some CPU" in text
    assert "Throughput" not in text
    assert "| float32 | 0.5 |" in text
    assert "Random bit patterns." in text
    assert "elsewhere" not in text
    assert "- `docs/source/torch.md` (or `docs/source/torch.rst`): edited" in text
    assert "- `aten/src/ATen/native/New.cpp`: new" in text


def test_pr_without_reports_says_not_run_yet(sources_root: Path, tmp_path: Path) -> None:
    root = fixture_repo(sources_root)
    text = write_pr(PrInputs(root, tmp_path / "pr", tmp_path / "none")).read_text()
    benchmarks = markdown_section(text, lambda title: title == "Benchmarks")
    accuracy = markdown_section(text, lambda title: title == "Accuracy")
    assert benchmarks is not None and benchmarks[0].startswith(NOT_RUN)
    assert accuracy is not None and accuracy[0].startswith(NOT_RUN)


def test_pr_replaces_stale_patches_in_its_folder(sources_root: Path, tmp_path: Path) -> None:
    root = fixture_repo(sources_root)
    output = tmp_path / "pr"
    write(output / "0009-gone.patch", "old\n")
    write_pr(PrInputs(root, output, tmp_path / "none"))
    assert sorted(p.name for p in output.glob("*.patch")) == [
        "0001-ATen-first-topic.patch",
        "0002-docs-second-topic.patch",
    ]
    assert not (output / "not-in-base.txt").exists()


def test_markdown_section_skips_hashes_inside_code_fences() -> None:
    section = markdown_section(OPERATOR_PAGE, lambda title: title == "Accuracy")
    assert section is not None
    assert section[0] == "```sh"
    assert "### float64" in section
    assert section[-1] == "Random bit patterns."


def test_overlay_results_of_make_test_appear_in_the_matrix(tmp_path: Path) -> None:
    from scripts.upstream.pr import overlay_matrix

    assert "not run yet" in overlay_matrix(tmp_path / "missing.xml")[0]
    xml = tmp_path / "overlay.xml"
    xml.write_text(
        '<testsuites><testsuite name="pytest"><testcase classname="a" name="ok"/>'
        '<testcase classname="a" name="skip"><skipped/></testcase></testsuite></testsuites>'
    )
    row = next(line for line in overlay_matrix(xml) if line.startswith("| `make test`"))
    assert "| 1 | 0 | 0 | 1 |" in row


def test_pr_without_a_checkout_offers_the_complete_series(real_repo_pr: tuple[Path, str]) -> None:
    output, text = real_repo_pr
    commits = markdown_section(text, lambda title: title.startswith("Commits"))
    assert commits is not None
    command = complete_command(CBRT)
    assert command.startswith(COMPLETE_COMMAND)
    assert any(line.startswith("Complete `git format-patch` series") and f"`{command}`" in line for line in commits)
    assert "Incomplete" not in text and not (output / "not-in-base.txt").exists()
    diffs = "".join((output / name).read_text() for name in (output / "series").read_text().split())
    for fragment_file in load_sources().of_stack(CBRT).fragment_files:
        assert f"diff --git a/{fragment_file.upstream_path} " in diffs, fragment_file.upstream_path


@pytest.mark.parametrize(
    ("fixes", "number"),
    [("4242", "4242"), ("#4242", "4242"), ("https://github.com/pytorch/pytorch/issues/4242", "4242"),
     ("https://github.com/pytorch/pytorch/issues/4242/", "4242"), ("", "")],
)
def test_fixes_takes_an_issue_number_or_its_url(fixes: str, number: str) -> None:
    assert issue_number(fixes) == number


@pytest.mark.parametrize(
    "fixes",
    ["abc", "12a", "0", "https://github.com/pytorch/pytorch/pull/4242", "https://github.com/other/repo/issues/1",
     "https://github.com/pytorch/pytorch/issues/"],
)
def test_fixes_that_is_no_issue_is_refused_with_what_to_pass(fixes: str, sources_root: Path, tmp_path: Path) -> None:
    with pytest.raises(FixesError, match=r"pass its number \(FIXES=123\) or its URL"):
        issue_number(fixes)
    with pytest.raises(FixesError):
        write_pr(PrInputs(fixture_repo(sources_root), tmp_path / "pr", tmp_path / "none", fixes=fixes))


def test_fixes_url_becomes_a_fixes_line(sources_root: Path, tmp_path: Path) -> None:
    inputs = PrInputs(fixture_repo(sources_root), tmp_path / "pr", tmp_path / "none",
                      fixes="https://github.com/pytorch/pytorch/issues/98765")
    follow_ups = markdown_section(write_pr(inputs).read_text(), lambda title: title == "Follow-ups")
    assert follow_ups is not None and follow_ups[-1] == "Fixes #98765"


def test_pr_carries_a_test_plan_per_commit_and_the_follow_ups(real_repo_pr: tuple[Path, str]) -> None:
    _, text = real_repo_pr
    plan = markdown_section(text, lambda title: title == "Test Plan")
    assert plan is not None
    for topic in load_sources().of_stack(CBRT).topics:
        assert f"{topic.subject}:" in plan
    assert "python test/test_torch.py -k test_doc" in plan
    follow_ups = markdown_section(text, lambda title: title == "Follow-ups")
    assert follow_ups is not None and follow_ups[-1].startswith("Fixes #")
    assert "core" in follow_ups[0] and "ONNX" in follow_ups[0] and "export" in follow_ups[0]


def test_pr_on_a_checkout_exports_the_complete_series_under_the_users_name(tmp_path: Path) -> None:
    sources = load_sources()
    checkout = checkout_shaped_tree(tmp_path / "pytorch", sources)
    head, branches = git(checkout, "rev-parse", "HEAD"), git(checkout, "branch", "--list")
    output, results = tmp_path / "pr", tmp_path / "results"
    write(results / "test_ops.xml", PASSING_SUITE)
    text = write_pr(PrInputs(REPO_ROOT, output, results, checkout, "4242"), sources).read_text()
    names = (output / "series").read_text().split()
    sources = sources.of_stack(CBRT)  # write_pr took the first stack's topics out of all of them
    assert len(names) == len(sources.topics)
    patches = [(output / name).read_text() for name in names]
    assert all(f"From: {TEST_USER[0]} <{TEST_USER[1]}>" in patch for patch in patches)
    assert all("Test Plan" in patch for patch in patches)
    ops_runs = [p for p in patches if "\npython test/test_ops.py -k _cbrt_\n  " in p]
    assert ops_runs and all(
        "\npython test/test_ops.py -k _cbrt_\n  ok: 2 passed, 0 failed, 0 errors, 1 skipped" in p for p in ops_runs
    )
    assert any("python test/test_torch.py -k test_doc\n  not run yet" in p for p in patches)
    diffs = "".join(patches)
    for fragment_file in sources.fragment_files:
        assert f"diff --git a/{fragment_file.upstream_path} " in diffs, fragment_file.upstream_path
    assert "Incomplete" not in text and not (output / "not-in-base.txt").exists()
    assert "Every commit has what test_doc" in text and "Fixes #4242" in text
    assert (git(checkout, "rev-parse", "HEAD"), git(checkout, "branch", "--list")) == (head, branches)


def test_pr_on_a_checkout_refuses_without_a_git_identity(
    sources_root: Path, checkout: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in (
        "GIT_CONFIG_COUNT",
        "GIT_CONFIG_KEY_0",
        "GIT_CONFIG_VALUE_0",
        "GIT_CONFIG_KEY_1",
        "GIT_CONFIG_VALUE_1",
    ):
        monkeypatch.delenv(name)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-gitconfig"))
    inputs = PrInputs(sources_root, tmp_path / "pr", tmp_path / "none", checkout)
    with pytest.raises(ApplyError, match="user.name and user.email are not set"):
        write_pr(inputs, load_sources(sources_root))


def test_pr_on_a_checkout_that_already_carries_the_series_exports_it_from_below(tmp_path: Path) -> None:
    sources = load_sources()
    checkout = checkout_shaped_tree(tmp_path / "pytorch", sources)
    base = git(checkout, "rev-parse", "HEAD").strip()
    apply_to_checkout(checkout, "cbrt", sources)
    output = tmp_path / "pr"
    text = write_pr(PrInputs(REPO_ROOT, output, tmp_path / "none", checkout), sources).read_text()
    assert len((output / "series").read_text().split()) == len(sources.of_stack(CBRT).topics)
    assert f"at `{base[:12]}`" in text and "Every commit has what test_doc" in text


def test_commit_bodies_split_into_paragraphs_and_bullets_each_on_one_line() -> None:
    body = "First paragraph\nwraps here.\n\n- a bullet\n  that wraps\n- another\n\nCI: last\nparagraph.\n"
    assert body_passages(body) == ["First paragraph wraps here.", "a bullet that wraps", "another", "CI: last paragraph."]


def test_pr_quotes_the_commit_messages_on_what_ci_does_not_cover(real_repo_pr: tuple[Path, str]) -> None:
    """Which CI job runs vec_test_all_types, and why the composite fallback has no upstream test: answered once,
    in topics.toml, and quoted from there."""
    _, text = real_repo_pr
    section = markdown_section(text, lambda title: title == "What CI does not cover, and why")
    assert section is not None
    quoted = [line.removeprefix("> ") for line in section if line.startswith("> ")]
    bodies = {topic.subject: body_passages(topic.body) for topic in load_sources().of_stack(CBRT).topics}
    assert len(quoted) == 2 and all(any(q in passages for passages in bodies.values()) for q in quoted)
    ci, fallback = quoted
    assert "vec256_test*" in ci and "vec_test_all_types_{DEFAULT,AVX2,AVX512} (#58438)" in ci
    assert "PrivateUse1" in fallback and "test/test_bc_devices.py" in fallback
    assert (REPO_ROOT / "test" / "test_bc_devices.py").is_file()


UNITTEST_SUITE = """from torch.testing._internal.common_utils import TestCase, run_tests


class TestCommonCPU(TestCase):
    def test_out_op_cpu_float32(self):
        pass

    def test_out__op_backward_cpu_float32(self):
        pass

    def test_out_other_cpu_float32(self):
        pass

    def test_out_operator_cpu_float32(self):  # another operator whose name starts with op's: not op's test
        pass


class HasDecompTest(TestCase):
    def test_has_decomposition(self):
        pass


if __name__ == "__main__":
    run_tests()
"""


def test_a_test_plan_line_runs_the_operators_tests_as_upstream_runs_the_file(tmp_path: Path) -> None:
    # `python test/<file>` runs unittest, whose -k is one substring per flag: an `a or b` expression (pytest's
    # syntax) would match no test name and run nothing; `_op_` selects op's tests and not operator's
    command = suite_command(Suite("test_decomp.py", ("HasDecompTest",)), ("op", "_op_backward"))
    assert command == "python test/test_decomp.py -k _op_ -k HasDecompTest"
    write(tmp_path / "test" / "test_decomp.py", UNITTEST_SUITE)
    ran = subprocess.run([sys.executable, *shlex.split(command)[1:], "-v"], cwd=tmp_path, capture_output=True,
                         text=True, env={**os.environ, "CI": ""})
    assert ran.returncode == 0, ran.stderr
    assert sorted(re.findall(r"^(test_\w+) ", ran.stderr, re.MULTILINE)) == [
        "test_has_decomposition", "test_out__op_backward_cpu_float32", "test_out_op_cpu_float32"]

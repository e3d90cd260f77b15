"""`make pr`: PR.md generated from the repo, results only from files, and the series copied next to it."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import TEST_USER, checkout_shaped_tree, write

from scripts.gitutil import git
from scripts.layout import REPO_ROOT
from scripts.patchset.fragments import load_sources
from scripts.upstream.apply_checkout import ApplyError, apply_to_checkout
from scripts.upstream.pr import (
    COMPLETE_COMMAND,
    NOT_RUN,
    PrInputs,
    all_touched_paths,
    markdown_section,
    not_in_series,
    write_pr,
)

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

README = """\
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


def test_pr_names_every_topic_subject_in_order(real_repo_pr: tuple[Path, str]) -> None:
    _, text = real_repo_pr
    subjects = [topic.subject for topic in load_sources().topics]
    positions = [text.index(subject) for subject in subjects]
    assert positions == sorted(positions)


def test_pr_lists_every_touched_file(real_repo_pr: tuple[Path, str]) -> None:
    _, text = real_repo_pr
    paths = all_touched_paths(load_sources())
    assert "aten/src/ATen/native/sparse/SparseUnaryOps.cpp" in paths
    for path in paths:
        assert f"`{path}`" in text


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
    assert len(rows) == 13
    assert all(f"| {NOT_RUN} |" in row for row in rows)


def test_pr_copies_the_series_next_to_it(real_repo_pr: tuple[Path, str]) -> None:
    output, _ = real_repo_pr
    patches = REPO_ROOT / "patches"
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
    write(root / "patches/0001-ATen-first-topic.patch", "Subject: [PATCH 1/2] [ATen] first topic\n")
    write(root / "patches/0002-docs-second-topic.patch", "Subject: [PATCH 2/2] [docs] second topic\n")
    write(root / "patches/series", "0001-ATen-first-topic.patch\n0002-docs-second-topic.patch\n")
    write(root / "patches/not-in-base.txt", "# comment\ntwo: docs/source/torch.md\n")
    return root


def test_pr_reads_results_and_reports_from_files(sources_root: Path, tmp_path: Path) -> None:
    root = fixture_repo(sources_root)
    results = tmp_path / "results"
    write(results / "test_ops.xml", PASSING_SUITE)
    write(results / "test_meta.xml", FAILING_SUITE)
    write(root / "docs/BENCHMARKS.md", BENCHMARKS)
    write(root / "README.md", README)
    text = write_pr(PrInputs(root, tmp_path / "pr", results)).read_text()
    assert "| `test_ops.py` | `-k 'cbrt'` | ok | 2 | 0 | 0 | 1 |" in text
    assert "| `test_meta.py` | `-k 'cbrt'` | FAILED | 0 | 1 | 0 | 0 |" in text
    assert f"| `test_overrides.py` | `-k 'cbrt'` | {NOT_RUN} |" in text
    assert "| torch.cbrt vs composite | 2^20 | 3.21x | 2x | yes |" in text
    assert "- machine: some CPU" in text
    assert "Throughput" not in text
    assert "| float32 | 0.5 |" in text
    assert "Random bit patterns." in text
    assert "elsewhere" not in text
    assert "- `docs/source/torch.md` (or `docs/source/torch.rst`): edited; outside the exported series" in text
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
    assert (output / "not-in-base.txt").is_file()


def test_markdown_section_skips_hashes_inside_code_fences() -> None:
    section = markdown_section(README, lambda title: title == "Accuracy")
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


def test_pr_without_a_checkout_says_what_the_series_lacks_and_how_to_complete_it(
    real_repo_pr: tuple[Path, str],
) -> None:
    _, text = real_repo_pr
    commits = markdown_section(text, lambda title: title.startswith("Commits"))
    assert commits is not None
    assert any(line.startswith("Incomplete:") and f"`{COMPLETE_COMMAND}`" in line for line in commits)
    for topic, path in not_in_series(REPO_ROOT / "patches"):
        assert f"- {topic}: `{path}`" in commits


def test_pr_carries_a_test_plan_per_commit_and_the_follow_ups(real_repo_pr: tuple[Path, str]) -> None:
    _, text = real_repo_pr
    plan = markdown_section(text, lambda title: title == "Test Plan")
    assert plan is not None
    for topic in load_sources().topics:
        assert f"{topic.subject}:" in plan
    assert "python test/test_torch.py -k 'cbrt or test_doc'" in plan
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
    assert len(names) == len(sources.topics)
    patches = [(output / name).read_text() for name in names]
    assert all(f"From: {TEST_USER[0]} <{TEST_USER[1]}>" in patch for patch in patches)
    assert all("Test Plan" in patch for patch in patches)
    ops_runs = [p for p in patches if "\npython test/test_ops.py -k cbrt\n  " in p]
    assert ops_runs and all(
        "\npython test/test_ops.py -k cbrt\n  ok: 2 passed, 0 failed, 0 errors, 1 skipped" in p for p in ops_runs
    )
    assert any("python test/test_torch.py -k 'cbrt or test_doc'\n  not run yet" in p for p in patches)
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
    assert len((output / "series").read_text().split()) == len(sources.topics)
    assert f"at `{base[:12]}`" in text and "Every commit has what test_doc" in text

"""`make apply`: one commit per topic on a new branch, refusals that change nothing, exact rollback."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import checkout_shaped_tree, fragment_toml, make_checkout, write

import scripts.upstream.apply_checkout as apply_checkout
from scripts.gitutil import FIXED_IDENTITY, git
from scripts.patchset.fragments import FragmentError, load_sources
from scripts.upstream.apply_checkout import ApplyError, apply_to_checkout


def snapshot(repo: Path) -> tuple[str, str, str, str]:
    """Branch, HEAD, index and work tree state, enough to prove nothing changed."""
    return (
        git(repo, "symbolic-ref", "HEAD").strip(),
        git(repo, "rev-parse", "HEAD").strip(),
        git(repo, "status", "--porcelain", "--untracked-files=all"),
        git(repo, "branch", "--list"),
    )


def test_applies_one_commit_per_topic_on_a_new_branch(sources_root: Path, checkout: Path) -> None:
    summary = apply_to_checkout(checkout, "cbrt", load_sources(sources_root))
    assert summary.startswith("applied: 2 commits on branch 'cbrt'")
    subjects = git(checkout, "log", "--format=%s", "main..cbrt").splitlines()
    assert subjects == ["[docs] second topic", "[ATen] first topic"]
    assert (checkout / "aten/src/ATen/native/New.cpp").read_text() == "// new file\n"
    assert "    cbrt" in (checkout / "docs/source/torch.md").read_text().splitlines()


def test_an_alternative_target_is_used_when_the_primary_is_absent(sources_root: Path, tmp_path: Path) -> None:
    rst_checkout = make_checkout(tmp_path / "rst", docs_name="torch.rst")
    apply_to_checkout(rst_checkout, "cbrt", load_sources(sources_root))
    assert "    cbrt" in (rst_checkout / "docs/source/torch.rst").read_text().splitlines()


def test_second_run_says_already_applied_and_changes_nothing(sources_root: Path, checkout: Path) -> None:
    sources = load_sources(sources_root)
    apply_to_checkout(checkout, "cbrt", sources)
    before = snapshot(checkout)
    assert apply_to_checkout(checkout, "cbrt", sources).startswith("already applied")
    assert snapshot(checkout) == before


def test_dirty_tree_is_refused_untouched(sources_root: Path, checkout: Path) -> None:
    (checkout / "docs/source/torch.md").write_text("my uncommitted work\n")
    (checkout / "notes.txt").write_text("untracked work\n")
    before = snapshot(checkout)
    with pytest.raises(ApplyError, match="uncommitted changes; commit or stash them first"):
        apply_to_checkout(checkout, "cbrt", load_sources(sources_root))
    assert snapshot(checkout) == before
    assert (checkout / "docs/source/torch.md").read_text() == "my uncommitted work\n"


def test_not_a_git_checkout_is_refused(sources_root: Path, tmp_path: Path) -> None:
    with pytest.raises(ApplyError, match="is not a git checkout"):
        apply_to_checkout(tmp_path, "cbrt", load_sources(sources_root))


def test_off_pin_head_warns_but_applies(sources_root: Path, checkout: Path, capsys: pytest.CaptureFixture[str]) -> None:
    apply_to_checkout(checkout, "cbrt", load_sources(sources_root))
    assert "not the pinned v2.14.1 (5c48869)" in capsys.readouterr().err


def test_missing_anchor_in_a_later_topic_stops_before_any_change(sources_root: Path, checkout: Path) -> None:
    write(
        sources_root / "docs/upstream/docs/source/torch.md.fragments.toml",
        fragment_toml("two", "after", "    cube\n", "    cbrt\n"),
    )
    before = snapshot(checkout)
    with pytest.raises(ApplyError, match=r"anchor '    cube' not found(.|\n)*nothing was changed"):
        apply_to_checkout(checkout, "cbrt", load_sources(sources_root))
    assert snapshot(checkout) == before
    assert not (checkout / "aten/src/ATen/native/New.cpp").exists()


def exact_state(repo: Path) -> dict[str, object]:
    """HEAD, every branch, the index and every file on disk (untracked and ignored ones too), byte for byte."""
    files = {
        str(path.relative_to(repo)): path.read_bytes()
        for path in sorted(repo.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(repo).parts
    }
    return {
        "HEAD": git(repo, "symbolic-ref", "-q", "HEAD", check=False) + git(repo, "rev-parse", "HEAD"),
        "branches": git(repo, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads"),
        "index": git(repo, "ls-files", "--stage"),
        "files": files,
    }


def with_ignored_build_output(checkout: Path) -> Path:
    """A checkout as a developer has it: clean, with ignored build output that must survive any rollback."""
    write(checkout / ".gitignore", "build/\n")
    git(checkout, "add", ".gitignore")
    git(checkout, "commit", "-q", "-m", "ignore build output", env=FIXED_IDENTITY)
    write(checkout / "build/libtorch.so", "binary\n")
    return checkout


TOPIC_COUNT = 2  # conftest's sources_root
MOMENTS = ("before writing", "after writing", "after staging", "after committing")


def interrupt_at(monkeypatch: pytest.MonkeyPatch, topic: int, moment: str) -> None:
    """Raise KeyboardInterrupt at `moment` of the `topic`-th topic (0-based) of commit_topics."""
    real_write_plan, real_commit_all = apply_checkout.write_plan, apply_checkout.commit_all
    reached = {"write": -1, "commit": -1}

    def write_plan(repo: Path, plan: object) -> None:
        reached["write"] += 1
        if reached["write"] == topic and moment == "before writing":
            raise KeyboardInterrupt(f"interrupted {moment} topic {topic}")
        real_write_plan(repo, plan)
        if reached["write"] == topic and moment == "after writing":
            raise KeyboardInterrupt(f"interrupted {moment} topic {topic}")

    def commit_all(repo: Path, paths: list[str], message: str, env: dict[str, str]) -> None:
        reached["commit"] += 1
        if reached["commit"] == topic and moment == "after staging":
            git(repo, "add", "--", *paths)  # the commit's first half: the index holds the topic, HEAD does not
            raise KeyboardInterrupt(f"interrupted {moment} topic {topic}")
        real_commit_all(repo, paths, message, env)
        if reached["commit"] == topic and moment == "after committing":
            raise KeyboardInterrupt(f"interrupted {moment} topic {topic}")

    monkeypatch.setattr(apply_checkout, "write_plan", write_plan)
    monkeypatch.setattr(apply_checkout, "commit_all", commit_all)


@pytest.mark.parametrize("moment", MOMENTS)
@pytest.mark.parametrize("topic", range(TOPIC_COUNT))
def test_interrupt_at_any_point_restores_head_branches_index_and_every_file(
    sources_root: Path, checkout: Path, monkeypatch: pytest.MonkeyPatch, topic: int, moment: str
) -> None:
    with_ignored_build_output(checkout)
    before = exact_state(checkout)
    interrupt_at(monkeypatch, topic, moment)
    with pytest.raises(ApplyError, match=f"interrupted {moment} topic {topic}"):
        apply_to_checkout(checkout, "cbrt", load_sources(sources_root))
    assert exact_state(checkout) == before


def test_interrupt_on_a_detached_head_restores_it_detached(
    sources_root: Path, checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(checkout, "checkout", "-q", "--detach")
    before = exact_state(checkout)
    interrupt_at(monkeypatch, 1, "after writing")
    with pytest.raises(ApplyError, match="interrupted"):
        apply_to_checkout(checkout, "cbrt", load_sources(sources_root))
    assert exact_state(checkout) == before


def test_commits_that_landed_on_the_original_branch_are_reset_away(
    sources_root: Path, checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the new branch was never checked out, topics commit onto the original branch: restore() resets it."""
    real_git = apply_checkout.git

    def git_without_branch_switch(repo: Path, *args: str, **kwargs: object) -> str:
        return "" if args[:3] == ("checkout", "-q", "-b") else real_git(repo, *args, **kwargs)

    monkeypatch.setattr(apply_checkout, "git", git_without_branch_switch)
    interrupt_at(monkeypatch, 1, "after committing")
    before = exact_state(checkout)
    with pytest.raises(ApplyError, match="interrupted"):
        apply_to_checkout(checkout, "cbrt", load_sources(sources_root))
    assert exact_state(checkout) == before


def test_existing_branch_is_refused(sources_root: Path, checkout: Path) -> None:
    git(checkout, "branch", "cbrt")
    with pytest.raises(ApplyError, match="branch 'cbrt' already exists"):
        apply_to_checkout(checkout, "cbrt", load_sources(sources_root))


def test_the_real_patch_set_applies_to_a_checkout_shaped_tree(tmp_path: Path) -> None:
    """The base from the wheel, plus fixture files holding the anchors of the files the wheel lacks."""
    sources = load_sources()
    checkout = checkout_shaped_tree(tmp_path / "pytorch", sources)
    first = sources.of_stack()  # without a stack, the first of topics.toml: its topics only
    assert apply_to_checkout(checkout, None, sources).startswith(f"applied: {len(first.topics)} commits on branch 'cbrt'")
    subjects = git(checkout, "log", "--format=%s", "main..cbrt").splitlines()[::-1]
    assert subjects == [t.subject for t in first.topics]
    batch_rules = (checkout / "aten/src/ATen/functorch/BatchRulesUnaryOps.cpp").read_text()
    assert "UNARY_POINTWISE_ALL(cbrt);" in batch_rules
    assert "divmod" not in (checkout / "aten/src/ATen/native/native_functions.yaml").read_text()
    assert apply_to_checkout(checkout, "cbrt", sources).startswith("already applied")


def test_the_second_stack_applies_alone_then_beside_the_first(tmp_path: Path) -> None:
    """Each stack on its own branch from the pin; both stacks' branches may live in one checkout."""
    sources = load_sources()
    checkout = checkout_shaped_tree(tmp_path / "pytorch", sources)
    divmod = sources.of_stack("divmod")
    assert len(divmod.topics) == 1
    assert apply_to_checkout(checkout, None, sources, "divmod").startswith("applied: 1 commit on branch 'divmod'")
    assert git(checkout, "log", "--format=%s", "main..divmod").splitlines()[::-1] == [t.subject for t in divmod.topics]
    yaml = (checkout / "aten/src/ATen/native/native_functions.yaml").read_text()
    assert "- func: divmod" in yaml and "- func: cbrt" not in yaml
    git(checkout, "checkout", "-q", "main")
    assert apply_to_checkout(checkout, None, sources, "cbrt").startswith("applied:")
    assert git(checkout, "merge-base", "cbrt", "divmod").strip() == git(checkout, "rev-parse", "main").strip()


def test_an_unknown_stack_is_refused_naming_the_stacks(sources_root: Path, checkout: Path) -> None:
    with pytest.raises(FragmentError, match="unknown stack 'nope': topics.toml has cbrt$"):
        apply_to_checkout(checkout, None, load_sources(sources_root), "nope")
    assert git(checkout, "branch", "--list").split() == ["*", "main"]

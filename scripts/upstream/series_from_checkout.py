"""`make pr PYTORCH_SRC=...`: the complete series, made on a real checkout, files the wheel lacks included.

The topics are committed in a scratch clone of the checkout's HEAD, under the user's git identity,
with the Test Plan counts found in the JUnit XML; the checkout itself is never touched. Every
commit is then checked for what the upstream suites demand of it (scripts/patchset/series_checks.py).
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from scripts.gitutil import git, head_commit, is_git_repo
from scripts.patchset.fragments import Sources
from scripts.patchset.series_checks import Reader, unmet_demands
from scripts.upstream.apply_checkout import MARKER_FILE, ApplyError, commit_identity, commit_topics, pending_plans
from scripts.upstream.junit_summary import SuiteResult

SERIES_NAME = "series"


@dataclass(frozen=True)
class ExportedSeries:
    checkout: Path
    base: str  # the checkout's HEAD the series applies to
    names: list[str]
    unmet: dict[str, list[str]]  # commit subject -> upstream demands its files fail


def check_source(checkout: Path) -> None:
    if not is_git_repo(checkout):
        raise ApplyError(f"PYTORCH_SRC={checkout} is not a git checkout; pass the folder that holds aten/ and torch/")
    if not (checkout / MARKER_FILE).is_file():
        raise ApplyError(f"PYTORCH_SRC={checkout} has no {MARKER_FILE}; is it a PyTorch checkout?")


def file_reader(repo: Path, commit: str) -> Reader:
    def read(path: str) -> str | None:
        if not git(repo, "ls-tree", "--name-only", commit, "--", path).strip():
            return None
        return git(repo, "show", f"{commit}:{path}")

    return read


def unmet_by_commit(repo: Path, base: str) -> dict[str, list[str]]:
    commits = git(repo, "rev-list", "--reverse", f"{base}..HEAD").split()
    found = {}
    for commit in commits:
        problems = unmet_demands(file_reader(repo, commit))
        if problems:
            found[git(repo, "log", "-1", "--format=%s", commit).strip()] = problems
    return found


def series_base(checkout: Path, sources: Sources) -> str:
    """HEAD, or the commit below the series when HEAD already carries it (`make apply`, `make pytorch`)."""
    subjects = [topic.subject for topic in sources.topics]
    recent = git(checkout, "log", f"-{len(subjects)}", "--format=%s").splitlines()[::-1]
    if recent == subjects:
        return git(checkout, "rev-parse", f"HEAD~{len(subjects)}").strip()
    return head_commit(checkout)


def export_from_checkout(
    checkout: Path, output: Path, sources: Sources, results: Mapping[str, SuiteResult]
) -> ExportedSeries:
    """Commit the topics on a scratch clone of `checkout` and write their `git format-patch` series to `output`.

    `results` gives the Test Plan counts (scripts.patchset.testplan.load_results).
    """
    check_source(checkout)
    identity = commit_identity(checkout)
    base = series_base(checkout, sources)
    with tempfile.TemporaryDirectory(prefix="pr-series-") as scratch:
        clone = Path(scratch) / "pytorch"
        git(Path(scratch), "clone", "-q", "--shared", "--no-checkout", str(checkout), str(clone))
        git(clone, "checkout", "-q", "--detach", base)
        pending_plans(clone, sources)  # every anchor checked before the first commit
        commit_topics(clone, sources, set(), identity, results)
        output.mkdir(parents=True, exist_ok=True)
        for stale in output.glob("*.patch"):
            stale.unlink()
        git(clone, "format-patch", "-q", "--no-signature", "-o", str(output), f"{base}..HEAD")
        unmet = unmet_by_commit(clone, base)
    names = sorted(p.name for p in output.glob("*.patch"))
    (output / SERIES_NAME).write_text("".join(f"{name}\n" for name in names))
    return ExportedSeries(checkout, base, names, unmet)

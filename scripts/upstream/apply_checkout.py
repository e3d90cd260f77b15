"""`make apply PYTORCH_SRC=... [STACK=...]`: apply one stack of the patch set to a PyTorch checkout, one commit per
topic, on a branch named after the stack unless told.

Refuses a dirty tree, warns off the pin, and on any failure restores the branch,
HEAD, index and files exactly as they were.
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from scripts.gitutil import (
    GitError,
    branch_exists,
    commit_all,
    current_branch,
    git,
    head_commit,
    is_git_repo,
    porcelain_status,
)
from scripts.patchset.fragments import FragmentError, Sources, load_sources
from scripts.patchset.pin import load_pin
from scripts.patchset.testplan import commit_message, load_results
from scripts.patchset.topic_plan import TopicPlan, net_changes, plan_series, plan_topic, write_plan
from scripts.upstream.junit_summary import SuiteResult
from scripts.upstream.suites import results_dir_of

MARKER_FILE = "aten/src/ATen/native/native_functions.yaml"


class ApplyError(RuntimeError):
    pass


def stack_sources(sources: Sources | None = None, stack: str | None = None) -> Sources:
    """The topics of one stack (default: the first of topics.toml); FragmentError names the stacks otherwise."""
    return (sources or load_sources()).of_stack(stack)


def default_branch(sources: Sources | None = None, stack: str | None = None) -> str:
    """The branch a stack is committed on unless told: the stack's name (topics.toml), so no tool names one."""
    return stack_sources(sources, stack).stacks[0]


@dataclass(frozen=True)
class CheckoutState:
    branch: str | None
    head: str

    @property
    def ref(self) -> str:
        return self.branch or self.head


def check_checkout(checkout: Path) -> None:
    if not is_git_repo(checkout):
        raise ApplyError(f"PYTORCH_SRC={checkout} is not a git checkout; pass the folder that holds aten/ and torch/")
    if not (checkout / MARKER_FILE).is_file():
        raise ApplyError(f"PYTORCH_SRC={checkout} has no {MARKER_FILE}; is it a PyTorch checkout?")
    dirty = porcelain_status(checkout)
    if dirty:
        shown = "\n  ".join(dirty[:10]) + ("\n  ..." if len(dirty) > 10 else "")
        raise ApplyError(
            f"{checkout} has uncommitted changes; commit or stash them first (nothing was changed):\n  {shown}"
        )


def warn_if_off_pin(checkout: Path) -> None:
    pin = load_pin()
    head = head_commit(checkout)
    if head != pin.commit:
        print(
            f"warning: {checkout} is at {head[:12]}, not the pinned v{pin.version} ({pin.short_commit}); "
            "applying anyway: every anchor is checked, and a missing one stops with nothing changed",
            file=sys.stderr,
        )


def pending_plans(checkout: Path, sources: Sources) -> list[TopicPlan]:
    """Every topic checked against the tree, in order, before anything is written."""
    try:
        return plan_series(checkout, sources, missing_ok=False)
    except FragmentError as error:
        raise ApplyError(f"{error}\nnothing was changed in {checkout}") from error


def commit_identity(checkout: Path) -> dict[str, str]:
    """The user's own name and email from git config: the commits go upstream under them (CLA check).

    Only the drift-checked patches/ uses the patch set's fixed identity.
    """
    name = git(checkout, "config", "user.name", check=False).strip()
    email = git(checkout, "config", "user.email", check=False).strip()
    if not (name and email):
        raise ApplyError(
            f"git config user.name and user.email are not set for {checkout}; set them "
            "(`git config --global user.name ...`), the commits carry your name; nothing was changed"
        )
    return {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
    }


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def restore(checkout: Path, state: CheckoutState, branch: str, written: set[str]) -> None:
    git(checkout, "checkout", "-q", "-f", state.ref)
    if git(checkout, "rev-parse", "HEAD").strip() != state.head:
        git(checkout, "reset", "-q", "--hard", state.head)
    if branch_exists(checkout, branch) and branch != state.branch:
        git(checkout, "branch", "-q", "-D", branch)
    tracked = set(git(checkout, "ls-files", "--", *written).splitlines()) if written else set()
    for path in sorted(written - tracked):
        (checkout / path).unlink(missing_ok=True)


def commit_topics(
    checkout: Path,
    sources: Sources,
    written: set[str],
    identity: dict[str, str],
    results: Mapping[str, SuiteResult] | None = None,
) -> int:
    """One commit per topic of `sources` (one stack's); each message's Test Plan carries the counts of `results`
    (default: the JUnit XML of that stack's `make pytorch` and of `make test`)."""
    results = load_results(results_dir_of(sources.stacks[0])) if results is None else results
    commits = 0
    for topic in sources.topics:
        plan = plan_topic(checkout, sources, topic.id, missing_ok=False)
        if plan.is_empty:
            continue
        written.update(plan.writes)
        write_plan(checkout, plan)
        commit_all(checkout, sorted(plan.writes), commit_message(topic, results, sources), env=identity)
        print(f"  {topic.id}: {topic.subject}")
        commits += 1
    return commits


def apply_to_checkout(
    checkout: Path, branch: str | None = None, sources: Sources | None = None, stack: str | None = None
) -> str:
    """Apply and commit the topics of `stack` (default: the first) on `branch` (default: the stack's name); returns
    a one-line summary. Raises ApplyError with nothing changed on failure."""
    sources = stack_sources(sources, stack)
    branch = branch or default_branch(sources)
    check_checkout(checkout)
    warn_if_off_pin(checkout)
    if not net_changes(checkout, pending_plans(checkout, sources)):
        return f"already applied: {checkout} has every topic of stack {sources.stacks[0]!r}; nothing changed"
    if branch_exists(checkout, branch):
        raise ApplyError(f"branch {branch!r} already exists in {checkout}; delete it or pass BRANCH=<name>")
    identity = commit_identity(checkout)
    state = CheckoutState(current_branch(checkout), head_commit(checkout))
    written: set[str] = set()
    try:
        with sigterm_as_interrupt():
            git(checkout, "checkout", "-q", "-b", branch)
            commits = commit_topics(checkout, sources, written, identity)
    except (Exception, KeyboardInterrupt) as error:
        restore(checkout, state, branch, written)
        raise ApplyError(f"apply failed, {checkout} restored to {state.ref} ({state.head[:12]}): {error}") from error
    return f"applied: {commits} commit{'' if commits == 1 else 's'} on branch {branch!r} in {checkout}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("checkout", type=Path, help="the PyTorch checkout (PYTORCH_SRC)")
    parser.add_argument("--stack", help="the stack of topics.toml to apply (default: the first)")
    parser.add_argument("--branch", help="default: the stack's name")
    args = parser.parse_args()
    try:
        print(apply_to_checkout(args.checkout.resolve(), args.branch or None, stack=args.stack or None))
    except (ApplyError, FragmentError, GitError) as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()

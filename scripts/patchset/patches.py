"""`make patches`: export the sources as one `git format-patch` series per stack against the base tree.

Each stack of topics.toml gets its own folder, patches/<stack>/ (its patches and `series`), made from a fresh clone
of the base with only that stack's topics: it applies to the pin without the other stacks, and carries none of
their fragments even where both edit the same file.

The series is drift-checked, so it is made with a fixed author and date (scripts.gitutil.FIXED_IDENTITY)
and its Test Plans carry commands without counts; `make apply` and `make pr` commit under the user's
own git identity and add the counts.

The base holds every file a fragment edits (the wheel's files, and fixtures of the recorded upstream context of
the ones it lacks), so every fragment is exported: `git am patches/*.patch` on a v2.14.1 checkout gives the whole
stack. No hunk may carry a fixture's gap line (fragments.FIXTURE_GAP): its context would not be upstream text.

`--check` regenerates into a scratch folder and fails when any file under `patches/` differs, is missing or is extra.
"""

from __future__ import annotations

import argparse
import filecmp
import shutil
import sys
import tempfile
from pathlib import Path

from scripts.gitutil import FIXED_IDENTITY, commit_all, git
from scripts.layout import REPO_ROOT
from scripts.patchset.base import BASE_DIR, build_base
from scripts.patchset.fragments import FIXTURE_GAP, FragmentError, Sources, load_sources
from scripts.patchset.testplan import commit_message
from scripts.patchset.topic_plan import plan_topic, write_plan

PATCHES_DIR = REPO_ROOT / "patches"
SERIES_NAME = "series"


def commit_topics(work_tree: Path, sources: Sources) -> None:
    """Commit each topic on `work_tree`; every target must be there (the base has fixtures for the wheel's gaps)."""
    for topic in sources.topics:
        plan = plan_topic(work_tree, sources, topic.id, missing_ok=False)
        if plan.is_empty:
            continue
        write_plan(work_tree, plan)
        commit_all(work_tree, sorted(plan.writes), commit_message(topic, sources=sources), env=FIXED_IDENTITY)


def check_no_gap_in_context(output: Path) -> None:
    """A hunk whose context reaches a fixture's gap line would not apply upstream: record more context."""
    for patch in sorted(output.glob("*.patch")):
        text = patch.read_text(errors="replace")
        if FIXTURE_GAP in text:
            file = ""
            for line in text[: text.index(FIXTURE_GAP)].splitlines():
                if line.startswith("diff --git a/"):
                    file = line.split()[2][2:]
            raise FragmentError(
                f"{patch.name}: a hunk of {file} reaches past the upstream context its fragments record (git chose a "
                "different place for the change or merged two hunks): record more lines in context_before/context_after"
            )


def stack_dir(stack: str, root: Path = PATCHES_DIR) -> Path:
    return root / stack


def export_stacks(output: Path, base: Path = BASE_DIR, sources: Sources | None = None) -> None:
    """Every stack's series into output/<stack>/, each made on the base alone."""
    sources = sources or load_sources()
    for stack in sources.stacks:
        export_series(stack_dir(stack, output), base, sources.of_stack(stack))


def export_series(output: Path, base: Path = BASE_DIR, sources: Sources | None = None) -> None:
    """One series of `sources`' topics (pass a stack's: Sources.of_stack), committed on a clone of the base."""
    sources = sources or load_sources().of_stack()
    # Scratch space beside the base: a local clone then hard-links its objects instead of copying them.
    with tempfile.TemporaryDirectory(prefix="series-", dir=base.parent) as scratch:
        work_tree = Path(scratch) / "tree"
        git(Path(scratch), "clone", "-q", "--local", str(base), str(work_tree))
        commit_topics(work_tree, sources)
        output.mkdir(parents=True, exist_ok=True)
        git(
            work_tree, "format-patch", "-q", "--no-signature", "--zero-commit", "--no-stat",
            "-o", str(output), "origin/main..HEAD",
        )
    check_no_gap_in_context(output)
    names = sorted(p.name for p in output.glob("*.patch"))
    (output / SERIES_NAME).write_text("".join(f"{name}\n" for name in names))


def _files_under(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()} if folder.is_dir() else set()


def differences(expected: Path, actual: Path) -> list[str]:
    """The paths (relative, through the stack folders) that only one tree has, or whose content differs (compared
    byte for byte, never by size and date): a patch left at the top level or in a removed stack's folder counts."""
    expected_names, actual_names = _files_under(expected), _files_under(actual)
    common = sorted(expected_names & actual_names)
    changed = filecmp.cmpfiles(expected, actual, common, shallow=False)[1:]
    return sorted((expected_names ^ actual_names) | {name for names in changed for name in names})


def regenerate(check_only: bool) -> int:
    build_base()
    with tempfile.TemporaryDirectory(prefix="patches-") as scratch:
        fresh = Path(scratch) / "patches"
        export_stacks(fresh)
        drift = differences(fresh, PATCHES_DIR) if PATCHES_DIR.is_dir() else ["patches/ is missing"]
        if check_only:
            if drift:
                print(f"patches/ is stale ({', '.join(drift)}): run `make patches` and commit", file=sys.stderr)
                return 1
            print("patches/ matches its sources")
            return 0
        staging = PATCHES_DIR.with_name("patches.new")
        shutil.rmtree(staging, ignore_errors=True)
        shutil.copytree(fresh, staging)
    shutil.rmtree(PATCHES_DIR, ignore_errors=True)
    staging.rename(PATCHES_DIR)
    written = ", ".join(f"{d.name}: {len(list(d.glob('*.patch')))}" for d in sorted(PATCHES_DIR.iterdir()) if d.is_dir())
    print(f"patches: {written} patches written, {'changed: ' + ', '.join(drift) if drift else 'no change'}")
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail if patches/ differs from its sources")
    sys.exit(regenerate(parser.parse_args().check))


if __name__ == "__main__":
    main()

"""`make patches`: export the sources as a `git format-patch` series against the base tree.

The series is drift-checked, so it is made with a fixed author and date (scripts.gitutil.FIXED_IDENTITY)
and its Test Plans carry commands without counts; `make apply` and `make pr` commit under the user's
own git identity and add the counts.

`--check` regenerates into a scratch folder and fails when `patches/` differs.
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
from scripts.patchset.fragments import Sources, load_sources
from scripts.patchset.testplan import commit_message
from scripts.patchset.topic_plan import plan_topic, write_plan

PATCHES_DIR = REPO_ROOT / "patches"
SERIES_NAME = "series"
ABSENT_NAME = "not-in-base.txt"


def commit_topics(work_tree: Path, sources: Sources) -> dict[str, list[str]]:
    """Commit each topic on `work_tree`; returns, per topic, the targets the base lacks."""
    absent: dict[str, list[str]] = {}
    for topic in sources.topics:
        plan = plan_topic(work_tree, sources, topic.id, missing_ok=True)
        absent[topic.id] = plan.absent_targets
        if plan.is_empty:
            continue
        write_plan(work_tree, plan)
        commit_all(work_tree, sorted(plan.writes), commit_message(topic), env=FIXED_IDENTITY)
    return absent


def absent_note(absent: dict[str, list[str]]) -> str:
    lines = [
        "# This series is drift-checked, so its commits carry a fixed author and date; `make apply` and",
        "# `make pr PYTORCH_SRC=<checkout>` commit under your own git identity.",
        "# Fragments whose target file the torch wheel does not ship, so the base tree lacks it.",
        "# They are not in this series; `make pr PYTORCH_SRC=<checkout>` makes the complete series.",
    ]
    lines += [f"{topic}: {path}" for topic, paths in absent.items() for path in paths]
    return "\n".join(lines) + "\n"


def export_series(output: Path, base: Path = BASE_DIR, sources: Sources | None = None) -> None:
    sources = sources or load_sources()
    # Scratch space beside the base: a local clone then hard-links its objects instead of copying them.
    with tempfile.TemporaryDirectory(prefix="cbrt-series-", dir=base.parent) as scratch:
        work_tree = Path(scratch) / "tree"
        git(Path(scratch), "clone", "-q", "--local", str(base), str(work_tree))
        absent = commit_topics(work_tree, sources)
        output.mkdir(parents=True, exist_ok=True)
        git(
            work_tree, "format-patch", "-q", "--no-signature", "--zero-commit", "--no-stat",
            "-o", str(output), "origin/main..HEAD",
        )
    names = sorted(p.name for p in output.glob("*.patch"))
    (output / SERIES_NAME).write_text("".join(f"{name}\n" for name in names))
    (output / ABSENT_NAME).write_text(absent_note(absent))


def differences(expected: Path, actual: Path) -> list[str]:
    """The file names that only one folder has, or whose content differs (compared byte for byte, never by size
    and date)."""
    expected_names = {p.name for p in expected.iterdir() if p.is_file()}
    actual_names = {p.name for p in actual.iterdir() if p.is_file()}
    common = sorted(expected_names & actual_names)
    changed = filecmp.cmpfiles(expected, actual, common, shallow=False)[1:]
    return sorted((expected_names ^ actual_names) | {name for names in changed for name in names})


def regenerate(check_only: bool) -> int:
    build_base()
    with tempfile.TemporaryDirectory(prefix="cbrt-patches-") as scratch:
        fresh = Path(scratch) / "patches"
        export_series(fresh)
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
    print(f"patches: {len(list(PATCHES_DIR.glob('*.patch')))} patches written, {'changed: ' + ', '.join(drift) if drift else 'no change'}")
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail if patches/ differs from its sources")
    sys.exit(regenerate(parser.parse_args().check))


if __name__ == "__main__":
    main()

"""The lines a series adds to PyTorch's Python files, under upstream's own ruff rules (upstream_ruff.toml).

Runs on a tree where the series is applied (a clone of the base, `git am`): ruff checks every Python file the
series changes with those rules, and a finding counts where it sits on a line the series adds; upstream's own
lines are upstream's business.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from scripts.gitutil import git

CONFIG = Path(__file__).with_name("upstream_ruff.toml")
HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


def added_python_lines(tree: Path, base_ref: str, skip: frozenset[str] = frozenset()) -> dict[str, set[int]]:
    """Per Python file the commits since base_ref change (but those in `skip`), the numbers of the lines they
    add."""
    added: dict[str, set[int]] = {}
    for path in git(tree, "diff", "--name-only", "--diff-filter=AM", base_ref, "HEAD", "--", "*.py").split():
        if path in skip:
            continue
        diff = git(tree, "diff", "-U0", base_ref, "HEAD", "--", path)
        added[path] = {line for start, count in HUNK.findall(diff)
                       for line in range(int(start), int(start) + (int(count) if count else 1))}
    return added


def whole_files_excluded() -> frozenset[str]:
    """The base's fixtures: the files the wheel lacks, holding only recorded context (pytorch.lock)."""
    from scripts.patchset.pin import load_pin

    return frozenset(load_pin().fixture_sha256)


def ruff_executable() -> str:
    beside = Path(sys.executable).with_name("ruff")
    found = str(beside) if beside.is_file() else shutil.which("ruff")
    if found is None:
        raise FileNotFoundError("ruff is not installed: `make venv` installs it (requirements.txt)")
    return found


def findings(tree: Path, base_ref: str) -> list[str]:
    """`path:line: CODE message` for every finding of upstream's ruff rules on a line the series adds, in the
    files the wheel ships: on the base, a file the wheel lacks (test/test_unary_ufuncs.py) is a fixture of the
    context the fragments record, not a whole file ruff could parse."""
    added = added_python_lines(tree, base_ref, whole_files_excluded())
    if not added:
        return []
    ran = subprocess.run([ruff_executable(), "check", "--config", str(CONFIG), "--no-cache", "--output-format",
                          "json", "--exit-zero", *sorted(added)], cwd=tree, capture_output=True, text=True,
                         check=True)
    found = []
    for finding in json.loads(ran.stdout):
        path = str(Path(finding["filename"]).resolve().relative_to(tree.resolve()))
        line = finding["location"]["row"]
        if line in added.get(path, set()):
            found.append(f"{path}:{line}: {finding['code']} {finding['message']}")
    return found

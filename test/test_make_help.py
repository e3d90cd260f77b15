"""`make help`: each target of the Makefile with the one line above it, so the list and the Makefile agree."""

from __future__ import annotations

import subprocess

from scripts.help import phony, targets
from scripts.layout import REPO_ROOT

MAKEFILE = REPO_ROOT / "Makefile"


def test_every_phony_target_has_its_help_line() -> None:
    text = MAKEFILE.read_text()
    described = dict(targets(text))
    assert phony(text), "the Makefile declares no .PHONY targets"
    assert [name for name in phony(text) if not described.get(name)] == []


def test_make_help_lists_every_target_with_its_line() -> None:
    shown = subprocess.run(["make", "-s", "help"], cwd=REPO_ROOT, capture_output=True, text=True, check=True).stdout
    text = MAKEFILE.read_text()
    for name, line in targets(text):
        if name in phony(text):
            assert f"  {name} " in shown and line in shown, name


def test_a_target_without_a_help_line_is_shown_as_such() -> None:
    # Planted: a target whose comment above is an ordinary one.
    listed = dict(targets(".PHONY: one two\n## runs one\none:\n\techo 1\n# not a help line\ntwo:\n\techo 2\n"))
    assert listed == {"one": "runs one", "two": ""}

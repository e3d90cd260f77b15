"""`make help`: every target of the Makefile with the one line of what it does: the `## ` comment right above the
target, so that the list and the Makefile cannot drift apart."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from scripts.layout import REPO_ROOT

TARGET = re.compile(r"^([A-Za-z][\w-]*)\s*:(?!=)")
HELP = "## "


def targets(makefile: str) -> list[tuple[str, str]]:
    """(target, its `## ` line) for every target of the Makefile, in order; "" for a target without one. Targets
    of files ($(VENV)/...) and pattern rules are not commands, and not listed."""
    found: list[tuple[str, str]] = []
    previous = ""
    for line in makefile.splitlines():
        match = TARGET.match(line)
        if match and match.group(1) not in {name for name, _ in found} and match.group(1) != ".PHONY":
            found.append((match.group(1), previous.removeprefix(HELP).strip() if previous.startswith(HELP) else ""))
        previous = line
    return found


def phony(makefile: str) -> list[str]:
    """The targets .PHONY declares (its continuation lines included)."""
    declared = re.search(r"^\.PHONY:((?:.*\\\n)*.*)$", makefile, re.MULTILINE)
    return declared.group(1).replace("\\\n", " ").split() if declared else []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("makefile", type=Path, nargs="?", default=REPO_ROOT / "Makefile")
    text = parser.parse_args().makefile.read_text()
    listed = [(name, line) for name, line in targets(text) if name in phony(text)]
    width = max(len(name) for name, _ in listed)
    print("make <target>   (Makefile; variables such as STACK= are named in the line)")
    for name, line in listed:
        print(f"  {name:<{width}}  {line or '(no ## line above it in the Makefile)'}")


if __name__ == "__main__":
    main()

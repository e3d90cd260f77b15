"""`make lint`: ruff on our Python, clang-format (PyTorch's style) on the upstream C++/CUDA."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from scripts.layout import REPO_ROOT, SOURCE_FOLDERS

CPP_SUFFIXES = (".cpp", ".cu", ".h", ".cuh")
PYTHON_PATHS = ("scripts", "test")


def cpp_sources() -> list[Path]:
    found = (p for folder in SOURCE_FOLDERS for p in (REPO_ROOT / folder).rglob("*") if p.suffix in CPP_SUFFIXES)
    return sorted(found)


def tool(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def lint_commands(fix: bool) -> list[list[str]]:
    ruff = tool("ruff")
    commands = [[ruff, "check", *(["--fix"] if fix else []), *PYTHON_PATHS]]
    cpp = [str(p) for p in cpp_sources()]
    if cpp:
        clang_format = [tool("clang-format"), "--style=file"]
        commands.append([*clang_format, "-i", *cpp] if fix else [*clang_format, "--dry-run", "-Werror", *cpp])
    return commands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fix", action="store_true", help="rewrite files instead of reporting")
    fix = parser.parse_args().fix
    failed = [c for c in lint_commands(fix) if subprocess.run(c, cwd=REPO_ROOT).returncode != 0]
    if failed:
        print("lint failed: run `make format` to fix formatting, then fix what ruff still reports", file=sys.stderr)
        sys.exit(1)
    print("lint: clean")


if __name__ == "__main__":
    main()

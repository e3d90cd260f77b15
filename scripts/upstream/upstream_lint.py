"""The lines a series adds to PyTorch's Python files, under upstream's own Python lint: its ruff rules
(upstream_ruff.toml), its flake8 (upstream_flake8.cfg) and, on the files its formatter covers, `ruff format`.

Runs on a tree where the series is applied (a clone of the base, `git am`): each tool checks every Python file the
series changes, and a finding counts where it sits on a line the series adds (for the formatter: where a change it
would make touches one); upstream's own lines are upstream's business. The tools are PyTorch's versions
(upstream_lint_requirements.txt), installed apart from this repo's own ruff by `make upstream-lint-tools`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from scripts.gitutil import git

CONFIG = Path(__file__).with_name("upstream_ruff.toml")
FLAKE8_CONFIG = Path(__file__).with_name("upstream_flake8.cfg")
TOOLS = Path(__file__).resolve().parents[2] / ".venv" / "upstream-lint"  # `make upstream-lint-tools`
HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)
FORMAT_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", re.MULTILINE)
FLAKE8_LINE = re.compile(r"^(?P<path>[^:]+):(?P<row>\d+):\d+: (?P<code>\w+) (?P<message>.*)$")

# The Python files the series touch, as upstream's formatter (.lintrunner.toml's PYFMT: usort, then ruff format)
# takes them: every Python file but its exclude_patterns, of which these two are files the series touch (the stored
# copies of .lintrunner.toml that have PYFMT, and those that have its predecessor UFMT, all exclude both). A file
# the series start touching must be entered here, in one set or the other.
NOT_FORMATTED = frozenset({"test/test_unary_ufuncs.py", "torch/testing/_internal/common_methods_invocations.py"})
FORMATTED = frozenset({
    "test/distributed/tensor/test_dtensor_ops.py", "test/inductor/test_cpu_repro.py", "test/test_ops.py",
    "test/torch_np/test_interp.py", "test/torch_np/test_ufuncs_basic.py", "tools/autograd/gen_variable_type.py",
    "torch/_dynamo/trace_rules.py", "torch/_dynamo/variables/tensor.py", "torch/_inductor/codegen/common.py",
    "torch/_inductor/codegen/cpp.py", "torch/_inductor/lowering.py", "torch/_inductor/ops_handler.py",
    "torch/_meta_registrations.py", "torch/_numpy/_binary_ufuncs_impl.py", "torch/_numpy/_funcs_impl.py",
    "torch/_numpy/_reductions_impl.py", "torch/_numpy/_unary_ufuncs_impl.py", "torch/_prims/__init__.py",
    "torch/_refs/__init__.py", "torch/_tensor.py", "torch/_tensor_docs.py", "torch/_torch_docs.py",
    "torch/distributed/tensor/_ops/_math_ops.py", "torch/distributed/tensor/_ops/_tensor_ops.py",
    "torch/overrides.py", "torch/testing/_internal/common_mps.py",
})


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


def upstream_ruff() -> str:
    ruff = TOOLS / "bin" / "ruff"
    if not ruff.is_file():
        raise FileNotFoundError(f"upstream's ruff is not installed in {TOOLS}: run `make upstream-lint-tools`")
    return str(ruff)


def ruff_findings(tree: Path, added: dict[str, set[int]]) -> list[str]:
    ran = subprocess.run([upstream_ruff(), "check", "--config", str(CONFIG), "--no-cache", "--output-format",
                          "json", "--exit-zero", *sorted(added)], cwd=tree, capture_output=True, text=True,
                         check=True)
    found = []
    for finding in json.loads(ran.stdout):
        path = str(Path(finding["filename"]).resolve().relative_to(tree.resolve()))
        line = finding["location"]["row"]
        if line in added.get(path, set()):
            found.append(f"{path}:{line}: {finding['code']} {finding['message']}")
    return found


def flake8_findings(tree: Path, added: dict[str, set[int]]) -> list[str]:
    if not (TOOLS / "flake8").is_dir():
        raise FileNotFoundError(f"upstream's flake8 is not installed in {TOOLS}: run `make upstream-lint-tools`")
    ran = subprocess.run([sys.executable, "-m", "flake8", "--config", str(FLAKE8_CONFIG), "--exit-zero",
                          *sorted(added)], cwd=tree, capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(TOOLS)})
    found = []
    for line in ran.stdout.splitlines():
        match = FLAKE8_LINE.match(line)
        if match and int(match["row"]) in added.get(match["path"].removeprefix("./"), set()):
            found.append(f"{match['path'].removeprefix('./')}:{match['row']}: {match['code']} {match['message']}")
    return found


def format_findings(tree: Path, added: dict[str, set[int]]) -> list[str]:
    """Where `ruff format` (upstream's settings and version) would change a line the series adds, in the files
    upstream formats; a touched file of neither set is itself a finding, until it is entered."""
    found = []
    for path in sorted(added):
        if path in NOT_FORMATTED:
            continue
        if path not in FORMATTED:
            found.append(f"{path}:1: PYFMT unknown: enter it in upstream_lint.py's FORMATTED or NOT_FORMATTED, as "
                         "upstream's .lintrunner.toml PYFMT exclude_patterns have it")
            continue
        diff = subprocess.run([upstream_ruff(), "format", "--diff", "--config", str(CONFIG), "--no-cache", path],
                              cwd=tree, capture_output=True, text=True).stdout
        for start, count in FORMAT_HUNK.findall(diff):
            lines = set(range(int(start), int(start) + (int(count) if count else 1)))
            if lines & added[path]:
                first = min(lines & added[path])
                found.append(f"{path}:{first}: PYFMT ruff format would rewrite lines {min(lines)}-{max(lines)}")
    return found


def findings(tree: Path, base_ref: str) -> list[str]:
    """`path:line: CODE message` for every finding of upstream's ruff rules, flake8 and formatter on a line the
    series adds, in the files the wheel ships or the series adds: on the base, a file the wheel lacks
    (test/test_unary_ufuncs.py) is a fixture of the context the fragments record, not a whole file the tools could
    parse."""
    added = added_python_lines(tree, base_ref, whole_files_excluded())
    if not added:
        return []
    return [*ruff_findings(tree, added), *flake8_findings(tree, added), *format_findings(tree, added)]

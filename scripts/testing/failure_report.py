"""Why a step of `.ci/run` failed, in a few lines: the failing tests or GPU-check stages and the first line of each
error (the exception's type and message), read from what the step wrote (JUnit XML, the GPU check's summary and
stage logs) and, where it wrote none, from its own log. CI shows the last lines of a run: these are printed last.

    python3 -m scripts.testing.failure_report --step 'make test' --exit 2 --log build/ci/make-test.log \
        --since 1700000000 [--junit FILE ...] [--gpu-summary FILE ...]

Reports only files written since the step began (--since, seconds since the epoch): an earlier run's results are not
this failure. Standard library only: it runs with the system python, before or without a venv.
"""

from __future__ import annotations

import argparse
import re
import sys
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

PREFIX = "ci:"
MOST_CASES = 5  # failing tests named one by one; the rest are counted
WIDTH = 300  # an error line is cut here: CI logs are read by people
# A Python exception as a traceback ends with it: `pkg.mod.SomeError: message` (or the bare name).
EXCEPTION_LINE = re.compile(r"^(?:E\s+)?((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Failed|Interrupt))(?::\s.*)?$")
# Lines that point elsewhere instead of saying what went wrong: skipped when looking for the error.
HINTS = re.compile(r"^(Set TORCH|You can suppress|To execute this test|For more information|This message can be)")
# Compiler, linker, make and our tools' own error lines.
TOOL_ERROR = re.compile(r"(^|\s)(error|fatal error|FAILED|Error \d+)(:|\s)")


@dataclass(frozen=True)
class Failure:
    what: str  # the test id or stage
    error: str  # the first line of its error


def first_error_line(message: str) -> str:
    """The line that says what went wrong: the first non-blank line that is not a hint, and past a wrapper's
    'raised:' line (dynamo's BackendCompilerFailed names the backend, then the inner exception on the next line)."""
    lines = [line.strip() for line in message.splitlines() if line.strip() and not HINTS.match(line.strip())]
    for index, line in enumerate(lines):
        if line.endswith("raised:") and index + 1 < len(lines):
            continue
        return line[:WIDTH]
    return ""


def error_in_log(text: str) -> str:
    """The last exception a log shows (its innermost cause where a wrapper names one), else its last tool error
    line, else its last non-blank line."""
    lines = text.splitlines()
    for index in range(len(lines) - 1, -1, -1):
        if EXCEPTION_LINE.match(lines[index].strip()):
            return first_error_line("\n".join(line.removeprefix("E   ") for line in lines[index:index + 3]))
    tool_errors = [line.strip() for line in lines if TOOL_ERROR.search(line)]
    if tool_errors:
        return tool_errors[-1][:WIDTH]
    return next((line.strip()[:WIDTH] for line in reversed(lines) if line.strip()), "")


def junit_failures(path: Path) -> list[Failure]:
    failures = []
    for case in ElementTree.parse(path).iter("testcase"):
        for outcome in ("failure", "error"):
            element = case.find(outcome)
            if element is None:
                continue
            name = case.get("classname", "").replace(".", "/") + ".py::" + case.get("name", "")
            message = first_error_line(element.get("message") or element.text or "")
            # pytest's message for a plain assert is the assertion alone; its text ends "path:line: ErrorType"
            kind = re.search(r":\s*([A-Za-z_][\w.]*)$", (element.text or "").strip())
            if kind and not EXCEPTION_LINE.match(message):
                message = f"{kind.group(1)}: {message}"
            failures.append(Failure(name if case.get("classname") else case.get("name", "?"), message[:WIDTH]))
    return failures


def gpu_stage_failures(summary: Path) -> list[Failure]:
    """The failed stages a GPU check summary lists, each with the first error line of its stage log."""
    failures = []
    for line in summary.read_text(errors="replace").splitlines():
        found = re.match(r"gpu_check: (\S+) FAILED", line)
        if not found:
            continue
        stage = found.group(1)
        log = summary.parent / f"{stage}.log"
        error = error_in_log(log.read_text(errors="replace")) if log.is_file() else line
        failures.append(Failure(f"stage {stage} of {summary.parent} (log: {log})", error))
    return failures


def fresh(paths: list[Path], since: float) -> list[Path]:
    return [path for path in paths if path.is_file() and path.stat().st_mtime >= since]


def report(step: str, exit_code: int, log: Path, since: float, junit: list[Path], gpu_summaries: list[Path]) -> list[str]:
    failures: list[Failure] = []
    for path in fresh(junit, since):
        try:
            failures += junit_failures(path)
        except ElementTree.ParseError as error:
            failures.append(Failure(str(path), f"unreadable JUnit XML: {error}"))
    for path in fresh(gpu_summaries, since):
        failures += gpu_stage_failures(path)
    lines = [f"{PREFIX} FAILED: step '{step}' (exit {exit_code}); its whole log: {log}"]
    for failure in failures[:MOST_CASES]:
        lines += [f"{PREFIX}   failed: {failure.what}", f"{PREFIX}     {failure.error}"]
    if len(failures) > MOST_CASES:
        lines.append(f"{PREFIX}   and {len(failures) - MOST_CASES} more failing tests or stages")
    if not failures:  # it stopped before any test ran (lint, the build, a missing tool): its log says why
        error = error_in_log(log.read_text(errors="replace")) if log.is_file() else f"no log at {log}"
        lines.append(f"{PREFIX}   no test or stage reported a failure; the log's error: {error}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--step", required=True, help="the step as .ci/run names it")
    parser.add_argument("--exit", type=int, required=True, dest="exit_code", help="the step's exit status")
    parser.add_argument("--log", type=Path, required=True, help="the step's whole output")
    parser.add_argument("--since", type=float, default=0.0, help="when the step began (seconds since the epoch)")
    parser.add_argument("--junit", type=Path, nargs="*", default=[], help="JUnit XML files the step may write")
    parser.add_argument("--gpu-summary", type=Path, nargs="*", default=[], help="GPU check summaries it may write")
    args = parser.parse_args(argv)
    print("\n".join(report(args.step, args.exit_code, args.log, args.since, args.junit, args.gpu_summary)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Passed/failed/errors/skipped per suite, read from JUnit XML files (pytest's or unittest-xml-reporting's).

`python -m scripts.upstream.junit_summary DIR` prints one row per `*.xml` in DIR and exits 1
when any suite has a failure, an error, an unreadable file or no test at all.
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from pathlib import Path

MAX_LISTED_PROBLEMS = 20
PYTEST_DEFAULT_SUITE_NAME = "pytest"


@dataclass
class SuiteResult:
    name: str
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)  # ids of failed or errored tests
    unreadable: str | None = None  # why the file could not be parsed

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.errors + self.skipped

    @property
    def ok(self) -> bool:
        return self.unreadable is None and self.failed == 0 and self.errors == 0 and self.total > 0

    @property
    def verdict(self) -> str:
        if self.unreadable is not None:
            return "unreadable"
        if self.total == 0:
            return "no tests selected"
        return "ok" if self.ok else "FAILED"


def outcome_of(testcase: ElementTree.Element) -> str:
    """One outcome per testcase; an error outranks a failure (pytest reports teardown errors that way)."""
    children = {child.tag for child in testcase}
    for outcome in ("error", "failure", "skipped"):
        if outcome in children:
            return outcome
    return "passed"


def suite_name_of(root: ElementTree.Element, path: Path) -> str:
    """The suite name the lane stored with `-o junit_suite_name=`, else the file name."""
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    names = {s.get("name", "") for s in suites} - {"", PYTEST_DEFAULT_SUITE_NAME}
    return names.pop() if len(names) == 1 else path.stem


def test_id(testcase: ElementTree.Element) -> str:
    classname = testcase.get("classname", "")
    name = testcase.get("name", "?")
    return f"{classname}::{name}" if classname else name


def summarize_file(path: Path) -> SuiteResult:
    try:
        root = ElementTree.parse(path).getroot()
    except (ElementTree.ParseError, OSError) as error:
        return SuiteResult(path.stem, unreadable=str(error))
    result = SuiteResult(suite_name_of(root, path))
    for testcase in root.iter("testcase"):
        outcome = outcome_of(testcase)
        result.seconds += float(testcase.get("time", "0") or 0)
        if outcome == "passed":
            result.passed += 1
        elif outcome == "skipped":
            result.skipped += 1
        else:
            if outcome == "error":
                result.errors += 1
            else:
                result.failed += 1
            result.problems.append(test_id(testcase))
    return result


def summarize_dir(directory: Path) -> list[SuiteResult]:
    return [summarize_file(path) for path in sorted(directory.glob("*.xml"))] if directory.is_dir() else []


def markdown_table(results: list[SuiteResult]) -> str:
    rows = ["| suite | passed | failed | errors | skipped | time (s) | verdict |", "|---|---|---|---|---|---|---|"]
    for r in results:
        rows.append(
            f"| `{r.name}` | {r.passed} | {r.failed} | {r.errors} | {r.skipped} | {r.seconds:.1f} | {r.verdict} |"
        )
    return "\n".join(rows) + "\n"


def problem_lines(results: list[SuiteResult]) -> list[str]:
    lines: list[str] = []
    for r in results:
        if r.unreadable is not None:
            lines.append(f"{r.name}: unreadable JUnit XML ({r.unreadable})")
        shown = r.problems[:MAX_LISTED_PROBLEMS]
        lines += [f"{r.name}: {problem}" for problem in shown]
        if len(r.problems) > len(shown):
            lines.append(f"{r.name}: ... and {len(r.problems) - len(shown)} more")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("directory", type=Path, help="folder of JUnit XML files")
    directory = parser.parse_args().directory
    results = summarize_dir(directory)
    if not results:
        print(f"junit summary: no JUnit XML files in {directory}", file=sys.stderr)
        sys.exit(1)
    print(markdown_table(results), end="")
    problems = problem_lines(results)
    if problems:
        print("\nfailed or errored:\n  " + "\n  ".join(problems))
    sys.exit(0 if all(r.ok for r in results) else 1)


if __name__ == "__main__":
    main()

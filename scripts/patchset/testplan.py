"""Commit messages with their Test Plan: the upstream suites a commit's content triggers, the command
that runs each, and the counts from the JUnit XML that run wrote (never typed in)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from scripts.layout import REPO_ROOT
from scripts.patchset.fragments import FragmentError, Topic
from scripts.upstream.junit_summary import SuiteResult, summarize_dir, summarize_file
from scripts.upstream.suites import NATIVE_TESTS, RESULTS_DIR, SUITES, NativeTest, Suite

NOT_RUN = "not run yet"
SUITES_BY_PATH = {suite.path: suite for suite in SUITES}
NATIVE_TESTS_BY_NAME = {test.name: test for test in NATIVE_TESTS}
OVERLAY_SUITE = "make test"
OVERLAY_RESULTS = REPO_ROOT / "build" / "test-results" / "overlay.xml"  # written by `make test`


def suites_of(topic: Topic) -> list[Suite | NativeTest]:
    known = {**SUITES_BY_PATH, **NATIVE_TESTS_BY_NAME}
    unknown = [path for path in topic.tests if path not in known]
    if unknown:
        raise FragmentError(
            f"topics.toml: topic {topic.id!r} lists tests {unknown}; use suites of scripts/upstream/suites.py"
        )
    return [known[path] for path in topic.tests]


def suite_command(suite: Suite) -> str:
    keyword = suite.keyword if suite.keyword.isidentifier() else f"'{suite.keyword}'"
    return f"python test/{suite.path} -k {keyword}"


def commands_of(suite: Suite | NativeTest) -> list[tuple[str, str]]:
    """(command, the name its results are filed under) for each command that runs `suite`."""
    if isinstance(suite, NativeTest):
        return [(command, suite.name) for command in suite.commands()]
    return [(suite_command(suite), suite.path)]


def counts(result: SuiteResult | None) -> str:
    if result is None:
        return NOT_RUN
    return (
        f"{result.verdict}: {result.passed} passed, {result.failed} failed, "
        f"{result.errors} errors, {result.skipped} skipped"
    )


def test_plan(topic: Topic, results: Mapping[str, SuiteResult] | None) -> list[str]:
    """The commands of the topic's upstream tests; with `results`, each with its counts."""
    lines = ["Test Plan:", ""]
    for suite in suites_of(topic):
        for command, name in commands_of(suite):
            lines.append(command)
            if results is not None:
                lines.append(f"  {counts(results.get(name))}")
    return lines


def commit_message(topic: Topic, results: Mapping[str, SuiteResult] | None = None) -> str:
    plan = "\n".join(test_plan(topic, results))
    return f"{topic.subject}\n\n{topic.body.strip()}\n\n{plan}\n"


def load_results(results_dir: Path = RESULTS_DIR, overlay_xml: Path = OVERLAY_RESULTS) -> dict[str, SuiteResult]:
    """Upstream suites by path, and this repo's `make test` under OVERLAY_SUITE, from their JUnit XML."""
    results = {result.name: result for result in summarize_dir(results_dir)}
    if overlay_xml.is_file():
        results[OVERLAY_SUITE] = summarize_file(overlay_xml)
    return results

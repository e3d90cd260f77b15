"""Commit messages with their Test Plan: the upstream suites a commit's content triggers, the command
that runs each, and the counts from the JUnit XML that run wrote (never typed in)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from scripts.layout import REPO_ROOT
from scripts.patchset.fragments import FragmentError, Sources, Topic, load_sources
from scripts.upstream.junit_summary import SuiteResult, summarize_dir, summarize_file
from scripts.upstream.suites import (
    RESULTS_DIR,
    NativeTest,
    Suite,
    all_suites,
    native_tests,
    selecting_terms,
    stack_ops,
)

NOT_RUN = "not run yet"
OVERLAY_SUITE = "make test"
OVERLAY_RESULTS = REPO_ROOT / "build" / "test-results" / "overlay.xml"  # written by `make test`


def suites_of(topic: Topic, sources: Sources) -> list[Suite | NativeTest]:
    known = {**{suite.path: suite for suite in all_suites(sources)}, **{test.name: test for test in native_tests(sources)}}
    unknown = [path for path in topic.tests if path not in known]
    if unknown:
        raise FragmentError(
            f"topics.toml: topic {topic.id!r} lists tests {unknown}; use suites of scripts/upstream/suites.py"
        )
    return [known[path] for path in topic.tests]


def suite_command(suite: Suite, ops: tuple[str, ...]) -> str:
    return f"python test/{suite.path} {suite.unittest_arguments(ops)}"


def commands_of(suite: Suite | NativeTest, ops: tuple[str, ...]) -> list[tuple[str, str]]:
    """(command, the name its results are filed under) for each command that runs `suite` on the operators `ops`."""
    if isinstance(suite, NativeTest):
        return [(command, suite.name) for command in suite.commands()]
    return [(suite_command(suite, ops), suite.path)]


def counts(result: SuiteResult | None) -> str:
    if result is None:
        return NOT_RUN
    return (
        f"{result.verdict}: {result.passed} passed, {result.failed} failed, "
        f"{result.errors} errors, {result.skipped} skipped"
    )


def test_plan(topic: Topic, results: Mapping[str, SuiteResult] | None, sources: Sources | None = None) -> list[str]:
    """The commands of the topic's upstream tests, filtered to the operators of its stack; with `results`, each
    with its counts."""
    sources = load_sources() if sources is None else sources
    ops = stack_ops(sources, topic.id)
    lines = ["Test Plan:", ""]
    for suite in suites_of(topic, sources):
        for command, name in commands_of(suite, ops):
            lines.append(command)
            if results is not None:
                lines.append(f"  {counts(results.get(name))}")
    return lines


def commit_message(
    topic: Topic, results: Mapping[str, SuiteResult] | None = None, sources: Sources | None = None
) -> str:
    plan = "\n".join(test_plan(topic, results, sources))
    return f"{topic.subject}\n\n{topic.body.strip()}\n\n{plan}\n"


def load_results(results_dir: Path = RESULTS_DIR, overlay_xml: Path = OVERLAY_RESULTS) -> dict[str, SuiteResult]:
    """Upstream suites by path, and this repo's `make test` under OVERLAY_SUITE, from their JUnit XML."""
    results = {result.name: result for result in summarize_dir(results_dir)}
    if overlay_xml.is_file():
        results[OVERLAY_SUITE] = summarize_file(overlay_xml)
    return results


def added_by(sources: Sources, topic_id: str) -> dict[str, str]:
    """Per upstream path, the lines the topic's commit adds: a new file whole, or its fragments' text."""
    added = {f.upstream_path: f.source.read_text(errors="replace") for f in sources.new_files_of(topic_id)}
    for fragment_file, fragments in sources.fragments_of(topic_id):
        added[fragment_file.upstream_path] = "\n".join(line for f in fragments for line in f.text)
    return added


def plan_lines_selecting_nothing(sources: Sources, topic: Topic) -> list[str]:
    """The topic's Test Plan lines that select no test its own commit adds or touches.

    A suite's -k expression (any of its `or` terms, case-insensitive as pytest's -k) must occur in what the commit
    adds to one of the suite's sources; a native test's typed suites must be defined (`class <suite>` or
    `TYPED_TEST(<suite>, ...)`) by lines the commit adds to its source file.
    """
    added = added_by(sources, topic.id)
    ops = stack_ops(sources, topic.id)
    problems = []
    for suite in suites_of(topic, sources):
        if isinstance(suite, NativeTest):
            text = added.get(suite.source, "")
            for name in suite.suites:
                if f"class {name} " not in text and f"TYPED_TEST({name}," not in text:
                    problems.append(f"{topic.id}: {suite.name} filters on {name}, which this commit does not add to {suite.source}")
            continue
        keyword = suite.keyword(ops)
        terms = [term.lower() for term in selecting_terms([*ops, *suite.extra])]  # the names the terms are made of
        text = "\n".join(added.get(path, "") for path in suite.sources).lower()
        if not any(term in text for term in terms):
            problems.append(
                f"{topic.id}: test/{suite.path} -k {keyword!r} selects nothing this commit adds to "
                f"{' or '.join(suite.sources)}"
            )
    return problems


def plan_lines_not_selecting_their_operators_tests(sources: Sources, topic: Topic) -> list[str]:
    """The topic's Test Plan lines (upstream Python suites) that select no test of the operators of its stack, or
    a test of another operator: none of the tests the suite runs for them (scripts/upstream/test_names.py: the OpInfo tests of the collections
    it iterates, its override tests, the tests the stack's commits up to this one add to it) has a name holding one
    of the line's -k terms. A suite with tests of every public operator at once (its extra terms: test_doc) selects
    those. Imports torch: run in the overlay's venv.
    """
    from scripts.upstream.test_names import op_test_names, other_operators_test_names

    ids = [t.id for t in sources.topics if t.stack == topic.stack]
    added: dict[str, str] = {}
    for topic_id in ids[: ids.index(topic.id) + 1]:
        for path, text in added_by(sources, topic_id).items():
            added[path] = added.get(path, "") + "\n" + text
    ops = stack_ops(sources, topic.id)
    problems = []
    for suite in suites_of(topic, sources):
        if isinstance(suite, NativeTest) or suite.extra and not suite.opinfos:
            continue
        terms = [term.lower() for term in suite.terms(ops)]
        names = [name for op in ops for name in op_test_names(suite, op, added)]
        if not any(term in name.lower() for name in names for term in terms):
            problems.append(f"{topic.id}: test/{suite.path} -k {suite.keyword(ops)!r} selects none of the tests it "
                            f"runs for {', '.join(ops)} ({', '.join(names) or 'it runs none'})")
        others = [name for name in other_operators_test_names(suite, ops) if any(t in name.lower() for t in terms)]
        if others:
            problems.append(f"{topic.id}: test/{suite.path} -k {suite.keyword(ops)!r} also selects the tests of "
                            f"other operators: {', '.join(others[:5])}")
    return problems

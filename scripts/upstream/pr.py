"""`make pr [STACK=...] [PYTORCH_SRC=...]`: write build/pr/<stack>/PR.md from the repo, and put that stack's patch
series next to it. Each stack of topics.toml is its own PR (default: the first); its prose is pr.toml's
[stack.<name>], and nothing of another stack (topics, files, operators, test filters) appears in it.

Both ways the series is complete. With PYTORCH_SRC it is made on that checkout (the user's git identity,
Test Plan counts); without it, patches/ is copied: made on the base from the pinned wheel, where the files the
wheel lacks are fixtures of the upstream context their fragments record, so `git am` applies patches/<stack>/ to a
v2.14.1 checkout (test/test_patches.py proves it on the base and on files with the context at other offsets).

Every part comes from a file: topics and fragments (what changes, and today's code that
it replaces), the JUnit XML of `make pytorch` and `make test` (test results, or "not run yet"), and the
documents pr.toml names for the stack's own benchmarks and accuracy. Nothing is typed in by hand.
"""

from __future__ import annotations

import argparse
import functools
import re
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from scripts import tomlcompat as tomllib
from scripts.gitutil import GitError
from scripts.layout import REPO_ROOT
from scripts.patchset.fragments import Fragment, FragmentError, Sources, load_sources
from scripts.patchset.pin import Pin, load_pin
from scripts.patchset.testplan import load_results, test_plan
from scripts.upstream.apply_checkout import ApplyError, default_branch
from scripts.upstream.junit_summary import SuiteResult, summarize_dir, summarize_file
from scripts.upstream.series_from_checkout import ExportedSeries, export_from_checkout
from scripts.upstream.suites import results_dir_of, selecting_terms, stack_ops, suites_of_stack

OUTPUT_DIR = REPO_ROOT / "build" / "pr"
NOT_RUN = "not run yet"
NATIVE_FUNCTIONS = "aten/src/ATen/native/native_functions.yaml"
PRIMS = "torch/_prims/__init__.py"
OVERLAY_RESULTS = "build/test-results/overlay.xml"  # written by `make test`
REFS = "torch/_refs/__init__.py"


@dataclass(frozen=True)
class PrInputs:
    """Where the generator reads from and writes to; the tests point these at fixtures."""

    root: Path
    output: Path
    results: Path
    checkout: Path | None = None  # PYTORCH_SRC: make the complete series there
    fixes: str = ""  # the upstream issue this stack fixes: a number (issue_number() accepts an issue URL too)
    overlay_xml: Path | None = None  # make test's results; default: the root's OVERLAY_RESULTS
    stack: str | None = None  # STACK: which stack's PR (None: the first of topics.toml)

    def patches_of(self, stack: str) -> Path:
        """The stack's exported series (`make patches`)."""
        return self.root / "patches" / stack

    @property
    def overlay_results(self) -> Path:
        return self.overlay_xml or self.root / OVERLAY_RESULTS


ISSUE_URL = re.compile(r"^https?://github\.com/pytorch/pytorch/issues/(\d+)/?$")


class FixesError(ValueError):
    """FIXES= is neither an issue number nor a pytorch/pytorch issue URL."""


def issue_number(fixes: str) -> str:
    """The issue number of FIXES=: `123`, `#123` or `https://github.com/pytorch/pytorch/issues/123`; "" for none."""
    value = fixes.strip()
    if not value:
        return ""
    number = value.removeprefix("#") if value.removeprefix("#").isdigit() else None
    match = ISSUE_URL.match(value)
    number = number or (match.group(1) if match else None)
    if number is None or int(number) == 0:
        raise FixesError(
            f"FIXES={fixes!r} is not a pytorch/pytorch issue: pass its number (FIXES=123) or its URL "
            "(FIXES=https://github.com/pytorch/pytorch/issues/123)"
        )
    return str(int(number))


@dataclass(frozen=True)
class TouchedFile:
    path: str
    new: bool
    alternatives: tuple[str, ...] = ()

    def markdown(self) -> str:
        shown = f"`{self.path}`" + "".join(f" (or `{a}`)" for a in self.alternatives)
        return f"- {shown}: {'new' if self.new else 'edited'}"


def touched_files(sources: Sources, topic_id: str) -> list[TouchedFile]:
    files = [TouchedFile(f.upstream_path, new=True) for f in sources.new_files_of(topic_id)]
    for fragment_file, _ in sources.fragments_of(topic_id):
        files.append(TouchedFile(fragment_file.upstream_path, False, fragment_file.alternatives))
    return sorted(files, key=lambda f: f.path)


def all_touched_paths(sources: Sources) -> list[str]:
    return sorted({f.upstream_path for f in sources.new_files} | {ff.upstream_path for ff in sources.fragment_files})


def fragments_on(sources: Sources, path: str) -> list[Fragment]:
    return [f for ff in sources.fragment_files if ff.upstream_path == path for f in ff.fragments]


def code_today(sources: Sources, path: str, needle: str) -> list[str]:
    """Today's upstream lines that a fragment replaces or is anchored on, found by a needle in its anchor."""
    for fragment in fragments_on(sources, path):
        if any(needle in line for line in fragment.anchor):
            return list(fragment.anchor)
    return []


def code_block(lines: list[str], language: str = "python") -> list[str]:
    return [f"```{language}", *lines, "```"]


PR_TEXTS = REPO_ROOT / "pr.toml"


@dataclass(frozen=True)
class Figures:
    """Where the figures of a PR section are (pr.toml's `benchmarks`, `accuracy`): a document of this repo, the
    section of it to quote (a heading that starts so; none: the whole document below its title, its headings a
    level down), whether its preamble (what it was measured on) goes first, and the command that writes it."""

    doc: str
    made_by: str
    section: str = ""
    preamble: bool = False


@dataclass(frozen=True)
class PrTexts:
    """What the description says about one stack's operators (pr.toml's [stack.<name>]): the tools name none."""

    title: str
    motivation: str
    follow_ups: str
    coverage_questions: tuple[tuple[str, str], ...]  # (question, how the answer starts in a topic body)
    benchmarks: Figures | None = None  # each stack quotes its own operator's figures; none: no such section
    accuracy: Figures | None = None


@functools.cache
def texts(stack: str, path: Path = PR_TEXTS) -> PrTexts:
    stacks = tomllib.loads(path.read_text(encoding="utf-8")).get("stack", {})
    if stack not in stacks:
        raise FragmentError(f"{path} has no [stack.{stack}] table (it has: {', '.join(stacks) or 'none'}): "
                            "write the PR's title, motivation and follow_ups there")
    data = stacks[stack]
    try:
        questions = tuple((q["question"].strip(), q["answer_starts"]) for q in data.get("coverage_question", []))
        figures = {key: Figures(**data[key]) for key in ("benchmarks", "accuracy") if key in data}
        return PrTexts(data["title"], data["motivation"].strip(), data["follow_ups"].strip(), questions, **figures)
    except (KeyError, AttributeError, TypeError) as error:
        raise FragmentError(f"{path}: missing or malformed {error}") from error


def motivation(sources: Sources, pin: Pin, prose: PrTexts) -> list[str]:
    lines = [
        "## Motivation",
        "",
        prose.motivation.format(version=pin.version),
    ]
    prims_today = code_today(sources, PRIMS, "copysign")
    if prims_today:
        lines += ["", f"Today, in `{PRIMS}`:", "", *code_block(prims_today)]
    refs_today = code_today(sources, REFS, "No corresponding torch operation")
    if refs_today:
        lines += ["", f"Today, in `{REFS}`:", "", *code_block(refs_today)]
    return lines


COMPLETE_COMMAND = "make pr PYTORCH_SRC=~/pytorch"


def complete_command(stack: str) -> str:
    return f"{COMPLETE_COMMAND} STACK={stack}"


def commits_section(sources: Sources, patches: Path, exported: ExportedSeries | None) -> list[str]:
    lines = ["## Commits (one topic each; ghstack makes one PR per commit)", ""]
    lines += [f"{i}. {topic.subject}" for i, topic in enumerate(sources.topics, 1)]
    names = exported.names if exported else series_names(patches)
    if exported:
        lines += ["", f"Complete `git format-patch` series made on `{exported.checkout}` at `{exported.base[:12]}` "
                  f"({len(names)} patches, `series` gives the order):", ""]
    elif names:
        lines += [
            "",
            f"Complete `git format-patch` series next to this file ({len(names)} patches, `series` gives the order), "
            "made on the files of the pinned wheel plus, for the files it does not ship, the upstream context the "
            "fragments record; `git am` applies it to a v2.14.1 checkout. `"
            f"{complete_command(sources.stacks[0])}` makes the same series on your checkout, under your git identity, with Test Plan "
            "counts:",
            "",
        ]
    lines += [f"- `{name}`" for name in names]
    if exported:
        lines += ["", *per_commit_checks(exported)]
    return lines


def series_names(patches: Path) -> list[str]:
    series = patches / "series"
    return [n for n in series.read_text().splitlines() if n] if series.is_file() else []


def per_commit_checks(exported: ExportedSeries) -> list[str]:
    if not exported.unmet:
        return ["Every commit has what test_doc, test_overrides, dynamo's trace rules, HasDecompTest and "
                "TestRefsOpsInfo demand of it (`scripts/patchset/series_checks.py`)."]
    lines = ["Commits that miss what an upstream suite demands (`scripts/patchset/series_checks.py`):", ""]
    for subject, problems in exported.unmet.items():
        lines += [f"- {subject}: " + "; ".join(problems)]
    return lines


def files_section(sources: Sources) -> list[str]:
    lines = ["## Files touched, by topic", ""]
    for topic in sources.topics:
        files = touched_files(sources, topic.id)
        lines += [f"### {topic.subject}", ""]
        lines += [f.markdown() for f in files] or ["- (no files)"]
        lines.append("")
    return lines[:-1]


def result_row(label: str, keyword: str, result: SuiteResult | None) -> str:
    if result is None:
        return f"| `{label}` | `-k '{keyword}'` | {NOT_RUN} | | | | |"
    return (
        f"| `{label}` | `-k '{keyword}'` | {result.verdict} | {result.passed} | {result.failed} "
        f"| {result.errors} | {result.skipped} |"
    )


def overlay_matrix(overlay_xml: Path) -> list[str]:
    """This repo's suite (OpInfo machinery, properties, exhaustive accuracy) run on the overlay build."""
    header = ["| suite | verdict | passed | failed | errors | skipped |", "|---|---|---|---|---|---|"]
    if not overlay_xml.is_file():
        return [f"Overlay suite (`make test`): {NOT_RUN}.", ""]
    r = summarize_file(overlay_xml)
    row = f"| `make test` on the overlay | {r.verdict} | {r.passed} | {r.failed} | {r.errors} | {r.skipped} |"
    return [f"From `{OVERLAY_RESULTS}` (written by `make test`).", "", *header, row, ""]


def test_matrix(results_dir: Path, overlay_xml: Path, sources: Sources | None = None) -> list[str]:
    results = {r.name: r for r in summarize_dir(results_dir)}
    lines = ["## Test matrix", "", *overlay_matrix(overlay_xml)]
    if not results:
        lines += [
            f"Upstream suites: {NOT_RUN}. `make pytorch` builds the patched checkout and writes one JUnit XML "
            f"file per suite to `{display(results_dir)}`; rerun `make pr` afterwards to fill this table.",
            "",
        ]
    else:
        lines += [f"From the JUnit XML in `{display(results_dir)}` (written by `make pytorch`).", ""]
    lines += ["| suite (test/) | filter | verdict | passed | failed | errors | skipped |", "|---|---|---|---|---|---|---|"]
    sources = sources or load_sources().of_stack()
    ops = stack_ops(sources)  # the operators of this PR's stack only
    for suite in suites_of_stack(sources):
        lines.append(result_row(suite.path, suite.keyword(ops), results.pop(suite.path, None)))
    lines += [result_row(name, "?", result) for name, result in sorted(results.items())]
    return lines


def test_plan_section(sources: Sources, results: Path, overlay_xml: Path) -> list[str]:
    found = load_results(results, overlay_xml)
    lines = ["## Test Plan", "", "Per commit, the suites that exercise it, with the counts of their last run:"]
    for topic in sources.topics:
        lines += ["", f"{topic.subject}:", "", *code_block(test_plan(topic, found, sources)[2:], "sh")]
    return lines


def display(path: Path) -> str:
    return str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else str(path)


FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(line index, level, title) of every heading outside code fences."""
    found: list[tuple[int, int, str]] = []
    in_code = False
    for index, line in enumerate(lines):
        if FENCE.match(line):
            in_code = not in_code
        elif not in_code and (match := HEADING.match(line)):
            found.append((index, len(match.group(1)), match.group(2)))
    return found


def trimmed(lines: list[str]) -> list[str]:
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def markdown_section(text: str, wanted: Callable[[str], bool]) -> list[str] | None:
    """The body of the first heading whose title `wanted` accepts, up to the next heading of its level or above."""
    lines = text.splitlines()
    found = headings(lines)
    for position, (index, level, title) in enumerate(found):
        if wanted(title):
            end = next((i for i, lvl, _ in found[position + 1 :] if lvl <= level), len(lines))
            return trimmed(lines[index + 1 : end])
    return None


def preamble(text: str) -> list[str]:
    """The lines between the title and the first section heading."""
    lines = text.splitlines()
    found = headings(lines)
    start = found[0][0] + 1 if found and found[0][1] == 1 else 0
    end = next((i for i, level, _ in found if i >= start and level >= 2), len(lines))
    return trimmed(lines[start:end])


def below_title(text: str) -> list[str]:
    """A whole document under a PR section: what follows its title, each heading a level down."""
    lines = text.splitlines()
    found = headings(lines)
    start = found[0][0] + 1 if found and found[0][1] == 1 else 0
    shifted = {index for index, _, _ in found if index >= start}
    return trimmed([f"#{line}" if index in shifted else line for index, line in enumerate(lines)][start:])


def figures_section(title: str, figures: Figures | None, root: Path) -> list[str]:
    """The PR section `title` quoting the stack's own figures; none where the stack declares none."""
    if figures is None:
        return []
    lines = [f"## {title}", ""]
    path = root / figures.doc
    if not path.is_file():
        return lines + [f"{NOT_RUN}: `{figures.made_by}` writes `{figures.doc}`."]
    text = path.read_text()
    if not figures.section:
        return lines + [f"From `{figures.doc}`:", "", *below_title(text)]
    section = markdown_section(text, lambda heading: heading.lower().startswith(figures.section.lower()))
    if section is None:
        return lines + [f"{NOT_RUN}: `{figures.doc}` has no \"{figures.section}\" section "
                        f"(`{figures.made_by}` writes it)."]
    return lines + [f"From `{figures.doc}`:", "", *(preamble(text) + [""] if figures.preamble else []), *section]




def body_passages(body: str) -> list[str]:
    """A commit body's paragraphs and bullets ("- " at the start of a line), each unwrapped into one line."""
    passages: list[list[str]] = []
    open_passage = False
    for line in body.splitlines():
        if not line.strip():
            open_passage = False
        elif line.startswith("- ") or not open_passage:
            passages.append([line.removeprefix("- ").strip()])
            open_passage = True
        else:
            passages[-1].append(line.strip())
    return [" ".join(words) for words in passages]


def coverage_answers(sources: Sources, prose: PrTexts) -> list[str]:
    """Each coverage question of the stack's prose with the passages that answer it and the commits that carry
    them."""
    lines = ["## What CI does not cover, and why", ""]
    for question, lead in prose.coverage_questions:
        found: dict[str, list[str]] = {}
        for topic in sources.topics:
            for passage in body_passages(topic.body):
                if passage.startswith(lead):
                    found.setdefault(passage, []).append(topic.subject)
        for passage, subjects in found.items():
            commits = ", ".join(f"`{subject}`" for subject in subjects)
            lines += [f"**{question}** From the commit message of {commits}:", "", f"> {passage}", ""]
    return lines[:-1] if len(lines) > 2 else []


def new_schemas(sources: Sources) -> list[str]:
    return [line.removeprefix("- func: ") for f in fragments_on(sources, NATIVE_FUNCTIONS)
            for line in f.text if line.startswith("- func: ")]


def bc_note(sources: Sources) -> list[str]:
    replaced = [f for f in fragments_on(sources, NATIVE_FUNCTIONS) if f.where == "replace"]
    behaviour = [t for t in sources.topics if "Behaviour change" in t.body]
    lines = ["## BC-breaking?", ""]
    if replaced:
        lines.append(f"Check: {len(replaced)} fragment(s) replace lines of `{NATIVE_FUNCTIONS}`.")
    elif behaviour:
        lines.append("No schema breaks: `native_functions.yaml` gains these schemas and no existing schema changes:")
    else:
        lines.append("No. New operator only: `native_functions.yaml` gains these schemas and no existing schema changes:")
    lines += ["", *(f"- `{schema}`" for schema in new_schemas(sources))]
    if behaviour:
        lines += ["", "Behaviour changes, each stated, with what stops working if anything, in the commit that "
                  "makes it:", ""]
        lines += [f"- {t.subject}" for t in behaviour]
    return lines


def follow_ups(fixes: str, prose: PrTexts) -> list[str]:
    number = issue_number(fixes)
    issue = f"Fixes #{number}" if number else "Fixes #(pass FIXES=<issue number or URL> to `make pr`)"
    return [
        "## Follow-ups",
        "",
        prose.follow_ups,
        "",
        issue,
    ]


DISPATCH_STUB = re.compile(r"\b(?:ALSO_)?(?:DECLARE|DEFINE|REGISTER)(?:_AVX512)?_DISPATCH\(")


@dataclass(frozen=True)
class CheckItem:
    label: str
    matches: Callable[[str, str], bool]  # (upstream path, what the patch set adds to it)
    hint: str = ""


CHECKLIST: tuple[CheckItem, ...] = (
    CheckItem("native_functions.yaml entries (schemas, structured_delegate, dispatch, tags)",
              lambda path, text: path.endswith("native_functions.yaml")),
    CheckItem("structured kernel (TORCH_META_FUNC / TORCH_IMPL_FUNC)", lambda path, text: "TORCH_IMPL_FUNC" in text),
    CheckItem("dispatch stub (DECLARE / DEFINE / REGISTER_DISPATCH)", lambda path, text: bool(DISPATCH_STUB.search(text))),
    CheckItem("CPU kernel (vectorized, per CPU capability)", lambda path, text: "/native/cpu/" in path),
    CheckItem("CUDA kernel", lambda path, text: path.endswith(".cu")),
    CheckItem("derivatives.yaml (backward, forward AD)", lambda path, text: path.endswith("derivatives.yaml")),
    CheckItem("OpInfo / PythonRefInfo", lambda path, text: path.endswith("common_methods_invocations.py")),
    CheckItem("refs / prims", lambda path, text: path.startswith(("torch/_refs/", "torch/_prims/"))),
    CheckItem("inductor lowering", lambda path, text: path.startswith("torch/_inductor/")),
    CheckItem("vmap batch rule", lambda path, text: path.startswith("aten/src/ATen/functorch/")),
    CheckItem("docs (docstrings, listings)",
              lambda path, text: path.endswith("_docs.py") or path.startswith("docs/source/")),
    CheckItem("expect files", lambda path, text: path.startswith("test/expect/"),
              "if a suite asks for one, regenerate it with `EXPECTTEST_ACCEPT=1`"),
    CheckItem("lint", lambda path, text: False, "`lintrunner -m origin/main` in the checkout; `make lint` here"),
)


def added_text(sources: Sources) -> dict[str, str]:
    """Per touched upstream path, the text the patch set adds: a new file whole, or its fragments' text."""
    added = {f.upstream_path: f.source.read_text(errors="replace") for f in sources.new_files}
    for fragment_file in sources.fragment_files:
        lines = [line for fragment in fragment_file.fragments for line in fragment.text]
        added[fragment_file.upstream_path] = "\n".join(lines)
    return added


def checklist(sources: Sources) -> list[str]:
    added = added_text(sources)
    lines = ["## Reviewer checklist", ""]
    for item in CHECKLIST:
        where = [f"`{path}`" for path, text in sorted(added.items()) if item.matches(path, text)]
        detail = ", ".join(where) if where else "not in this patch set"
        if item.hint:
            detail = f"{detail}; {item.hint}" if where else item.hint
        lines.append(f"- [ ] {item.label}: {detail}")
    return lines


def reproduce_section(sources: Sources) -> list[str]:
    stack, branch, keyword = sources.stacks[0], default_branch(sources), " or ".join(selecting_terms(stack_ops(sources)))
    keyword = keyword if keyword.isidentifier() else f"'{keyword}'"
    where = f"PYTORCH_SRC=~/pytorch STACK={stack}"
    commented = [
        ("make && make test", "overlay build on the pinned wheel, and this repo's tests"),
        (f"make apply {where}", f"one commit per topic on branch {branch}"),
        (f"make pytorch {where}", f"develop build + upstream suites -k {keyword} (JUnit XML)"),
        (f"make pr {where}", "this file and the complete series"),
    ]
    width = max(len(command) for command, _ in commented) + 2
    return [
        "## Reproduce",
        "",
        *code_block([
            *(f"{command.ljust(width)}# {comment}" for command, comment in commented),
            f"cd ~/pytorch && git checkout {branch} && ghstack submit",
        ], "sh"),
    ]


def stack_size(commits: int) -> str:
    return "One commit" if commits == 1 else f"Stack of {commits} commits"


def render(sources: Sources, inputs: PrInputs, pin: Pin, exported: ExportedSeries | None = None) -> str:
    """The PR body of the one stack `sources` holds (Sources.of_stack)."""
    stack = sources.stacks[0]
    prose = texts(stack)
    sections = [
        [f"# {prose.title}", "",
         f"{stack_size(len(sources.topics))} on PyTorch v{pin.version} ({pin.short_commit})."],
        motivation(sources, pin, prose),
        commits_section(sources, inputs.patches_of(stack), exported),
        files_section(sources),
        test_plan_section(sources, inputs.results, inputs.overlay_results),
        test_matrix(inputs.results, inputs.overlay_results, sources),
        coverage_answers(sources, prose),
        figures_section("Benchmarks", prose.benchmarks, inputs.root),
        figures_section("Accuracy", prose.accuracy, inputs.root),
        bc_note(sources),
        checklist(sources),
        reproduce_section(sources),
        follow_ups(inputs.fixes, prose),
    ]
    return "\n\n".join("\n".join(section) for section in sections if section) + "\n"


def copy_series(patches: Path, output: Path) -> list[str]:
    for stale in [*output.glob("*.patch"), output / "not-in-base.txt"]:
        stale.unlink(missing_ok=True)
    names = [p.name for p in sorted(patches.glob("*.patch"))]
    names += [n for n in ("series",) if (patches / n).is_file()]
    for name in names:
        shutil.copy2(patches / name, output / name)
    return names


def write_pr(inputs: PrInputs, sources: Sources | None = None, pin: Pin | None = None) -> Path:
    """PR.md of `inputs.stack` (default: the first stack) and its series in `inputs.output`."""
    sources = (sources or load_sources(inputs.root)).of_stack(inputs.stack)
    inputs.output.mkdir(parents=True, exist_ok=True)
    exported = None
    if inputs.checkout is not None:
        results = load_results(inputs.results, inputs.overlay_results)
        exported = export_from_checkout(inputs.checkout, inputs.output, sources, results)
    else:
        copy_series(inputs.patches_of(sources.stacks[0]), inputs.output)
    pr = inputs.output / "PR.md"
    pr.write_text(render(sources, inputs, pin or load_pin(), exported))
    return pr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stack", help="the stack of topics.toml whose PR to write (default: the first)")
    parser.add_argument("--output", type=Path, help="default: build/pr/<stack>")
    parser.add_argument("--results", type=Path, help="JUnit XML folder of `make pytorch` (default: its <stack> folder)")
    parser.add_argument("--pytorch-src", type=Path, help="PyTorch checkout to make the complete series on")
    parser.add_argument("--fixes", default="", help="upstream issue (number or URL) for the `Fixes #` line")
    args = parser.parse_args()
    try:
        issue_number(args.fixes)
    except FixesError as error:
        print(f"pr: error: {error}", file=sys.stderr)
        sys.exit(2)
    checkout = args.pytorch_src.expanduser().resolve() if args.pytorch_src else None
    try:
        stack = load_sources().of_stack(args.stack or None).stacks[0]
        output, results = args.output or OUTPUT_DIR / stack, args.results or results_dir_of(stack)
        inputs = PrInputs(REPO_ROOT, output.resolve(), results.resolve(), checkout, args.fixes, stack=stack)
        pr = write_pr(inputs)
    except (ApplyError, FragmentError, GitError) as error:
        print(f"pr: error: {error}", file=sys.stderr)
        sys.exit(1)
    if checkout is None:
        print(f"pr: wrote {display(pr)} (stack {stack}) and the complete series next to it (made on the pinned wheel's "
              f"files and the recorded upstream context of the files it lacks); `{complete_command(stack)}` makes it on "
              "your checkout")
    else:
        print(f"pr: wrote {display(pr)} (stack {stack}) and the complete series made on {checkout} next to it")


if __name__ == "__main__":
    main()

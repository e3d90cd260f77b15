"""The sources of truth: topics, new upstream files and anchored fragments, and applying them."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from scripts import tomlcompat as tomllib
from scripts.layout import FRAGMENT_SUFFIX, REPO_ROOT, SOURCE_FOLDERS

WHERE_CHOICES = ("before", "after", "replace")
# Lines of upstream context a fragment on a file the wheel lacks records on each side of its change: what
# `git format-patch` puts around a hunk (-U3), so the exported series applies to a checkout with `git am`.
MIN_CONTEXT = 3
# Between two recorded context blocks of a fixture file (scripts/patchset/base.py): upstream lines nobody
# recorded. No patch may carry it (export_series checks), so every hunk's context is recorded upstream text.
FIXTURE_GAP = "<<< fixture: upstream lines not recorded here >>>"


class FragmentError(RuntimeError):
    """A fragment or topic definition is wrong, or its anchor does not fit the target file."""


@dataclass(frozen=True)
class Topic:
    id: str
    subject: str
    body: str
    files: tuple[str, ...]
    tests: tuple[str, ...] = ()  # upstream suites (paths under test/) whose tests this commit's content triggers
    # The stack (one upstream PR, one series) the commit belongs to. Each stack applies to the pin on its own.
    stack: str = ""


@dataclass(frozen=True)
class Fragment:
    source: str  # the fragment file, relative to the sources root
    index: int
    topic: str
    where: str
    anchor: tuple[str, ...]
    text: tuple[str, ...]
    # The upstream lines directly above and below the lines this fragment inserts or replaces (docs/FRAGMENTS.md):
    # "after" ends context_before with the anchor, "before" starts context_after with it, "replace" has the anchor
    # between them. Recorded for files the wheel does not ship; empty otherwise.
    context_before: tuple[str, ...] = ()
    context_after: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.source} fragment #{self.index + 1}"

    @property
    def has_context(self) -> bool:
        return bool(self.context_before or self.context_after)

    @property
    def upstream_block(self) -> tuple[str, ...]:
        """The contiguous upstream lines this fragment's context records, its anchor included."""
        middle = self.anchor if self.where == "replace" else ()
        return self.context_before + middle + self.context_after


@dataclass(frozen=True)
class FragmentFile:
    upstream_path: str
    alternatives: tuple[str, ...]
    fragments: tuple[Fragment, ...]

    def fixture_text(self) -> str:
        """A stand-in for the upstream file: the fragments' recorded context blocks in file order.

        Blocks that overlap upstream by MIN_CONTEXT or more lines (the tail of one is the head of the next, or one
        holds the other) are written once; any other two are separated by a FIXTURE_GAP line, so git never makes
        one hunk of two changes whose context is not contiguous upstream; one more opens and ends the file. Fragments whose anchor is text another
        fragment adds (a later commit building on an earlier one) record none.
        """
        blocks = [f.upstream_block for f in self.fragments if f.has_context]
        if not blocks:
            raise FragmentError(f"{self.upstream_path}: no fragment records upstream context (docs/FRAGMENTS.md)")
        lines: list[str] = [FIXTURE_GAP, *blocks[0]]
        for block in blocks[1:]:
            if _contains(tuple(lines), block):
                continue
            overlap = next((k for k in range(min(len(lines), len(block)), 0, -1) if tuple(lines[-k:]) == block[:k]), 0)
            lines += list(block[overlap:]) if overlap >= MIN_CONTEXT else [FIXTURE_GAP, *block]
        # Gap lines at both ends too: `git apply` pins a hunk that starts at line 1 to the start of the file.
        return "\n".join([*lines, FIXTURE_GAP]) + "\n"

    def uncontexted(self) -> list[Fragment]:
        """Fragments that record no context and whose anchor is no text of another fragment of this file."""
        added = [f.text for f in self.fragments]
        return [f for f in self.fragments if not f.has_context and not any(_contains(t, f.anchor) for t in added)]

    def target_in(self, tree: Path) -> str | None:
        """The first of the upstream path and its alternatives that exists in `tree`."""
        for candidate in (self.upstream_path, *self.alternatives):
            if (tree / candidate).is_file():
                return candidate
        return None


@dataclass(frozen=True)
class NewFile:
    upstream_path: str
    source: Path


class Outcome(Enum):
    APPLIED = "applied"
    ALREADY_APPLIED = "already applied"


def _lines(text: str) -> tuple[str, ...]:
    return tuple(text.splitlines())


def _contains(lines: tuple[str, ...], block: tuple[str, ...]) -> bool:
    size = len(block)
    return any(lines[i : i + size] == block for i in range(len(lines) - size + 1))


def _parse_fragment(source: str, index: int, table: dict[str, object]) -> Fragment:
    def field(name: str) -> str:
        value = table.get(name)
        if not isinstance(value, str) or not value:
            raise FragmentError(f"{source} fragment #{index + 1}: missing or empty '{name}'")
        return value

    where = field("where")
    if where not in WHERE_CHOICES:
        raise FragmentError(f"{source} fragment #{index + 1}: where = {where!r}, expected one of {WHERE_CHOICES}")
    anchor = _lines(field("anchor"))
    if not any(line.strip() for line in anchor):
        raise FragmentError(f"{source} fragment #{index + 1}: the anchor is blank; anchor on a distinctive line")
    text = table.get("text", "")
    if not isinstance(text, str) or (not text and where != "replace"):
        raise FragmentError(f"{source} fragment #{index + 1}: missing or empty 'text' (only a replace may delete)")
    fragment = Fragment(source, index, field("topic"), where, anchor, _lines(text), *_context(source, index, table))
    check_context(fragment)
    return fragment


def _context(source: str, index: int, table: dict[str, object]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    given = {key: table.get(key) for key in ("context_before", "context_after") if key in table}
    if not given:
        return (), ()
    if len(given) == 1 or not all(isinstance(value, str) and value for value in given.values()):
        raise FragmentError(
            f"{source} fragment #{index + 1}: context_before and context_after go together, each a non-empty block "
            "of upstream lines (docs/FRAGMENTS.md)"
        )
    return _lines(str(given["context_before"])), _lines(str(given["context_after"]))


def check_context(fragment: Fragment) -> None:
    """A fragment's recorded context holds MIN_CONTEXT lines on each side of its change and agrees with its anchor."""
    if not fragment.has_context:
        return
    before, after, anchor = fragment.context_before, fragment.context_after, fragment.anchor
    problems = []
    if len(before) < MIN_CONTEXT or len(after) < MIN_CONTEXT:
        problems.append(
            f"records {len(before)} line(s) before and {len(after)} after its change; git needs {MIN_CONTEXT} on each side"
        )
    if fragment.where == "after" and before[-len(anchor) :] != anchor:
        problems.append("context_before must end with the anchor (the fragment inserts after it)")
    if fragment.where == "before" and after[: len(anchor)] != anchor:
        problems.append("context_after must start with the anchor (the fragment inserts before it)")
    if fragment.where == "replace" and (before[-len(anchor) :] == anchor or after[: len(anchor)] == anchor):
        problems.append("a replace's context surrounds its anchor: leave the anchor out of context_before/context_after")
    if problems:
        raise FragmentError(f"{fragment.label}: its recorded upstream context " + "; ".join(problems))


def load_fragment_file(path: Path, root: Path, upstream_path: str) -> FragmentFile:
    source = path.relative_to(root).as_posix()
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as error:
        raise FragmentError(f"{source}: not valid TOML: {error}") from error
    tables = data.get("fragment", [])
    if not tables:
        raise FragmentError(f"{source}: no [[fragment]] tables")
    fragments = tuple(_parse_fragment(source, i, t) for i, t in enumerate(tables))
    return FragmentFile(upstream_path, tuple(data.get("alternatives", ())), fragments)


def _topic(topics_file: Path, table: dict[str, Any]) -> Topic:
    stack = table.get("stack")
    # Required, not defaulted: a topic that silently joined the first stack would leak into its PR.
    if not isinstance(stack, str) or not stack:
        raise FragmentError(f"{topics_file}: topic {table.get('id')!r} has no `stack` (the series and PR it is in)")
    files, tests = tuple(table.get("files", ())), tuple(table.get("tests", ()))
    return Topic(table["id"], table["subject"], table.get("body", ""), files, tests, stack)


def load_topics(topics_file: Path) -> tuple[Topic, ...]:
    data = tomllib.loads(topics_file.read_text())
    topics = tuple(_topic(topics_file, t) for t in data["topic"])
    ids = [t.id for t in topics]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise FragmentError(f"{topics_file}: duplicate topic ids {sorted(duplicates)}")
    return topics


@dataclass(frozen=True)
class Sources:
    """Everything this repo adds to PyTorch, grouped by topic."""

    topics: tuple[Topic, ...]
    fragment_files: tuple[FragmentFile, ...]
    new_files: tuple[NewFile, ...]

    def topic_of_new_file(self, upstream_path: str) -> str:
        owners = [t.id for t in self.topics if upstream_path in t.files]
        if len(owners) != 1:
            raise FragmentError(
                f"new file {upstream_path} must be listed in the `files` of exactly one topic "
                f"in topics.toml (found {owners or 'none'})"
            )
        return owners[0]

    def new_files_of(self, topic_id: str) -> tuple[NewFile, ...]:
        return tuple(f for f in self.new_files if self.topic_of_new_file(f.upstream_path) == topic_id)

    def fragments_of(self, topic_id: str) -> tuple[tuple[FragmentFile, tuple[Fragment, ...]], ...]:
        grouped = ((ff, tuple(f for f in ff.fragments if f.topic == topic_id)) for ff in self.fragment_files)
        return tuple((ff, frags) for ff, frags in grouped if frags)

    @property
    def stacks(self) -> tuple[str, ...]:
        """The stack names, in the order their first topic appears in topics.toml."""
        return tuple(dict.fromkeys(t.stack for t in self.topics))

    def of_stack(self, stack: str | None = None) -> Sources:
        """Only the topics of `stack` (default: the first), with their fragments and new files: what its series,
        its PR and `make apply` see, so nothing of another stack leaks in. Raises FragmentError naming the stacks."""
        name = self.stacks[0] if stack is None and self.stacks else stack
        if name not in self.stacks:
            raise FragmentError(f"unknown stack {stack!r}: topics.toml has {', '.join(self.stacks) or 'none'}")
        ids = {t.id for t in self.topics if t.stack == name}
        files = (dataclasses.replace(ff, fragments=tuple(f for f in ff.fragments if f.topic in ids))
                 for ff in self.fragment_files)
        return Sources(
            tuple(t for t in self.topics if t.id in ids),
            tuple(ff for ff in files if ff.fragments),
            tuple(f for f in self.new_files if self.topic_of_new_file(f.upstream_path) in ids),
        )

    def edited_upstream_paths(self) -> tuple[str, ...]:
        return tuple(sorted({p for ff in self.fragment_files for p in (ff.upstream_path, *ff.alternatives)}))

    def validate(self) -> None:
        known = {t.id for t in self.topics}
        for ff in self.fragment_files:
            for fragment in ff.fragments:
                if fragment.topic not in known:
                    raise FragmentError(f"{fragment.label}: unknown topic {fragment.topic!r} (see topics.toml)")
        listed = {path for t in self.topics for path in t.files}
        present = {f.upstream_path for f in self.new_files}
        for path in sorted(listed - present):
            raise FragmentError(f"topics.toml lists {path}, but no source folder holds it")
        for new_file in self.new_files:
            self.topic_of_new_file(new_file.upstream_path)


def load_sources(root: Path = REPO_ROOT) -> Sources:
    fragment_files: list[FragmentFile] = []
    new_files: list[NewFile] = []
    for folder in SOURCE_FOLDERS:
        base = root / folder
        for path in sorted(p for p in base.rglob("*") if p.is_file()) if base.is_dir() else ():
            relative = path.relative_to(base).as_posix()
            if "__pycache__" in relative:
                continue
            if relative.endswith(FRAGMENT_SUFFIX):
                fragment_files.append(load_fragment_file(path, root, relative[: -len(FRAGMENT_SUFFIX)]))
            else:
                new_files.append(NewFile(relative, path))
    topics_file = root / "topics.toml"
    if not topics_file.is_file():
        raise FragmentError(f"{topics_file} is missing; it lists the topics (commits) of the series")
    sources = Sources(load_topics(topics_file), tuple(fragment_files), tuple(new_files))
    sources.validate()
    return sources


def find_block(lines: tuple[str, ...], block: tuple[str, ...], fragment: Fragment, target: str) -> int | None:
    """Index of the block's first line in `lines`; None when absent. Fails when it is not unique."""
    size = len(block)
    hits = [i for i in range(len(lines) - size + 1) if lines[i : i + size] == block]
    if len(hits) > 1:
        where = ", ".join(str(i + 1) for i in hits)
        raise FragmentError(
            f"{fragment.label}: anchor {block[0]!r} occurs {len(hits)} times in {target} "
            f"(lines {where}); make the anchor longer so it matches once"
        )
    return hits[0] if hits else None


def _already_applied(lines: tuple[str, ...], fragment: Fragment, anchor_at: int | None, target: str) -> bool:
    if fragment.where == "replace":
        # A deletion leaves nothing to find: its anchor being gone is all there is to check.
        return anchor_at is None and (not fragment.text or find_block(lines, fragment.text, fragment, target) is not None)
    if anchor_at is None:
        return False
    if fragment.where == "before":
        start = anchor_at - len(fragment.text)
    else:
        start = anchor_at + len(fragment.anchor)
    return start >= 0 and lines[start : start + len(fragment.text)] == fragment.text


def apply_fragment(lines: tuple[str, ...], fragment: Fragment, target: str) -> tuple[tuple[str, ...], Outcome]:
    at = find_block(lines, fragment.anchor, fragment, target)
    if _already_applied(lines, fragment, at, target):
        return lines, Outcome.ALREADY_APPLIED
    if at is None:
        raise FragmentError(
            f"{fragment.label}: anchor {fragment.anchor[0]!r} not found in {target}; "
            "upstream changed this file: update the anchor"
        )
    end = at + len(fragment.anchor)
    if fragment.where == "before":
        return lines[:at] + fragment.text + lines[at:], Outcome.APPLIED
    if fragment.where == "after":
        return lines[:end] + fragment.text + lines[end:], Outcome.APPLIED
    return lines[:at] + fragment.text + lines[end:], Outcome.APPLIED


def apply_fragments_to_text(text: str, fragments: tuple[Fragment, ...], target: str) -> tuple[str, bool]:
    """Apply in order; returns the new text and whether anything changed."""
    lines = _lines(text)
    changed = False
    for fragment in fragments:
        lines, outcome = apply_fragment(lines, fragment, target)
        changed |= outcome is Outcome.APPLIED
    trailing = "\n" if text.endswith("\n") or not text else ""
    return "\n".join(lines) + trailing, changed

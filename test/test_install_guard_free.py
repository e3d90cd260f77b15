"""Fragments and patches are written against source text: no anchor or hunk leans on the wheel's install-time
header guard, and every fragment applies both to the source text (the base, a checkout) and to the guarded
header the venv has installed (the overlay)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scripts.patchset.base import build_base
from scripts.patchset.fragments import Fragment, FragmentFile, apply_fragments_to_text, load_sources
from scripts.patchset.patches import stack_dir
from scripts.patchset.wheel_source import GUARD_CLOSE, GUARD_MACROS, add_install_guard

GUARD_ERROR_LINE = GUARD_CLOSE.splitlines()[2]
HEADER_SUFFIXES = (".h", ".cuh", ".hpp")
HUNK_HEADER = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")
HUNK_RANGES = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def names_the_guard(line: str) -> bool:
    """A line only the install-time guard has: its macros (opening and closing lines) or its #error."""
    return any(macro in line for macro in GUARD_MACROS) or line.strip() == GUARD_ERROR_LINE


@pytest.fixture(scope="module")
def base() -> Path:
    return build_base()


def ordered_fragments(fragment_file: FragmentFile) -> tuple[Fragment, ...]:
    topics = [topic.id for topic in load_sources().topics]
    return tuple(sorted(fragment_file.fragments, key=lambda f: topics.index(f.topic)))


def headers_in(base: Path) -> list[tuple[FragmentFile, str]]:
    """Fragment files that edit a header the wheel installs, with the header's source text."""
    return [
        (ff, (base / ff.upstream_path).read_text())
        for ff in load_sources().fragment_files
        if ff.upstream_path.endswith(HEADER_SUFFIXES) and (base / ff.upstream_path).is_file()
    ]


def guard_overlaps(fragment: Fragment, source: str) -> bool:
    """Whether the anchor matches the guarded header on one of the guard's lines, where the source has none:
    the guard's first line, or the blank line, #else, #error and #endif the wheel appends."""
    guarded = tuple(add_install_guard(source).splitlines())
    source_end = 1 + len(source.splitlines())
    size = len(fragment.anchor)
    starts = [i for i in range(len(guarded) - size + 1) if guarded[i : i + size] == fragment.anchor]
    return any(start == 0 or start + size > source_end for start in starts)


def test_no_anchor_names_the_install_guard() -> None:
    named = [
        f"{fragment.label}: {line!r}"
        for ff in load_sources().fragment_files
        for fragment in ff.fragments
        for line in fragment.anchor
        if names_the_guard(line)
    ]
    assert not named, "anchors must be source text, not the wheel's install-time guard:\n" + "\n".join(named)


def test_no_anchor_reaches_into_the_guard_lines_of_a_header(base: Path) -> None:
    reaching = [
        f"{fragment.label}: {fragment.anchor[-1]!r}"
        for ff, source in headers_in(base)
        for fragment in ff.fragments
        if guard_overlaps(fragment, source)
    ]
    assert not reaching, "anchored on the guard's #if/#else/#endif, which upstream's file lacks:\n" + "\n".join(
        reaching
    )


def hunk_context_lines(patch: Path) -> list[str]:
    """The context lines (unchanged lines around each change) of every hunk of a patch."""
    context, in_hunk = [], False
    for line in patch.read_text().splitlines():
        if line.startswith("diff --git "):
            in_hunk = False
        elif HUNK_HEADER.match(line):
            in_hunk = True
        elif in_hunk and line.startswith(" "):
            context.append(line[1:])
    return context


def stack_patches() -> dict[str, list[Path]]:
    """Each stack's series (patches/<stack>/), in order; each applies to the base alone."""
    found = {stack: sorted(stack_dir(stack).glob("*.patch")) for stack in load_sources().stacks}
    assert all(found.values()), f"a stack without patches: {found}"
    return found


def test_no_hunk_of_the_series_has_guard_lines_as_context() -> None:
    found = [
        f"{patch.parent.name}/{patch.name}: {line!r}"
        for patches in stack_patches().values()
        for patch in patches
        for line in hunk_context_lines(patch)
        if names_the_guard(line)
    ]
    assert not found, "patches/ was made on guarded headers: `make patches` on the source-text base\n" + "\n".join(
        found
    )


def hunk_ends(patch: Path) -> list[tuple[str, int, int]]:
    """(file, last line of the pre-image the hunk covers, lines the hunk adds net) for every hunk of a patch."""
    ends, path = [], ""
    for line in patch.read_text().splitlines():
        if line.startswith("diff --git "):
            path = line.split(" b/", 1)[1]
        elif line.startswith("--- /dev/null"):
            path = ""  # a new file has no source text to run past
        elif path and (match := HUNK_RANGES.match(line)):
            old_start, old_len, new_len = (int(group or 1) for group in match.groups())
            ends.append((path, old_start + old_len - 1 if old_len else old_start, new_len - old_len))
    return ends


def past_the_end(base: Path, patches: list[Path]) -> list[str]:
    """Hunks of one stack's series (applied in order on the base) that end past their file's last line."""
    grown: dict[str, int] = {}  # lines earlier patches of the series added to each file
    past_end = []
    for patch in patches:
        hunks = hunk_ends(patch)
        for path, last_line, _ in hunks:
            length = len((base / path).read_text().splitlines()) + grown.get(path, 0)
            if last_line > length:
                past_end.append(f"{patch.parent.name}/{patch.name}: {path} hunk ends at line {last_line}, the file has {length}")
        for path, _, added in hunks:
            grown[path] = grown.get(path, 0) + added
    return past_end


def test_no_hunk_reaches_past_the_end_of_the_source_file(base: Path) -> None:
    """The guard's bare #else and #endif trail the source: a hunk reaching them reaches past the source's end."""
    past_end = [line for patches in stack_patches().values() for line in past_the_end(base, patches)]
    assert not past_end, "hunk context beyond the source text (the install guard's tail):\n" + "\n".join(past_end)


def test_every_header_fragment_applies_to_the_installed_header_as_to_its_source(base: Path) -> None:
    """Each anchor matches exactly once in both forms (the engine fails otherwise), and the same lines land."""
    headers = headers_in(base)
    assert headers, "no fragment edits a header the wheel ships: the base is wrong"
    for ff, source in headers:
        fragments = ordered_fragments(ff)
        patched_source, _ = apply_fragments_to_text(source, fragments, ff.upstream_path)
        patched_installed, _ = apply_fragments_to_text(add_install_guard(source), fragments, ff.upstream_path)
        assert patched_installed == add_install_guard(patched_source), ff.upstream_path


def test_every_fragment_on_a_base_file_applies_to_its_source_text(base: Path) -> None:
    for ff in load_sources().fragment_files:
        target = ff.target_in(base)
        if target is not None:
            _, changed = apply_fragments_to_text((base / target).read_text(), ordered_fragments(ff), target)
            assert changed, target

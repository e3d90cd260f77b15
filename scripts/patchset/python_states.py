"""The torch Python files of an installed torch at every commit boundary of the series.

Boundary k is the state after topics 1..k: the install's pristine copies (kept by scripts/overlay/venv_patch.py)
plus the fragments and new files of those topics, in series order. `write_shadow` lays one state out as a
directory of modules that test/series_numerics.py imports in place of the install's own (an import hook), so the
upstream numerical checks can run on each commit's Python side against the overlay's operator.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

from scripts.layout import wheel_member_of
from scripts.overlay.venv_patch import STATE_DIR_NAME, is_front_end_python
from scripts.patchset.fragments import FragmentError, Sources, apply_fragments_to_text

HIDDEN_LIST = "hidden-modules.json"  # in a shadow directory: modules that do not exist yet at that commit


@dataclass(frozen=True)
class Boundary:
    topic: str  # the last topic applied
    touches_python: bool  # whether that topic edits or adds a torch Python file the wheel ships
    files: dict[str, bytes]  # wheel member -> content at this boundary, for every Python member the series touches
    absent: tuple[str, ...] = ()  # Python members the series adds in a later topic

    def shadow_key(self) -> tuple[tuple[str, bytes], ...]:
        """Equal for two boundaries whose Python files are the same."""
        return tuple(sorted(self.files.items())) + tuple((m, b"") for m in self.absent)


def installed_pristine(site: Path, member: str) -> bytes:
    """The install's file as shipped, read without writing anything: the copy venv_patch keeps before patching,
    or the installed file itself where venv_patch never patched it."""
    backup = site / STATE_DIR_NAME / "pristine" / member
    if backup.is_file():
        return backup.read_bytes()
    manifest = site / STATE_DIR_NAME / "manifest.json"
    if manifest.is_file() and member in json.loads(manifest.read_text()):
        raise FragmentError(f"{site / member} was patched but its pristine copy {backup} is gone: reinstall torch")
    return (site / member).read_bytes()


def _python_member(upstream_path: str) -> str | None:
    member = wheel_member_of(upstream_path)
    return member if member is not None and is_front_end_python(member) else None


def boundaries(sources: Sources, site: Path) -> list[Boundary]:
    """One Boundary per topic, in series order, for the install at `site`."""
    edited = [(ff, m) for ff in sources.fragment_files if (m := _python_member(ff.upstream_path))]
    edited = [(ff, m) for ff, m in edited if (site / m).is_file()]
    added = [(nf, m) for nf in sources.new_files if (m := _python_member(nf.upstream_path))]
    originals = {m: installed_pristine(site, m) for _, m in edited}
    result = []
    for k, topic in enumerate(sources.topics):
        applied = [t.id for t in sources.topics[: k + 1]]
        files: dict[str, bytes] = {}
        for fragment_file, member in edited:
            ordered = tuple(f for t in applied for f in fragment_file.fragments if f.topic == t)
            text, _ = apply_fragments_to_text(originals[member].decode(), ordered, fragment_file.upstream_path)
            files[member] = text.encode()
        absent = []
        for new_file, member in added:
            if sources.topic_of_new_file(new_file.upstream_path) in applied:
                files[member] = new_file.source.read_bytes()
            else:
                absent.append(member)
        touches = any(f.topic == topic.id for ff, _ in edited for f in ff.fragments) or any(
            sources.topic_of_new_file(nf.upstream_path) == topic.id for nf, _ in added
        )
        result.append(Boundary(topic.id, touches, files, tuple(absent)))
    return result


def with_fragments_moved(sources: Sources, fragment_source: str, topic: str) -> Sources:
    """`sources` with every fragment of the fragment file `fragment_source` (relative to the sources root, as
    Fragment.source) assigned to `topic`: a different split of the same changes, the files on disk untouched."""
    if topic not in {t.id for t in sources.topics}:
        raise FragmentError(f"unknown topic {topic!r}")
    files = []
    found = False
    for ff in sources.fragment_files:
        if ff.fragments and ff.fragments[0].source == fragment_source:
            found = True
            ff = dataclasses.replace(ff, fragments=tuple(dataclasses.replace(f, topic=topic) for f in ff.fragments))
        files.append(ff)
    if not found:
        raise FragmentError(f"no fragment file {fragment_source}")
    return dataclasses.replace(sources, fragment_files=tuple(files))


def module_name(member: str) -> str:
    """torch/_refs/__init__.py -> torch._refs; torch/overrides.py -> torch.overrides."""
    stem = member[: -len(".py")] if member.endswith(".py") else member
    return stem.removesuffix("/__init__").replace("/", ".")


def write_shadow(boundary: Boundary, root: Path) -> Path:
    """The boundary's Python files under `root` at their wheel paths, and the list of modules to hide."""
    for member, content in boundary.files.items():
        if member.endswith(".py"):
            (root / member).parent.mkdir(parents=True, exist_ok=True)
            (root / member).write_bytes(content)
    root.mkdir(parents=True, exist_ok=True)
    hidden = sorted(module_name(m) for m in boundary.absent if m.endswith(".py"))
    (root / HIDDEN_LIST).write_text(json.dumps(hidden))
    return root

"""Apply the Python, yaml and header parts of the patch set to an installed torch/torchgen.

Pristine copies are kept beside the install, so each run starts from the shipped
files, a removed fragment is undone, and reruns change nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from scripts.layout import wheel_member_of
from scripts.overlay import legacy
from scripts.overlay.record import STATE_DIR_NAME
from scripts.patchset.fragments import FragmentError, Sources, apply_fragments_to_text, load_sources
from scripts.patchset.pin import DriftError, check_base_file, load_pin
from scripts.patchset.wheel_source import InstallGuardError, source_bytes


def site_packages_of(python: str) -> Path:
    code = "import sysconfig, torchgen; print(sysconfig.get_paths()['purelib'])"
    result = subprocess.run([python, "-c", code], capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"error: {python} cannot import torchgen:\n{result.stderr.strip()}")
    return Path(result.stdout.strip())


def torch_version_of(python: str) -> str:
    code = "import importlib.metadata as m; print(m.version('torch').split('+')[0])"
    return subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def pristine(site: Path, member: str) -> bytes:
    """The file as installed before we first patched it."""
    backup = site / STATE_DIR_NAME / "pristine" / member
    if not backup.is_file():
        backup.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(site / member, backup)
    return backup.read_bytes()


def atomic_write(path: Path, content: bytes) -> None:
    temporary = path.with_name(path.name + ".overlay-tmp")
    temporary.write_bytes(content)
    os.replace(temporary, path)


@dataclass
class Patched:
    contents: dict[str, bytes] = field(default_factory=dict)  # wheel member -> patched content
    skipped: list[str] = field(default_factory=list)  # one line per topic left out of the Python part, and why


def patched_contents(
    site: Path, sources: Sources, on_pin: bool, in_part: Callable[[str], bool], needed: frozenset[str] = frozenset()
) -> Patched:
    """Every file of the part that the patch set edits or adds. Off the pin, a topic with a Python fragment that
    does not apply has none of its Python fragments applied, and is reported, unless the file is `needed` (upstream
    paths). A topic's Python parts only work together: its _refs entry registers a decomposition that its inductor
    lowering takes over, and Inductor under CI=1 refuses an operator that has a decomposition and no lowering. So
    the install is shipped torch plus whole topics, never a state that no commit of the series has. A topic left
    out can take later ones with it (their anchors may be its lines): each round starts again from the shipped
    files without the topics left out so far, until every remaining one applies."""
    left_out: dict[str, str] = {}  # topic id -> why
    while True:
        patched, failed = _patched_without(site, sources, on_pin, in_part, needed, frozenset(left_out))
        if not failed:
            patched.skipped = [f"topic {topic}'s Python fragments left out: {why}" for topic, why in left_out.items()]
            return patched
        left_out |= failed


def _patched_without(
    site: Path, sources: Sources, on_pin: bool, in_part: Callable[[str], bool], needed: frozenset[str],
    left_out: frozenset[str],
) -> tuple[Patched, dict[str, str]]:
    """The part's files with every topic applied, less the Python fragments and files of `left_out`, and the topics
    whose Python fragments failed (-> why)."""
    pin = load_pin()
    patched = Patched()
    failed: dict[str, str] = {}
    for fragment_file in sources.fragment_files:
        member = wheel_member_of(fragment_file.upstream_path)
        if member is None or not in_part(member) or not (site / member).is_file():
            continue
        original = pristine(site, member)
        try:
            # The lock pins source text; the fragments go into the installed text, guard and all,
            # since their anchors are source lines that occur once in either.
            check_base_file(pin, fragment_file.upstream_path, source_bytes(original, fragment_file.upstream_path))
        except DriftError:
            if on_pin:
                raise
        text = original.decode()
        python = is_front_end_python(member)
        for topic in sources.topics:
            ordered = tuple(f for f in fragment_file.fragments if f.topic == topic.id)
            if not ordered or (python and topic.id in left_out):
                continue
            try:
                text, _ = apply_fragments_to_text(text, ordered, fragment_file.upstream_path)
            except FragmentError as error:
                if on_pin or not python or fragment_file.upstream_path in needed:
                    raise
                failed.setdefault(topic.id, str(error))
        patched.contents[member] = text.encode()
    for new_file in sources.new_files:
        member = wheel_member_of(new_file.upstream_path)
        if member is None or not in_part(member):
            continue
        if not (left_out and is_front_end_python(member) and sources.topic_of_new_file(new_file.upstream_path) in left_out):
            patched.contents[member] = new_file.source.read_bytes()
    return patched, failed


PYTHON_SUFFIXES = (".py", ".pyi")
# The code generator's own package: its Python is read by codegen, before any operator exists, like the yamls.
CODEGEN_PACKAGE = "torchgen/"


def is_front_end_python(member: str) -> bool:
    """A Python file of torch itself (imported at run time), as against the yamls, headers and torchgen's Python."""
    return member.endswith(PYTHON_SUFFIXES) and not member.startswith(CODEGEN_PACKAGE)


PARTS: dict[str, Callable[[str], bool]] = {
    # What codegen and the compiler read (yamls, headers, torchgen): must apply on every torch.
    "build": lambda member: not is_front_end_python(member),
    # Python front end: applied only once the operator library is installed, since it uses the new operators.
    "python": is_front_end_python,
    "all": lambda member: True,
}


def patch_install(site: Path, on_pin: bool, part: str = "all", needed: frozenset[str] = frozenset()) -> Patched:
    """Bring the install's files of `part` to 'shipped files + patch set'. Returns what changed
    (member -> new content) and the fragment files left out."""
    legacy.adopt_state_dir(site, STATE_DIR_NAME)
    state = site / STATE_DIR_NAME
    manifest = state / "manifest.json"
    in_part = PARTS[part]
    recorded = set(json.loads(manifest.read_text())) if manifest.is_file() else set()
    previous = {m for m in recorded if in_part(m)}
    patched = patched_contents(site, load_sources(), on_pin, in_part, needed)
    contents = dict(patched.contents)
    for member in sorted(previous - set(patched.contents)):
        backup = state / "pristine" / member
        if backup.is_file():
            contents[member] = backup.read_bytes()
        else:
            (site / member).unlink(missing_ok=True)
    changed = {m: c for m, c in sorted(contents.items()) if not (site / m).is_file() or (site / m).read_bytes() != c}
    for member, content in changed.items():
        (site / member).parent.mkdir(parents=True, exist_ok=True)
        atomic_write(site / member, content)
    state.mkdir(parents=True, exist_ok=True)
    atomic_write(manifest, json.dumps(sorted((recorded - previous) | set(patched.contents))).encode())
    return Patched(changed, patched.skipped)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose torch is patched")
    parser.add_argument("--part", choices=list(PARTS), default="all", help="which files: build inputs or Python")
    args = parser.parse_args()
    site = site_packages_of(args.python)
    pin = load_pin()
    version = torch_version_of(args.python)
    on_pin = version == pin.version
    if not on_pin:
        print(f"warning: {args.python} has torch {version}, not the pinned {pin.version}; anchors decide", file=sys.stderr)
    try:
        result = patch_install(site, on_pin, args.part)
    except (FragmentError, DriftError, InstallGuardError) as error:
        sys.exit(f"venv patch: error: {error}")
    for line in result.skipped:
        print(f"venv patch: skipped {line}", file=sys.stderr)
    print(f"venv patch: {len(result.contents)} files updated in {site}" + "".join(f"\n  {m}" for m in result.contents))


if __name__ == "__main__":
    main()

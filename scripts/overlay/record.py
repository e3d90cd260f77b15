"""What the install holds: content digests of a build's inputs and of the files it installed.

A build whose inputs and installed files match the record of the last successful one has
nothing to do; a failed build reads the record to say what is still installed.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from scripts.layout import REPO_ROOT, SOURCE_FOLDERS

STATE_DIR_NAME = ".native-overlay"
RECORD_NAME = "installed.json"
# The tools whose code decides what gets built and installed (besides scripts/overlay/).
# The tools outside scripts/overlay (which is digested whole) that decide what a build installs.
TOOL_FILES = ("scripts/patchset/fragments.py", "scripts/patchset/native_ops.py", "scripts/patchset/pin.py",
              "scripts/patchset/wheel_source.py", "scripts/layout.py", "scripts/tomlcompat.py", "topics.toml", "pytorch.lock")


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def files_digest(paths: Iterable[Path], root: Path) -> str:
    """One digest of the names (relative to root) and contents of `paths`."""
    digest = hashlib.sha256()
    for path in sorted(set(paths)):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + file_digest(path).encode() + b"\0")
    return digest.hexdigest()


def tree_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return [p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts]


def source_files() -> list[Path]:
    folders = [*SOURCE_FOLDERS, "scripts/overlay"]
    return [p for f in folders for p in tree_files(REPO_ROOT / f)] + [REPO_ROOT / t for t in TOOL_FILES]


def inputs_digest(settings: dict[str, object]) -> str:
    """The sources, the tools and the build's settings (interpreter, torch, options)."""
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode())
    digest.update(files_digest(source_files(), REPO_ROOT).encode())
    return digest.hexdigest()


def installed_digest(site: Path, installed: Iterable[str]) -> str:
    """The installed files (relative to site) as they are now, by content."""
    files = [p for relative in installed for p in ([site / relative] if (site / relative).is_file()
                                                   else tree_files(site / relative))]
    return files_digest(files, site)


@dataclass
class Record:
    inputs: str
    installed: str
    torch: str
    built_at: str = field(default_factory=lambda: time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    commit: str = field(default_factory=lambda: source_commit())
    skipped_fragments: list[str] = field(default_factory=list)

    def describe(self) -> str:
        skipped = f", {len(self.skipped_fragments)} topic(s) left out of the Python part" if self.skipped_fragments else ""
        return f"torch {self.torch} with the native-operator overlay built {self.built_at} from {self.commit}{skipped}"


def source_commit() -> str:
    result = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=REPO_ROOT, capture_output=True, text=True)
    return f"commit {result.stdout.strip()}" if result.returncode == 0 and result.stdout.strip() else "these sources"


def record_path(site: Path) -> Path:
    return site / STATE_DIR_NAME / RECORD_NAME


def read_record(site: Path) -> Record | None:
    path = record_path(site)
    try:
        return Record(**json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        return None


def write_record(site: Path, record: Record) -> None:
    path = record_path(site)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(asdict(record), indent=1) + "\n")
    temporary.replace(path)

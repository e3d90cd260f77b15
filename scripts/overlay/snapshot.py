"""Everything a build may change in an install, copied aside so that a failed build puts it all back.

Copies, not hard links: anything that writes a file in place would change a linked snapshot too.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable
from pathlib import Path

from scripts.overlay.legacy import LEGACY_ROLLBACK_STORES

STORE_NAME = ".native-overlay-rollback"


def files_under(site: Path, root: str) -> list[str]:
    path = site / root
    if path.is_file() or path.is_symlink():
        return [root]
    if not path.is_dir():
        return []
    return sorted(p.relative_to(site).as_posix() for p in path.rglob("*") if p.is_file() or p.is_symlink())


def keep_aside(source: Path, kept: Path) -> None:
    kept.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, kept, follow_symlinks=False)


class Snapshot:
    """The files under `roots` (paths relative to `site`, files or folders) as they are now."""

    def __init__(self, site: Path) -> None:
        self.site = site
        self.store = site / STORE_NAME

    @classmethod
    def take(cls, site: Path, roots: Iterable[str]) -> Snapshot:
        snapshot = cls(site)
        shutil.rmtree(snapshot.store, ignore_errors=True)
        roots = sorted(set(roots))
        files = [f for root in roots for f in files_under(site, root)]
        for relative in files:
            keep_aside(site / relative, snapshot.store / "files" / relative)
        absent = sorted({str(parent) for root in roots for parent in Path(root).parents
                         if parent != Path(".") and not (site / parent).exists()})
        (snapshot.store / "index.json").write_text(json.dumps({"roots": roots, "files": files, "absent": absent}))
        return snapshot

    @classmethod
    def interrupted(cls, site: Path) -> Snapshot | None:
        """The snapshot of a build that never finished (killed), if there is one."""
        for name in (STORE_NAME, *LEGACY_ROLLBACK_STORES):  # an earlier layout's, too
            snapshot = cls(site)
            snapshot.store = site / name
            if (snapshot.store / "index.json").is_file():
                return snapshot
        return None

    def restore(self) -> None:
        index = json.loads((self.store / "index.json").read_text())
        kept = set(index["files"])
        for root in index["roots"]:
            for relative in files_under(self.site, root):
                if relative not in kept:
                    (self.site / relative).unlink()
            remove_empty_folders(self.site / root)
        # Folders the build created for new files (torch/include/... of a new header) go too.
        for folder in sorted(index.get("absent", []), key=lambda f: -len(Path(f).parts)):
            if (self.site / folder).is_dir() and not any((self.site / folder).iterdir()):
                (self.site / folder).rmdir()
        for relative in index["files"]:
            target = self.site / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(self.store / "files" / relative, target)
        self.discard()

    def discard(self) -> None:
        shutil.rmtree(self.store, ignore_errors=True)


def remove_empty_folders(path: Path) -> None:
    if not path.is_dir() or path.is_symlink():
        return
    for folder in sorted((d for d in path.rglob("*") if d.is_dir()), key=lambda d: -len(d.parts)):
        if not any(folder.iterdir()):
            folder.rmdir()
    if not any(path.iterdir()):
        path.rmdir()

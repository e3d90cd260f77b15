"""Installs made before the overlay's names became operator-neutral, and how a build takes them over.

Earlier builds installed the loader package named in LEGACY_PACKAGES, hooked it into torch/__init__.py, and kept their
bookkeeping (pristine copies, the manifest of patched files, the build record) in LEGACY_STATE_DIRS. A build adopts
that bookkeeping (the pristine copies are the shipped files, which the install no longer has), drops the old hook
and package, and installs its own; all of it inside the build's snapshot, so a failed build puts the old layout back.
These are names of old installs, not of an operator: nothing else in the tools names one.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

LEGACY_PACKAGES = ("_torch_cbrt_overlay",)
LEGACY_STATE_DIRS = (".cbrt-overlay",)
LEGACY_ROLLBACK_STORES = (".cbrt-overlay-rollback",)


def legacy_hooks() -> tuple[str, ...]:
    from scripts.overlay.install import HOOK, PACKAGE

    return tuple(HOOK.replace(PACKAGE, name, 1) for name in LEGACY_PACKAGES)


def paths(site: Path) -> list[str]:
    """What a build may change of an earlier layout (relative to site): roots of the build's snapshot."""
    return [name for name in (*LEGACY_PACKAGES, *LEGACY_STATE_DIRS) if (site / name).exists()]


def adopt_state_dir(site: Path, state_dir: str) -> bool:
    """Move an earlier layout's bookkeeping to `state_dir` unless it exists already. True when it moved."""
    if (site / state_dir).exists():
        return False
    for name in LEGACY_STATE_DIRS:
        if (site / name).is_dir():
            os.replace(site / name, site / state_dir)
            return True
    return False


def unhooked(init_text: str) -> str:
    """torch/__init__.py without an earlier layout's import line."""
    hooks = legacy_hooks()
    return "".join(line for line in init_text.splitlines(keepends=True) if line not in hooks)


def remove_packages(site: Path) -> None:
    for name in LEGACY_PACKAGES:
        if (site / name).is_dir():
            shutil.rmtree(site / name)

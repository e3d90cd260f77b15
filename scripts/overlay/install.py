#!/usr/bin/env python3
"""Install the overlay loader into a site-packages and hook it into torch.

  <site-packages>/_torch_native_overlay/__init__.py  <- scripts/overlay/torch_native_overlay.py
  <site-packages>/torch/__init__.py                <- one import line after the anchor

Build the shared objects into <site-packages>/_torch_native_overlay with
-DOVERLAY_OUTPUT_DIR first: the hook is refused without them.  Idempotent; files are replaced (never written through
a symlink) and only when their content changes.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from scripts.overlay import legacy

PACKAGE = "_torch_native_overlay"
LOADER = Path(__file__).resolve().parent / "torch_native_overlay.py"
# After torch._C is initialised and before torch copies _C._VariableFunctions
# into its namespace (and long before torch._prims / torch._refs).
ANCHOR_PREFIX = "_C._initExtension(_manager_path())"
HOOK = f"import {PACKAGE}  # noqa: F401  operator overlay: registers and binds the new ATen ops\n"
KEY_LINE = 'CONTENT_KEY = "unset"\n'


class HookError(RuntimeError):
    pass


def replace_if_changed(path: Path, text: str) -> bool:
    if path.is_file() and not path.is_symlink() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".overlay-tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return True


def hooked(init_text: str, init_path: Path) -> str:
    lines = init_text.splitlines(keepends=True)
    anchors = [i for i, line in enumerate(lines) if line.startswith(ANCHOR_PREFIX)]
    if len(anchors) != 1:
        raise HookError(f"{init_path}: expected exactly one line starting with {ANCHOR_PREFIX!r}, found {len(anchors)}")
    at = anchors[0] + 1
    if lines[at : at + 1] == [HOOK]:
        return init_text
    if any(line == HOOK for line in lines):
        raise HookError(f"{init_path}: overlay hook present but not right after the anchor")
    return "".join(lines[:at] + [HOOK] + lines[at:])


def loader_text(content_key: str) -> str:
    """The loader, keyed by the build's content (it names torch.compile's cache folder after it)."""
    text = LOADER.read_text(encoding="utf-8")
    if text.count(KEY_LINE) != 1 or not content_key.isalnum():
        raise HookError(f"{LOADER}: expected one line {KEY_LINE.strip()!r} and an alphanumeric key, got {content_key!r}")
    return text.replace(KEY_LINE, f'CONTENT_KEY = "{content_key}"\n')


def install(site_packages: Path, content_key: str) -> list[Path]:
    init = site_packages / "torch" / "__init__.py"
    if not init.is_file():
        raise HookError(f"{init} not found")
    # Without the built extension the hook would break `import torch` itself.
    if not any((site_packages / PACKAGE).glob(f"{PACKAGE}_C*.so")):
        raise HookError(f"no {PACKAGE}_C*.so in {site_packages / PACKAGE}: build it there first (-DOVERLAY_OUTPUT_DIR)")
    changed = []
    loader = site_packages / PACKAGE / "__init__.py"
    if replace_if_changed(loader, loader_text(content_key)):
        changed.append(loader)
    if replace_if_changed(init, hooked(legacy.unhooked(init.read_text(encoding="utf-8")), init)):
        changed.append(init)
    legacy.remove_packages(site_packages)
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("site_packages", type=Path, help="the venv's site-packages holding torch/")
    p.add_argument("--content-key", default="manual", help="names torch.compile's cache folder (default: manual)")
    args = p.parse_args(argv)
    try:
        changed = install(args.site_packages, args.content_key)
    except HookError as e:
        print(f"overlay_install: {e}", file=sys.stderr)
        return 1
    print(f"overlay_install: {len(changed)} file(s) updated" + "".join(f"\n  {c}" for c in changed))
    return 0


if __name__ == "__main__":
    sys.exit(main())

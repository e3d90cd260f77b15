"""Installing the overlay loader: one hook line after a unique anchor, idempotent, never through a symlink."""

from __future__ import annotations

from pathlib import Path

import pytest

import scripts.overlay.install as overlay_install
from scripts.overlay import legacy
from scripts.overlay.record import STATE_DIR_NAME

INIT = """\
import os
_C._initExtension(_manager_path())  # pyrefly: ignore[bad-argument-type]

del _manager_path
"""


@pytest.fixture
def site(tmp_path: Path) -> Path:
    init = tmp_path / "torch" / "__init__.py"
    init.parent.mkdir(parents=True)
    init.write_text(INIT)
    built = tmp_path / "_torch_native_overlay" / "_torch_native_overlay_C.cpython-311-x86_64-linux-gnu.so"
    built.parent.mkdir()
    built.write_bytes(b"")
    return tmp_path


def test_inserts_hook_after_anchor_once(site: Path) -> None:
    changed = overlay_install.install(site, "k1")
    assert changed == [site / "_torch_native_overlay" / "__init__.py", site / "torch" / "__init__.py"]
    lines = (site / "torch" / "__init__.py").read_text().splitlines(keepends=True)
    assert lines[2] == overlay_install.HOOK
    assert overlay_install.install(site, "k1") == []
    assert (site / "torch" / "__init__.py").read_text().count(overlay_install.HOOK) == 1


def test_refuses_to_hook_before_the_extension_is_built(site: Path) -> None:
    for built in (site / "_torch_native_overlay").glob("*.so"):
        built.unlink()
    with pytest.raises(overlay_install.HookError, match="build it there first"):
        overlay_install.install(site, "k1")
    assert overlay_install.HOOK not in (site / "torch" / "__init__.py").read_text()


def test_missing_or_duplicated_anchor_fails(site: Path) -> None:
    init = site / "torch" / "__init__.py"
    init.write_text("import os\n")
    with pytest.raises(overlay_install.HookError, match="found 0"):
        overlay_install.install(site, "k1")
    init.write_text(INIT + INIT)
    with pytest.raises(overlay_install.HookError, match="found 2"):
        overlay_install.install(site, "k1")


def test_misplaced_hook_fails(site: Path) -> None:
    (site / "torch" / "__init__.py").write_text(overlay_install.HOOK + INIT)
    with pytest.raises(overlay_install.HookError, match="not right after"):
        overlay_install.install(site, "k1")


def test_replaces_a_symlink_instead_of_writing_through_it(site: Path, tmp_path: Path) -> None:
    shipped = tmp_path / "shipped_init.py"
    init = site / "torch" / "__init__.py"
    init.rename(shipped)
    init.symlink_to(shipped)
    overlay_install.install(site, "k1")
    assert not init.is_symlink()
    assert shipped.read_text() == INIT


def test_the_installed_loader_carries_the_builds_key_and_a_new_key_rewrites_it(site: Path) -> None:
    overlay_install.install(site, "k1")
    loader = site / "_torch_native_overlay" / "__init__.py"
    assert 'CONTENT_KEY = "k1"\n' in loader.read_text()
    assert overlay_install.install(site, "k2") == [loader]
    assert 'CONTENT_KEY = "k2"\n' in loader.read_text() and "k1" not in loader.read_text()


def test_a_key_that_is_not_alphanumeric_is_refused(site: Path) -> None:
    with pytest.raises(overlay_install.HookError, match="alphanumeric key"):
        overlay_install.install(site, "../x")


def test_an_install_of_the_earlier_layout_is_taken_over(site: Path) -> None:
    """The hook and package of an overlay installed before the names became operator-neutral make way for ours."""
    (old,) = legacy.LEGACY_PACKAGES
    (old_hook,) = legacy.legacy_hooks()
    init = site / "torch" / "__init__.py"
    init.write_text(INIT.replace("\n\n", "\n" + old_hook + "\n", 1))
    (site / old).mkdir()
    (site / old / "__init__.py").write_text("")
    overlay_install.install(site, "k1")
    lines = init.read_text().splitlines(keepends=True)
    assert lines[2] == overlay_install.HOOK and old_hook not in lines
    assert not (site / old).exists()


def test_the_earlier_layouts_bookkeeping_is_adopted_once(tmp_path: Path) -> None:
    (old,) = legacy.LEGACY_STATE_DIRS
    (tmp_path / old / "pristine").mkdir(parents=True)
    (tmp_path / old / "pristine" / "shipped.py").write_text("shipped")
    assert legacy.adopt_state_dir(tmp_path, STATE_DIR_NAME)
    assert (tmp_path / STATE_DIR_NAME / "pristine" / "shipped.py").read_text() == "shipped"
    assert not (tmp_path / old).exists()
    (tmp_path / old).mkdir()
    assert not legacy.adopt_state_dir(tmp_path, STATE_DIR_NAME)  # ours exists: never overwritten

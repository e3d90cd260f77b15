"""Patching an install: from pristine files every time, idempotent, and undone when a fragment goes away."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import NATIVE_FUNCTIONS, write

import scripts.overlay.venv_patch as venv_patch
from scripts.patchset.fragments import load_sources

YAML_MEMBER = "torchgen/packaged/ATen/native/native_functions.yaml"


@pytest.fixture
def site(tmp_path: Path) -> Path:
    site = tmp_path / "site-packages"
    write(site / YAML_MEMBER, NATIVE_FUNCTIONS)
    return site


def use_sources(monkeypatch: pytest.MonkeyPatch, root: Path) -> None:
    monkeypatch.setattr(venv_patch, "load_sources", lambda: load_sources(root))


def test_patches_the_shipped_yaml_once(site: Path, sources_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_sources(monkeypatch, sources_root)
    assert list(venv_patch.patch_install(site, on_pin=False).contents) == [YAML_MEMBER]
    assert "- func: cbrt(Tensor self) -> Tensor" in (site / YAML_MEMBER).read_text()
    assert venv_patch.patch_install(site, on_pin=False).contents == {}


def test_removed_fragment_restores_the_pristine_file(
    site: Path, sources_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_sources(monkeypatch, sources_root)
    venv_patch.patch_install(site, on_pin=False)
    (sources_root / "aten_native/aten/src/ATen/native/native_functions.yaml.fragments.toml").unlink()
    venv_patch.patch_install(site, on_pin=False)
    assert (site / YAML_MEMBER).read_text() == NATIVE_FUNCTIONS


def test_off_the_pin_a_yaml_fragment_must_still_apply(
    site: Path, sources_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_sources(monkeypatch, sources_root)
    write(
        sources_root / "aten_native/aten/src/ATen/native/native_functions.yaml.fragments.toml",
        "[[fragment]]\ntopic = 'one'\nwhere = 'before'\nanchor = 'missing line'\ntext = 'x'\n",
    )
    with pytest.raises(Exception, match="anchor 'missing line' not found"):
        venv_patch.patch_install(site, on_pin=False)
    assert (site / YAML_MEMBER).read_text() == NATIVE_FUNCTIONS

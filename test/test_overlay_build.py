"""`make overlay` refuses interpreters it cannot build for, with a message that says what to do."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from scripts.overlay_build import PACKAGE, StepError, install_libraries, probe, settle_libraries


def test_a_missing_interpreter_is_named(tmp_path: Path) -> None:
    with pytest.raises(StepError, match="does not exist; pass an interpreter that has torch installed"):
        probe(str(tmp_path / "no-python"))


def test_an_interpreter_without_torch_is_refused(tmp_path: Path) -> None:
    bare = tmp_path / "bare-python"
    bare.write_text(f"#!/bin/sh\nexec {sys.executable} -I -S \"$@\"\n")
    bare.chmod(0o755)
    with pytest.raises(StepError, match="cannot import torch and torchgen; install torch there first"):
        probe(str(bare))


def test_the_venv_interpreter_is_accepted() -> None:
    site, version = probe(sys.executable)
    assert (site / "torch").is_dir() and version.startswith("2.")


def built_and_installed(tmp_path: Path, old: bytes, new: bytes) -> tuple[Path, Path]:
    build, site = tmp_path / "build", tmp_path / "site"
    (build / "lib").mkdir(parents=True)
    (site / PACKAGE).mkdir(parents=True)
    (site / PACKAGE / "libtorch_cbrt_overlay.so").write_bytes(old)
    (build / "lib" / "libtorch_cbrt_overlay.so").write_bytes(new)
    install_libraries(build, site)
    return site / PACKAGE / "libtorch_cbrt_overlay.so", site


def test_a_library_that_fails_to_load_gives_way_to_the_previous_one(tmp_path: Path) -> None:
    installed, site = built_and_installed(tmp_path, b"working", b"undefined symbol")
    assert installed.read_bytes() == b"undefined symbol"
    settle_libraries(site, keep_new=False)
    assert installed.read_bytes() == b"working"
    assert sorted(p.name for p in installed.parent.iterdir()) == ["libtorch_cbrt_overlay.so"]


def test_a_library_that_loads_replaces_the_previous_one_for_good(tmp_path: Path) -> None:
    installed, site = built_and_installed(tmp_path, b"old", b"new")
    settle_libraries(site, keep_new=True)
    assert installed.read_bytes() == b"new"
    assert sorted(p.name for p in installed.parent.iterdir()) == ["libtorch_cbrt_overlay.so"]

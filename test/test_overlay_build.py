"""`make overlay` refuses interpreters it cannot build for, with a message that says what to do."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from scripts.overlay_build import StepError, probe


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

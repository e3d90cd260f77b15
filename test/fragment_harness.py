"""Upstream test fragments run here: their added lines, read from the fragment file of an upstream test file."""

from __future__ import annotations

from pathlib import Path

from scripts.layout import REPO_ROOT
from scripts.patchset.fragments import load_fragment_file


def fragment_file(upstream_path: str) -> Path:
    return REPO_ROOT / "test" / "upstream" / (upstream_path + ".fragments.toml")


def added_lines(upstream_path: str) -> list[str]:
    """Every line the fragments of `upstream_path` add, in fragment order."""
    fragments = load_fragment_file(fragment_file(upstream_path), REPO_ROOT, upstream_path).fragments
    return [line for fragment in fragments for line in fragment.text]

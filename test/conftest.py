"""Shared fixtures: small source roots and git trees shaped like PyTorch."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scripts.gitutil import FIXED_IDENTITY, git  # noqa: E402

TOPICS = """
[[topic]]
id = "one"
subject = "[ATen] first topic"
body = "Adds the op."
files = ["aten/src/ATen/native/New.cpp"]

[[topic]]
id = "two"
subject = "[docs] second topic"
body = "Documents the op."
"""

NATIVE_FUNCTIONS = """\
- func: sqrt(Tensor self) -> Tensor
  variants: function, method

- func: square(Tensor self) -> Tensor
  variants: function, method
"""

DOCS_LISTING = """\
Pointwise Ops
    sign
    sqrt
    square
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def fragment_toml(topic: str, where: str, anchor: str, text: str) -> str:
    return f"[[fragment]]\ntopic = \"{topic}\"\nwhere = \"{where}\"\nanchor = '''\n{anchor}'''\ntext = '''\n{text}'''\n"


@pytest.fixture
def sources_root(tmp_path: Path) -> Path:
    """A minimal patch set: a new file and a yaml fragment (topic one), a docs fragment (topic two)."""
    root = tmp_path / "sources"
    write(root / "topics.toml", TOPICS)
    write(root / "aten_native/aten/src/ATen/native/New.cpp", "// new file\n")
    write(
        root / "aten_native/aten/src/ATen/native/native_functions.yaml.fragments.toml",
        fragment_toml("one", "before", "- func: square(Tensor self) -> Tensor\n", "- func: cbrt(Tensor self) -> Tensor\n\n"),
    )
    write(
        root / "docs/upstream/docs/source/torch.md.fragments.toml",
        'alternatives = ["docs/source/torch.rst"]\n' + fragment_toml("two", "after", "    sqrt\n", "    cbrt\n"),
    )
    return root


def make_checkout(path: Path, docs_name: str = "torch.md") -> Path:
    write(path / "aten/src/ATen/native/native_functions.yaml", NATIVE_FUNCTIONS)
    write(path / f"docs/source/{docs_name}", DOCS_LISTING)
    git(path.parent, "init", "-q", "-b", "main", str(path))
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "upstream", env=FIXED_IDENTITY)
    return path


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    return make_checkout(tmp_path / "pytorch")

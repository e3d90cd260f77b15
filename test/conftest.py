"""Shared fixtures: small source roots and git trees shaped like PyTorch."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scripts.gitutil import FIXED_IDENTITY, git  # noqa: E402
from scripts.patchset.fragments import FragmentFile, Sources  # noqa: E402

# The identity git config gives every test's git commands (GIT_CONFIG_COUNT outranks the user's files):
# `make apply` and `make pr` commit under the user's configured name.
TEST_USER = ("Ada Reviewer", "ada@example.com")

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


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the exhaustive proofs that take minutes of CPU (the float32 sweep, the identity digests) now, so that
    they run beside the other tests instead of after them."""
    files = {item.path.name for item in session.items}
    if "test_cpu_capabilities.py" in files:
        import capability_runs

        capability_runs.start()
    if files & {"test_accuracy.py", "test_readme.py"} and any("float32" in item.name for item in session.items):
        import accuracy_runs

        accuracy_runs.start_in_background("float32")


@pytest.fixture(autouse=True)
def configured_git_user(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_COUNT", "2")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "user.name")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", TEST_USER[0])
    monkeypatch.setenv("GIT_CONFIG_KEY_1", "user.email")
    monkeypatch.setenv("GIT_CONFIG_VALUE_1", TEST_USER[1])


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


def fixture_text_for(fragment_file: FragmentFile) -> str:
    """A stand-in for a file the wheel lacks: filler around each of its fragments' anchors.

    An anchor that is a block of lines another fragment adds (a later commit building on an earlier one) is not
    upstream content, so it is left out; an anchor two fragments share is written once.
    """

    def block(lines: tuple[str, ...] | list[str]) -> str:
        return "\n" + "\n".join(lines) + "\n"

    blocks = ["# upstream content before"]
    written: set[tuple[str, ...]] = set()
    for fragment in fragment_file.fragments:
        added_by_others = [block(other.text) for other in fragment_file.fragments if other is not fragment]
        if tuple(fragment.anchor) in written or any(block(fragment.anchor) in text for text in added_by_others):
            continue
        written.add(tuple(fragment.anchor))
        blocks += [*fragment.anchor, "# upstream content between"]
    return "\n".join(blocks) + "\n"


def checkout_shaped_tree(path: Path, sources: Sources) -> Path:
    """The base made from the wheel, plus fixture files holding the anchors of the files the wheel lacks."""
    from scripts.patchset.base import build_base

    git(path.parent, "clone", "-q", str(build_base()), str(path))
    for fragment_file in sources.fragment_files:
        if fragment_file.target_in(path) is None:
            write(path / fragment_file.upstream_path, fixture_text_for(fragment_file))
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "fixture files the wheel lacks", env=FIXED_IDENTITY)
    return path

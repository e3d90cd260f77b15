"""Shared fixtures: small source roots and git trees shaped like PyTorch."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# Every session compiles as a fresh CI machine does. Inductor's on-disk caches would let a graph compiled by an
# earlier run skip its lowering here (the overlay's loader keys its subfolder of this one by build). CI=1 is what
# PyTorch's CI sets: Inductor then refuses an implicit fallback for an operator that has a decomposition, which it
# only warns about elsewhere.
INDUCTOR_CACHE = tempfile.mkdtemp(prefix="inductor-cache-")
os.environ["TORCHINDUCTOR_CACHE_DIR"] = INDUCTOR_CACHE
os.environ.setdefault("CI", "1")

from scripts.gitutil import FIXED_IDENTITY, git  # noqa: E402
from scripts.patchset.fragments import Sources  # noqa: E402

# The identity git config gives every test's git commands (GIT_CONFIG_COUNT outranks the user's files):
# `make apply` and `make pr` commit under the user's configured name.
TEST_USER = ("Ada Reviewer", "ada@example.com")

TOPICS = """
[[topic]]
id = "one"
stack = "cbrt"
subject = "[ATen] first topic"
body = "Adds the op."
files = ["aten/src/ATen/native/New.cpp"]

[[topic]]
id = "two"
stack = "cbrt"
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


SLOW = ("slow: the exhaustive proofs (every float32 input, the full accuracy sweeps) and the cross-architecture "
        "builds; `make test` leaves them out, `make test-slow` runs them, and CI runs both")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", SLOW)


def pytest_unconfigure(config: pytest.Config) -> None:
    """The session's Inductor cache goes with it: each run would otherwise leave one in the temp folder."""
    shutil.rmtree(INDUCTOR_CACHE, ignore_errors=True)


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


def checkout_shaped_tree(path: Path, sources: Sources) -> Path:
    """A clone of the base made from the wheel: its files, plus the fixtures of the recorded upstream context of
    the files it lacks (scripts/patchset/base.py), on branch main."""
    from scripts.patchset.base import build_base

    git(path.parent, "clone", "-q", str(build_base()), str(path))
    missing = [ff.upstream_path for ff in sources.fragment_files if ff.target_in(path) is None]
    assert not missing, f"the base lacks {missing}"
    return path

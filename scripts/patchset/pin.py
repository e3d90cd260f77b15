"""The pin: which PyTorch the patch set targets, and the checksums of the base files it edits."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from scripts import tomlcompat as tomllib
from scripts.layout import REPO_ROOT

LOCK_FILE = REPO_ROOT / "pytorch.lock"


class DriftError(RuntimeError):
    """A base file is not the one the lock pins."""


@dataclass(frozen=True)
class Pin:
    version: str
    commit: str
    wheel: str
    base_sha256: dict[str, str] = field(default_factory=dict)
    # Files the wheel does not ship: the base holds a fixture made of the fragments' recorded upstream context.
    # fixture_sha256 pins that fixture; fixture_checked_at names the pytorch/pytorch commit whose stored copy of
    # the file the context was checked against (near v2.14.1: the pin's own copy is not reachable from here).
    fixture_sha256: dict[str, str] = field(default_factory=dict)
    fixture_checked_at: dict[str, str] = field(default_factory=dict)

    @property
    def short_commit(self) -> str:
        return self.commit[:7]


def load_pin(lock_file: Path = LOCK_FILE) -> Pin:
    data = tomllib.loads(lock_file.read_text())
    return Pin(
        version=data["version"],
        commit=data["commit"],
        wheel=data["wheel"],
        base_sha256=dict(data.get("base_sha256", {})),
        fixture_sha256=dict(data.get("fixture_sha256", {})),
        fixture_checked_at=dict(data.get("fixture_checked_at", {})),
    )


def sha256_of(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def check_base_file(pin: Pin, upstream_path: str, content: bytes) -> None:
    """Fail when a pinned base file differs from the pin, so stale anchors are not trusted.

    `content` is source text (scripts/patchset/wheel_source.py), as upstream has the file: an installed
    header is checked with its install-time guard taken off.
    """
    expected = pin.base_sha256.get(upstream_path)
    if expected is None:
        return
    actual = sha256_of(content)
    if actual != expected:
        raise DriftError(
            f"{upstream_path}: sha256 {actual[:12]}... differs from pytorch.lock's "
            f"{expected[:12]}... (PyTorch {pin.version}). The wheel is not the pinned one: "
            f"install {pin.wheel}, or re-pin with `python -m scripts.patchset.pin --update` after "
            "checking every fragment against the new file."
        )


def check_fixture(pin: Pin, upstream_path: str, content: bytes) -> None:
    """Fail when a fixture's recorded context is not the one pytorch.lock says was checked against upstream."""
    expected, checked_at = pin.fixture_sha256.get(upstream_path), pin.fixture_checked_at.get(upstream_path)
    actual = sha256_of(content)
    if expected == actual and checked_at:
        return
    raise DriftError(
        f"{upstream_path}: the upstream context its fragments record (fixture sha256 {actual[:12]}...) is not the one "
        f"pytorch.lock pins ({(expected or 'none')[:12]}...). Check context_before/context_after against upstream's "
        "file (a checkout at the pin, or pytorch/pytorch's copy), then run `python -m scripts.patchset.pin --update` "
        "and set fixture_checked_at to the commit you checked against."
    )


def lock_table(comment: list[str], name: str, entries: dict[str, str]) -> list[str]:
    """One table of pytorch.lock: its comment lines, its header, then its entries sorted by path."""
    return ["", *(f"# {line}" for line in comment), f"[{name}]", *(f'"{k}" = "{v}"' for k, v in sorted(entries.items()))]


def render_lock(pin: Pin) -> str:
    lines = [
        "# The PyTorch this patch set targets. `python -m scripts.patchset.pin --update` refreshes base_sha256.",
        f'version = "{pin.version}"',
        f'commit = "{pin.commit}"',
        f'wheel = "{pin.wheel}"',
    ]
    lines += lock_table([
        "sha256 of the source text of every pinned base file that a fragment edits (the wheel's file,",
        "its install-time header guard taken off: scripts/patchset/wheel_source.py).",
    ], "base_sha256", pin.base_sha256)
    lines += lock_table([
        "Files the wheel does not ship. The base holds, for each, a fixture made of the upstream context its",
        "fragments record (context_before/context_after, docs/FRAGMENTS.md); this is that fixture's sha256, so a",
        "changed context fails `make base` until it is checked against upstream again.",
    ], "fixture_sha256", pin.fixture_sha256)
    lines += lock_table([
        "The commit whose copy of each of those files the recorded context was checked against: pytorch/pytorch's",
        "(the stored copy nearest v2.14.1 that could be read; the files are not in the wheel), or for test/test_ops.py",
        "the cyyever/pytorch fork's, since pytorch/pytorch's stored copy predates the test the context is from.",
    ], "fixture_checked_at", pin.fixture_checked_at)
    return "\n".join(lines) + "\n"


def main() -> None:
    import argparse

    from scripts.patchset.fragments import load_sources
    from scripts.patchset.wheel import TorchWheel

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--update", action="store_true", help="rewrite base_sha256 from the wheel's source text")
    args = parser.parse_args()
    pin = load_pin()
    if not args.update:
        print(render_lock(pin), end="")
        return
    wheel = TorchWheel.fetch(pin)
    digests = {
        path: sha256_of(content)
        for path in load_sources().edited_upstream_paths()
        if (content := wheel.read_upstream(path)) is not None
    }
    fixtures = {
        ff.upstream_path: sha256_of(ff.fixture_text().encode())
        for ff in load_sources().fragment_files
        if all(wheel.read_upstream(path) is None for path in (ff.upstream_path, *ff.alternatives))
    }
    checked_at = {path: pin.fixture_checked_at.get(path, "unchecked") for path in fixtures}
    LOCK_FILE.write_text(render_lock(Pin(pin.version, pin.commit, pin.wheel, digests, fixtures, checked_at)))
    print(f"pytorch.lock: {len(digests)} base files and {len(fixtures)} fixtures pinned")


if __name__ == "__main__":
    main()

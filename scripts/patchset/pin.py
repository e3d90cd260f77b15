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


def render_lock(pin: Pin) -> str:
    lines = [
        "# The PyTorch this patch set targets. `python -m scripts.patchset.pin --update` refreshes base_sha256.",
        f'version = "{pin.version}"',
        f'commit = "{pin.commit}"',
        f'wheel = "{pin.wheel}"',
        "",
        "# sha256 of the source text of every pinned base file that a fragment edits (the wheel's file,",
        "# its install-time header guard taken off: scripts/patchset/wheel_source.py).",
        "[base_sha256]",
    ]
    lines += [f'"{path}" = "{digest}"' for path, digest in sorted(pin.base_sha256.items())]
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
    LOCK_FILE.write_text(render_lock(Pin(pin.version, pin.commit, pin.wheel, digests)))
    print(f"pytorch.lock: {len(digests)} base files pinned")


if __name__ == "__main__":
    main()

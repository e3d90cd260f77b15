"""`make base`: the pinned PyTorch files that the wheel ships, at upstream paths, as a one-commit git repo."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from scripts.fragments import load_sources
from scripts.gitutil import FIXED_IDENTITY, git, head_commit, is_git_repo
from scripts.layout import REPO_ROOT
from scripts.pin import Pin, check_base_file, load_pin
from scripts.wheel import TorchWheel

BASE_DIR = REPO_ROOT / "build" / "base"
STAMP_NAME = ".cbrt-base-stamp"


def base_message(pin: Pin) -> str:
    return (
        f"PyTorch v{pin.version} ({pin.short_commit}), files shipped in the {pin.wheel} wheel\n\n"
        f"Upstream commit {pin.commit}. Only the files the wheel carries are here,\n"
        "at their upstream paths; see scripts/layout.py for the mapping.\n"
    )


def _stamp(pin: Pin, wheel: TorchWheel) -> str:
    return f"{pin.commit} {wheel.path.name} {wheel.path.stat().st_size}\n"


def build_base(destination: Path = BASE_DIR) -> Path:
    """Write the base tree unless an up-to-date one is there; a failed build leaves the old one."""
    pin = load_pin()
    wheel = TorchWheel.fetch(pin)
    stamp = destination / ".git" / STAMP_NAME
    if is_git_repo(destination) and stamp.is_file() and stamp.read_text() == _stamp(pin, wheel):
        print(f"base: up to date at {destination} ({head_commit(destination)[:12]})")
        return destination
    started = time.monotonic()
    staging = destination.with_name(destination.name + ".new")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    edited = set(load_sources().edited_upstream_paths())
    for member, upstream in wheel.upstream_members():
        content = wheel.read_member(member)
        if upstream in edited:
            check_base_file(pin, upstream, content)
        target = staging / upstream
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    git(staging, "init", "-q", "-b", "main")
    git(staging, "add", "-A")
    git(staging, "commit", "-q", "--no-verify", "--no-gpg-sign", "-F", "-", env=FIXED_IDENTITY, stdin=base_message(pin))
    (staging / ".git" / STAMP_NAME).write_text(_stamp(pin, wheel))
    shutil.rmtree(destination, ignore_errors=True)
    staging.rename(destination)
    print(f"base: wrote {destination} ({head_commit(destination)[:12]}) in {time.monotonic() - started:.1f}s")
    return destination


def main() -> None:
    build_base()


if __name__ == "__main__":
    main()

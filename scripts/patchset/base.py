"""`make base`: the pinned PyTorch files that the wheel ships, at upstream paths, as a one-commit git repo.

Each file is its source text (scripts/patchset/wheel_source.py: headers without the install-time guard), so
the series made on it applies to a PyTorch checkout; files the build generates are left out. Every file a
fragment edits that the wheel does not ship (docs, tests, UnaryOps.cpp, build_variables.bzl, ...) is a fixture
holding only the upstream context its fragments record (FragmentFile.fixture_text), so `make patches` exports
every fragment and `git am` applies the series to a checkout.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from scripts.gitutil import FIXED_IDENTITY, git, head_commit, is_git_repo
from scripts.layout import REPO_ROOT
from scripts.patchset.fragments import FragmentError, Sources, load_sources
from scripts.patchset.pin import Pin, check_base_file, check_fixture, load_pin, sha256_of
from scripts.patchset.wheel import TorchWheel

BASE_DIR = REPO_ROOT / "build" / "base"
STAMP_NAME = ".patchset-base-stamp"


def base_message(pin: Pin) -> str:
    return (
        f"PyTorch v{pin.version} ({pin.short_commit}), files shipped in the {pin.wheel} wheel\n\n"
        f"Upstream commit {pin.commit}. Only the files the wheel carries are here,\n"
        "at their upstream paths and as source text (headers without the install-time\n"
        "guard); see scripts/layout.py and scripts/patchset/wheel_source.py. The files the\n"
        "patch set edits that the wheel does not ship hold only the upstream context their\n"
        "fragments record, checked against pytorch/pytorch (pytorch.lock: fixture_*).\n"
    )


# The code that decides what the base holds: a change to it makes a stale base, as a new wheel does.
BASE_MAKERS = ("scripts/patchset/base.py", "scripts/layout.py", "scripts/patchset/wheel.py", "scripts/patchset/wheel_source.py")


def _stamp(pin: Pin, wheel: TorchWheel, fixtures: dict[str, bytes]) -> str:
    makers = sha256_of(b"".join((REPO_ROOT / name).read_bytes() for name in BASE_MAKERS))
    recorded = sha256_of(b"".join(path.encode() + b"\0" + content for path, content in sorted(fixtures.items())))
    return f"{pin.commit} {wheel.path.name} {wheel.path.stat().st_size} {makers} {recorded}\n"


def fixtures_for(sources: Sources, shipped: set[str]) -> dict[str, bytes]:
    """upstream path -> fixture content, for every fragment file none of whose targets the wheel ships."""
    fixtures = {}
    for fragment_file in sources.fragment_files:
        if shipped & {fragment_file.upstream_path, *fragment_file.alternatives}:
            continue
        loose = fragment_file.uncontexted()
        if loose:
            raise FragmentError(
                f"{loose[0].label}: {fragment_file.upstream_path} is not in the wheel, so the fragment must record "
                "the upstream lines around its change (context_before/context_after, docs/FRAGMENTS.md)"
            )
        fixtures[fragment_file.upstream_path] = fragment_file.fixture_text().encode()
    return fixtures


def build_base(destination: Path = BASE_DIR) -> Path:
    """Write the base tree unless an up-to-date one is there; a failed build leaves the old one."""
    pin = load_pin()
    wheel = TorchWheel.fetch(pin)
    sources = load_sources()
    fixtures = fixtures_for(sources, {upstream for _, upstream in wheel.upstream_members()})
    for path, content in fixtures.items():
        check_fixture(pin, path, content)
    stamp = destination / ".git" / STAMP_NAME
    if is_git_repo(destination) and stamp.is_file() and stamp.read_text() == _stamp(pin, wheel, fixtures):
        print(f"base: up to date at {destination} ({head_commit(destination)[:12]})")
        return destination
    started = time.monotonic()
    staging = destination.with_name(destination.name + ".new")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    edited = set(sources.edited_upstream_paths())
    for member, upstream in wheel.upstream_members():
        content = wheel.read_source(member, upstream)
        if upstream in edited:
            check_base_file(pin, upstream, content)
        target = staging / upstream
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    for upstream, content in fixtures.items():
        target = staging / upstream
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    git(staging, "init", "-q", "-b", "main")
    git(staging, "add", "-A")
    git(staging, "commit", "-q", "--no-verify", "--no-gpg-sign", "-F", "-", env=FIXED_IDENTITY, stdin=base_message(pin))
    (staging / ".git" / STAMP_NAME).write_text(_stamp(pin, wheel, fixtures))
    shutil.rmtree(destination, ignore_errors=True)
    staging.rename(destination)
    print(f"base: wrote {destination} ({head_commit(destination)[:12]}) in {time.monotonic() - started:.1f}s")
    return destination


def main() -> None:
    build_base()


if __name__ == "__main__":
    main()

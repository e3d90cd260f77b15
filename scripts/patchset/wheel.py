"""The pinned torch wheel, read as the pristine source of the upstream files it ships.

What it installs is not quite source: headers carry an install-time guard (scripts/patchset/wheel_source.py
takes it off) and generated files are not upstream files at all (scripts/layout.py leaves them out).
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path

from scripts.layout import REPO_ROOT, upstream_path_of, wheel_member_of
from scripts.patchset.pin import Pin
from scripts.patchset.wheel_source import source_bytes

WHEEL_CACHE = REPO_ROOT / "build" / "wheel"


class WheelError(RuntimeError):
    pass


class TorchWheel:
    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def fetch(cls, pin: Pin, cache: Path = WHEEL_CACHE) -> TorchWheel:
        """Find the pinned wheel in the cache, downloading it there (from pip's sources) if absent."""
        found = sorted(cache.glob(f"torch-{pin.version}-*.whl"))
        if not found:
            cache.mkdir(parents=True, exist_ok=True)
            command = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(cache), pin.wheel]
            result = subprocess.run(command, capture_output=True, text=True)
            found = sorted(cache.glob(f"torch-{pin.version}-*.whl"))
            if result.returncode != 0 or not found:
                raise WheelError(f"could not download {pin.wheel} with pip:\n{result.stderr.strip()}")
        return cls(found[-1])

    @cached_property
    def _zip(self) -> zipfile.ZipFile:
        return zipfile.ZipFile(self.path)

    def upstream_members(self) -> Iterator[tuple[str, str]]:
        """Yield (wheel member, upstream path) for every wheel file that is an upstream source file."""
        for member in self._zip.namelist():
            upstream = upstream_path_of(member)
            if upstream is not None:
                yield member, upstream

    def read_member(self, member: str) -> bytes:
        """The file as the wheel installs it."""
        return self._zip.read(member)

    def read_source(self, member: str, upstream_path: str) -> bytes:
        """The file as PyTorch's source tree has it at `upstream_path`."""
        return source_bytes(self._zip.read(member), upstream_path)

    def read_upstream(self, upstream_path: str) -> bytes | None:
        """The source text of an upstream file, None when the wheel does not ship it."""
        member = wheel_member_of(upstream_path)
        if member is None:
            return None
        try:
            return self.read_source(member, upstream_path)
        except KeyError:
            return None

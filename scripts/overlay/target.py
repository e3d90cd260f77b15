"""The interpreter an overlay is built for: its torch, found without importing it, or a one-line refusal."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

OLDEST_TORCH = (2, 11)
# Runs in the target interpreter. torch is located, not imported: an overlay installed
# there earlier may be the very thing that is broken.
PROBE = r"""
import importlib.metadata, importlib.util, json, os, runpy
found = {"torch_dir": None, "version": None, "cuda": None}
spec = importlib.util.find_spec("torch")
if spec is not None and spec.submodule_search_locations:
    found["torch_dir"] = list(spec.submodule_search_locations)[0]
    version_py = os.path.join(found["torch_dir"], "version.py")
    info = runpy.run_path(version_py) if os.path.isfile(version_py) else {}
    found["cuda"] = info.get("cuda")
    try:
        found["version"] = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        found["version"] = info.get("__version__")
found["torchgen"] = importlib.util.find_spec("torchgen") is not None
print(json.dumps(found))
"""


class TargetError(RuntimeError):
    """The interpreter cannot get the overlay; the message says what to do instead."""


@dataclass(frozen=True)
class Target:
    python: str
    site: Path
    torch_version: str
    cuda: str | None

    @property
    def release(self) -> tuple[int, ...]:
        return release_of(self.torch_version)


def release_of(version: str) -> tuple[int, ...]:
    """(2, 11, 0) for '2.11.0+cu130' or '2.11.0a0+git1234'."""
    match = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", version)
    if match is None:
        raise TargetError(f"cannot read the torch version {version!r}")
    return tuple(int(part or 0) for part in match.groups())


def probe(python: str, need_cuda: bool = False) -> Target:
    if shutil.which(python) is None and not Path(python).is_file():
        raise TargetError(f"PYTHON={python} does not exist; pass an interpreter that has torch installed")
    result = subprocess.run([python, "-c", PROBE], capture_output=True, text=True)
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise TargetError(f"{python} does not run ({last}); pass a working interpreter with torch installed")
    found = json.loads(result.stdout)
    install = "pip install torch==2.14.1 (any torch from 2.11 to 2.14.1 will do)"
    if found["torch_dir"] is None:
        raise TargetError(f"{python} has no torch; {install}, or pass PYTHON=<an interpreter with torch>")
    version = found["version"] or "unknown"
    if not found["torchgen"]:
        raise TargetError(f"{python} has torch {version} but no torchgen, which the overlay's codegen runs; "
                          f"install torch from its PyPI wheel (it ships torchgen): {install}")
    if release_of(version)[:2] < OLDEST_TORCH:
        oldest = ".".join(map(str, OLDEST_TORCH))
        raise TargetError(f"{python} has torch {version}, older than {oldest}, the oldest the overlay builds on; {install}")
    if need_cuda and not found["cuda"]:
        raise TargetError(f"{python} has torch {version}, a CPU-only build (torch.version.cuda is None), but CUDA was "
                          "asked for: install a CUDA build of torch (the PyPI wheel torch==2.14.1 is one), "
                          "or build without CUDA")
    return Target(python, Path(found["torch_dir"]).parent, version, found["cuda"])

"""Install the cross compilers and qemu-user with apt-get, once, where they are missing."""

from __future__ import annotations

import os
import shutil
import subprocess

from scripts.cross_arch.targets import PACKAGES


def missing_programs(programs: list[str]) -> list[str]:
    return [p for p in programs if shutil.which(p) is None]


def install(programs: list[str]) -> str | None:
    """Installs the packages of the missing programs; returns why it could not, or None when all are there."""
    missing = missing_programs(programs)
    if not missing:
        return None
    packages = sorted({PACKAGES.get(p, p) for p in missing})
    hint = f"needs {' '.join(missing)}: install {' '.join(packages)} (apt-get install, as root)"
    if shutil.which("apt-get") is None:
        return f"cross-arch check skipped: no apt-get on this machine; {hint}"
    if os.geteuid() != 0:
        return f"cross-arch check skipped: not root; {hint}"
    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-q"],
                    ["apt-get", "install", "-y", "-q", "--no-install-recommends", *packages]):
        print("cross-arch: " + " ".join(command), flush=True)
        result = subprocess.run(command, capture_output=True, text=True, env=environment)
        if result.returncode != 0:
            return f"cross-arch check skipped: `{' '.join(command)}` failed: {result.stderr.strip()[-500:]}"
    still_missing = missing_programs(programs)
    return f"cross-arch check skipped: still missing after apt-get: {' '.join(still_missing)}" if still_missing else None

"""Install, offline, whatever of the bundle (scripts/gpu/bundle.txt) this interpreter lacks; report it.

Packages already present are kept at their own versions. Run with the interpreter that gets them.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import subprocess
import sys
from pathlib import Path

from scripts.gpu.bundle import WHEELHOUSE, requirements


def missing() -> list[str]:
    names = [r.split("==")[0] for r in requirements()]
    absent = []
    for name in names:
        try:
            importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            absent.append(name)
    return absent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--wheelhouse", type=Path, default=WHEELHOUSE)
    args = parser.parse_args()
    absent = missing()
    if not absent:
        print("bundle: nothing to install: every package of the bundle is already there")
        return 0
    if not any(args.wheelhouse.glob("*.whl")):
        print(f"bundle: error: {', '.join(absent)} missing and no wheels in {args.wheelhouse}; "
              "run `make gpu-bundle` where pip has a network and carry build/wheelhouse along", file=sys.stderr)
        return 1
    before = {d.name.lower() for d in importlib.metadata.distributions()}
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--find-links", str(args.wheelhouse),
               *absent]
    if subprocess.run(command).returncode != 0:
        print(f"bundle: error: pip could not install {', '.join(absent)} from {args.wheelhouse}", file=sys.stderr)
        return 1
    importlib.invalidate_caches()
    added = sorted(f"{d.name}=={d.version}" for d in importlib.metadata.distributions() if d.name.lower() not in before)
    print(f"bundle: installed {len(added)} package(s) from {args.wheelhouse}: {' '.join(added)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

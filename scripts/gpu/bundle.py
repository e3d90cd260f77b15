"""`make gpu-bundle`: wheels of everything scripts/gpu/check.sh needs besides torch, for an offline machine.

Downloads scripts/gpu/bundle.txt and what it depends on, as binary wheels for one CPython version
(the GPU machine's: 3.12 by default) into build/wheelhouse, and refuses a bundle that would not fit
the carry limit together with the repository's tracked files.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from scripts.layout import REPO_ROOT

BUNDLE_LIST = Path(__file__).with_name("bundle.txt")
WHEELHOUSE = REPO_ROOT / "build" / "wheelhouse"
CARRY_LIMIT = 64 << 20
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_24_x86_64", "manylinux_2_17_x86_64",
             "manylinux2014_x86_64")


def requirements() -> list[str]:
    lines = (line.split("#")[0].strip() for line in BUNDLE_LIST.read_text().splitlines())
    return [line for line in lines if line]


def download_command(python_version: str, out: Path) -> list[str]:
    platforms = [arg for p in PLATFORMS for arg in ("--platform", p)]
    return [sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:", "--implementation", "cp",
            "--python-version", python_version, *platforms, "--dest", str(out), *requirements()]


def tracked_size() -> int:
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO_ROOT, capture_output=True, check=True).stdout
    paths = (REPO_ROOT / name for name in files.decode().split("\0") if name)
    return sum(p.stat().st_size for p in paths if p.is_file())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--python-version", default="3.12", help="CPython version of the machine that installs it")
    parser.add_argument("--out", type=Path, default=WHEELHOUSE)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for stale in args.out.glob("*.whl"):
        stale.unlink()
    if subprocess.run(download_command(args.python_version, args.out)).returncode != 0:
        print("gpu-bundle: error: pip could not download the bundle (see above); it needs a network", file=sys.stderr)
        return 1
    wheels = sorted(args.out.glob("*.whl"))
    size, repo = sum(w.stat().st_size for w in wheels), tracked_size()
    for wheel in wheels:
        print(f"  {wheel.stat().st_size / 2**20:6.1f} MiB  {wheel.name}")
    total = f"{size / 2**20:.1f} MiB of wheels + {repo / 2**20:.1f} MiB of tracked files"
    if size + repo > CARRY_LIMIT:
        print(f"gpu-bundle: error: {total} exceeds the {CARRY_LIMIT >> 20} MiB carry limit", file=sys.stderr)
        return 1
    print(f"gpu-bundle: {len(wheels)} wheels for CPython {args.python_version} in {args.out}: {total}, "
          f"within the {CARRY_LIMIT >> 20} MiB carry limit")
    return 0


if __name__ == "__main__":
    sys.exit(main())

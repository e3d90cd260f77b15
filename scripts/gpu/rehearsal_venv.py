"""A venv like the GPU machine's, on a machine without a GPU: CPython 3.12 with torch 2.11.0 and nothing else.

Prints the venv's interpreter. torch comes from PyPI without its CUDA dependencies (2.1 GB of wheels
that nothing here would run): its libtorch_cuda loads the pinned venv's CUDA 13 libraries instead,
through a link to that venv's nvidia/ folder. Reused when it already holds that torch.
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

from scripts.layout import REPO_ROOT

CUDA_DEPENDENCY_PREFIXES = ("nvidia-", "cuda-", "triton")


class VenvError(RuntimeError):
    pass


def base_interpreter(version: str) -> str:
    """A CPython of `version` (the GPU machine's), else this one."""
    pyenv_root = os.environ.get("PYENV_ROOT", str(Path.home() / ".pyenv"))
    candidates = [shutil.which(f"python{version}"), *sorted(glob.glob(f"{pyenv_root}/versions/{version}*/bin/python3"))]
    for candidate in filter(None, candidates):
        if subprocess.run([candidate, "-c", ""], capture_output=True).returncode == 0:
            return candidate
    print(f"rehearsal venv: no CPython {version} found; using {sys.executable}", file=sys.stderr)
    return sys.executable


def purelib(python: str) -> Path:
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    return Path(subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip())


def torch_version(python: Path) -> str | None:
    code = "import importlib.metadata as m; print(m.version('torch'))"
    result = subprocess.run([str(python), "-c", code], capture_output=True, text=True)
    return result.stdout.strip() if result.returncode == 0 else None


def pip(python: Path, *args: str) -> None:
    if subprocess.run([str(python), "-m", "pip", "install", "--quiet", *args]).returncode != 0:
        raise VenvError(f"pip install {' '.join(args)} failed (see above)")


def torch_requirements(python: Path) -> list[str]:
    """torch's own requirements, less the CUDA libraries and triton."""
    code = "import importlib.metadata as m; print('\\n'.join(m.requires('torch') or []))"
    lines = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    plain = [line.split(";")[0].strip() for line in lines if "extra ==" not in line]
    return [r for r in plain if r and not r.lower().startswith(CUDA_DEPENDENCY_PREFIXES)]


def create(venv: Path, version: str, python_version: str, cuda_libraries: Path) -> Path:
    python = venv / "bin" / "python"
    if python.is_file() and torch_version(python) == version:
        return python
    if not cuda_libraries.is_dir():
        raise VenvError(f"{cuda_libraries} missing: the rehearsal borrows the pinned venv's CUDA libraries; "
                        "run `make venv` first")
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([base_interpreter(python_version), "-m", "venv", str(venv)], check=True)
    pip(python, "--no-deps", f"torch=={version}")
    pip(python, *torch_requirements(python))
    (purelib(str(python)) / "nvidia").symlink_to(cuda_libraries, target_is_directory=True)
    if torch_version(python) != version:
        raise VenvError(f"{python} does not report torch {version} after the install")
    return python


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("venv", type=Path)
    parser.add_argument("--torch", default="2.11.0")
    parser.add_argument("--python-version", default="3.12")
    parser.add_argument("--pinned-venv", type=Path, default=REPO_ROOT / ".venv")
    args = parser.parse_args()
    pinned = args.pinned_venv / "bin" / "python"
    if not pinned.is_file():
        print(f"rehearsal venv: error: {pinned} missing: run `make venv` first", file=sys.stderr)
        return 1
    try:
        python = create(args.venv.resolve(), args.torch, args.python_version, purelib(str(pinned)) / "nvidia")
    except (VenvError, subprocess.CalledProcessError) as error:
        print(f"rehearsal venv: error: {error}", file=sys.stderr)
        return 1
    print(python)
    return 0


if __name__ == "__main__":
    sys.exit(main())

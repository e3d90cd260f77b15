"""`make` / `make overlay`: patch the install, generate, compile and load the overlay, timing each step.

A failed step stops with the tool's own message; the install keeps its previous
working library: new shared objects are copied in only after a full build, and put
back to the previous ones if they then fail to load.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from scripts.layout import REPO_ROOT

OVERLAY_DIR = REPO_ROOT / "scripts" / "overlay"
NATIVE_SOURCES = REPO_ROOT / "aten_native" / "aten" / "src" / "ATen" / "native"
FUNCTORCH_FRAGMENTS = REPO_ROOT / "frontend/aten/src/ATen/functorch/BatchRulesUnaryOps.cpp.fragments.toml"
PACKAGE = "_torch_cbrt_overlay"
PREVIOUS_SUFFIX = ".previous"


class StepError(RuntimeError):
    pass


@contextmanager
def step(name: str) -> Iterator[None]:
    print(f"overlay: {name} ...", flush=True)
    started = time.monotonic()
    yield
    print(f"overlay: {name} done in {time.monotonic() - started:.1f}s", flush=True)


def run(command: list[str], what: str) -> None:
    result = subprocess.run(command, cwd=REPO_ROOT)
    if result.returncode != 0:
        raise StepError(f"{what} failed (exit {result.returncode}); the installed overlay was left as it was")


def probe(python: str) -> tuple[Path, str]:
    """site-packages and torch version of `python`, or a clear error."""
    if shutil.which(python) is None and not Path(python).is_file():
        raise StepError(f"PYTHON={python} does not exist; pass an interpreter that has torch installed")
    code = "import sysconfig, torchgen, importlib.metadata as m; print(sysconfig.get_paths()['purelib']); print(m.version('torch'))"
    result = subprocess.run([python, "-c", code], capture_output=True, text=True)
    if result.returncode != 0:
        raise StepError(f"{python} cannot import torch and torchgen; install torch there first:\n{result.stderr.strip()[-800:]}")
    site, version = result.stdout.split()
    return Path(site), version


def build_dir_for(version: str) -> Path:
    return REPO_ROOT / "build" / "overlay" / version.replace("+", "-")


def configure_command(python: str, build: Path) -> list[str]:
    command = ["cmake", "-S", str(OVERLAY_DIR), "-B", str(build / "cmake"), "-G", "Ninja", f"-DPython_EXECUTABLE={python}",
               f"-DOVERLAY_GEN_DIR={build / 'gen'}", f"-DOVERLAY_SOURCE_DIR={NATIVE_SOURCES}",
               f"-DOVERLAY_OUTPUT_DIR={build / 'lib'}", "-DCMAKE_BUILD_TYPE=Release"]
    ninja = Path(python).with_name("ninja")
    return command + ([f"-DCMAKE_MAKE_PROGRAM={ninja}"] if ninja.is_file() else [])


def install_libraries(build: Path, site: Path) -> None:
    """Copy the freshly linked libraries in, each by an atomic rename; the ones they replace wait as
    *.previous until settle_libraries()."""
    target = site / PACKAGE
    target.mkdir(exist_ok=True)
    for library in sorted((build / "lib").glob("*.so")):
        installed = target / library.name
        if installed.exists():
            shutil.copy2(installed, installed.with_name(installed.name + PREVIOUS_SUFFIX))
        temporary = target / (library.name + ".new")
        shutil.copy2(library, temporary)
        os.replace(temporary, installed)


def settle_libraries(site: Path, keep_new: bool) -> None:
    """Drop the previous libraries once the new ones load, or put them back if they do not."""
    for previous in (site / PACKAGE).glob("*.so" + PREVIOUS_SUFFIX):
        if keep_new:
            previous.unlink()
        else:
            os.replace(previous, previous.with_name(previous.name.removesuffix(PREVIOUS_SUFFIX)))


def install(python: str, build: Path, site: Path) -> None:
    install_libraries(build, site)
    run([python, str(REPO_ROOT / "scripts/overlay_install.py"), str(site)], "install")


def check_import(python: str) -> None:
    code = "import torch; assert torch.cbrt(torch.tensor([-8.0])).item() == -2.0; print(torch.cbrt)"
    run([python, "-c", code], "loading the overlay into torch")


def patch(python: str, part: str) -> None:
    run([python, "-m", "scripts.venv_patch", "--python", python, "--part", part], f"applying the {part} fragments")


def steps(python: str, site: Path, build: Path, jobs: int) -> list[tuple[str, Callable[[], None]]]:
    codegen = [python, "-m", "scripts.overlay_codegen", "--out", str(build / "gen"),
               "--functorch-fragments", str(FUNCTORCH_FRAGMENTS)]
    return [
        ("apply yaml and header fragments", lambda: patch(python, "build")),
        ("torchgen for the patch set's operators", lambda: run(codegen, "codegen")),
        ("cmake configure", lambda: run(configure_command(python, build), "cmake configure")),
        ("compile and link", lambda: run(["cmake", "--build", str(build / "cmake"), "-j", str(jobs)], "compile")),
        ("install the library and the import hook", lambda: install(python, build, site)),
        ("apply Python fragments", lambda: patch(python, "python")),
        ("load check", lambda: check_import(python)),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--python", default=sys.executable, help="interpreter whose torch gets the overlay")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    python = os.path.abspath(args.python) if os.sep in args.python else args.python
    started = time.monotonic()
    site: Path | None = None
    try:
        site, version = probe(python)
        print(f"overlay: {python} has torch {version} in {site}")
        for name, action in steps(python, site, build_dir_for(version), args.jobs):
            with step(name):
                action()
        settle_libraries(site, keep_new=True)
    except StepError as error:
        if site is not None and (site / PACKAGE).is_dir():
            settle_libraries(site, keep_new=False)
        print(f"overlay: error: {error}", file=sys.stderr)
        sys.exit(1)
    print(f"overlay: ready in {time.monotonic() - started:.1f}s")


if __name__ == "__main__":
    main()

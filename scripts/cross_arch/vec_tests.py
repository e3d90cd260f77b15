"""The vec tests the patch set adds to aten/src/ATen/test/vec_test_all_types.cpp, built and run for every CPU build.

The wheel ships neither that file nor googletest, so the fragment's added lines (tests of the given topics, in
fragment order) are compiled inside test/cross_arch/vec_test_harness.cpp, which supplies what the rest of the file
and vec_test_all_types.h would, against headers patched in a scratch copy of the wheel's include folder. Native
builds link the host's googletest (Debian's libgtest-dev; GTEST_ROOT=<prefix with include/ and lib/>, e.g. Homebrew's
googletest on macOS); cross builds compile googletest's sources with their target's GCC and run under qemu-user.
Every step is cached under build/vec-tests, keyed by the content it depends on.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

from scripts.cross_arch.check import write_sleef_shim
from scripts.cross_arch.targets import Build, host_arch, host_cpu_flags, programs_needed, runnable_builds
from scripts.cross_arch.toolchain import install
from scripts.layout import REPO_ROOT, SOURCE_FOLDERS
from scripts.overlay.venv_patch import patch_install
from scripts.patchset.fragments import load_sources
from scripts.patchset.pin import load_pin
from scripts.patchset.wheel import TorchWheel

OUTPUT = REPO_ROOT / "build" / "vec-tests"
HARNESS = REPO_ROOT / "test" / "cross_arch" / "vec_test_harness.cpp"
TEST_FILE = "aten/src/ATen/test/vec_test_all_types.cpp"
TOPICS = ("vec-fmadd", "vec-cbrt")
GTEST_SOURCES = Path("/usr/src/googletest/googletest")
GTEST_PACKAGE = "libgtest-dev"


@dataclass(frozen=True)
class Gtest:
    """A googletest the host's compiler links: its headers and its two static libraries."""

    include: Path
    libraries: tuple[Path, Path]

    @classmethod
    def under(cls, prefix: Path, lib: str = "lib") -> Gtest:
        return cls(prefix / "include", (prefix / lib / "libgtest.a", prefix / lib / "libgtest_main.a"))

    def found(self) -> bool:
        return (self.include / "gtest" / "gtest.h").is_file() and all(p.is_file() for p in self.libraries)


def native_gtest() -> Gtest:
    """GTEST_ROOT's googletest when set; else Debian's (libgtest-dev: /usr/lib/<arch>-linux-gnu), or Homebrew's."""
    if os.environ.get("GTEST_ROOT"):
        return Gtest.under(Path(os.environ["GTEST_ROOT"]))
    if sys.platform == "darwin" and shutil.which("brew"):
        prefix = subprocess.run(["brew", "--prefix", "googletest"], capture_output=True, text=True).stdout.strip()
        if prefix:
            return Gtest.under(Path(prefix))
    return Gtest.under(Path("/usr"), f"lib/{host_arch()}-linux-gnu")


def digest(*parts: bytes) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(hashlib.sha256(part).digest())
    return hasher.hexdigest()[:16]


def sources_digest() -> str:
    """Everything the patched headers depend on: the fragments, the new files, topics.toml and the wheel."""
    files = sorted(p for folder in SOURCE_FOLDERS for p in (REPO_ROOT / folder).rglob("*") if p.is_file())
    wheel = TorchWheel.fetch(load_pin()).path
    return digest(
        wheel.name.encode(),
        (REPO_ROOT / "topics.toml").read_bytes(),
        *(str(p.relative_to(REPO_ROOT)).encode() + p.read_bytes() for p in files),
    )


def patched_include(output: Path = OUTPUT) -> Path:
    """The wheel's torch/include with the patch set's header edits and new headers, in a scratch folder."""
    site = output / f"include-{sources_digest()}"
    include = site / "torch" / "include"
    if (site / "ready").is_file():
        return include
    shutil.rmtree(site, ignore_errors=True)
    with zipfile.ZipFile(TorchWheel.fetch(load_pin()).path) as wheel:
        wheel.extractall(site, [m for m in wheel.namelist() if m.startswith("torch/include/")])
    patch_install(site, on_pin=True, part="build")
    for stale in output.glob("include-*"):
        if stale != site:
            shutil.rmtree(stale, ignore_errors=True)
    (site / "ready").write_text("")
    return include


def added_tests(topics: tuple[str, ...] = TOPICS) -> str:
    """The lines the topics' fragments add to vec_test_all_types.cpp, in fragment order."""
    sources = load_sources()
    fragment_file = next(f for f in sources.fragment_files if f.upstream_path == TEST_FILE)
    return "".join("\n".join(f.text) + "\n" for f in fragment_file.fragments if f.topic in topics)


def gtest_compiler(build: Build) -> str:
    """The GCC that builds googletest for a cross build: its own compiler, or for clang the GCC cross toolchain whose
    libstdc++ it links (the same C++ ABI; the host's g++ where the build is of the host's architecture)."""
    if build.toolchain == "clang":
        return next((p for p in build.needs if p.endswith("g++")), "g++")
    return build.compiler


def gtest_libraries(build: Build, folder: Path) -> list[str]:
    """The host's libgtest for native builds; googletest built from source with the target's GCC for cross builds."""
    if not build.emulated:
        return [str(p) for p in native_gtest().libraries]
    compiler = gtest_compiler(build)
    library = folder / f"gtest-{compiler}.a"
    if not library.is_file():
        objects = []
        for name in ("gtest-all.cc", "gtest_main.cc"):
            obj = folder / f"{compiler}-{name}.o"
            subprocess.run(
                [
                    compiler,
                    "-O2",
                    "-std=c++17",
                    f"-I{GTEST_SOURCES}",
                    f"-I{GTEST_SOURCES / 'include'}",
                    "-c",
                    str(GTEST_SOURCES / "src" / name),
                    "-o",
                    str(obj),
                ],
                check=True,
                capture_output=True,
            )
            objects.append(str(obj))
        archiver = compiler.removesuffix("g++") + "ar"
        subprocess.run([archiver, "rcs", str(library), *objects], check=True)
    return [str(library)]


@dataclass(frozen=True)
class VecTestRun:
    build: Build
    passed: bool
    output: str
    compile_seconds: float
    run_seconds: float


def compile_command(
    build: Build, include: Path, shim: Path, source: Path, executable: Path, libraries: list[str]
) -> list[str]:
    includes = [f"-I{shim}"] if build.uses_sleef_shim else []
    linking = ["-static"] if build.emulated else []
    gtest_include = GTEST_SOURCES / "include" if build.emulated else native_gtest().include
    return [
        build.compiler,
        "-std=c++17",
        "-O2",
        *build.flags,
        *includes,
        f"-I{include}",
        f"-I{gtest_include}",
        str(source),
        *(str(REPO_ROOT / s) for s in build.vec_test_sources),
        "-o",
        str(executable),
        *libraries,
        "-pthread",
        *linking,
    ]


LIBM = Path("/lib/x86_64-linux-gnu/libm.so.6")


def long_double_imports(executable: Path) -> list[str]:
    """The long double functions a -mlong-double-64 build still takes from glibc or libstdc++ (whose long double is
    x87's there): libm's `<name>l` where libm has `<name>` too, and C++ symbols with a long double in them."""
    exported = set(re.findall(r" [TWi] (\w+)@", subprocess.run(["nm", "-D", str(LIBM)], capture_output=True,
                                                               text=True).stdout))
    imports = subprocess.run(["nm", "-u", str(executable)], capture_output=True, text=True).stdout.split()
    names = [i.partition("@")[0] for i in imports if i != "U"]
    libm = [n for n in names if n.endswith("l") and n in exported and n[:-1] in exported]
    demangled = subprocess.run(["c++filt", *names], capture_output=True, text=True).stdout.splitlines()
    return sorted(set(libm) | {d for d in demangled if "long double" in d})


def build_vec_tests(build: Build, include: Path, output: Path = OUTPUT) -> tuple[Path | None, str, float]:
    """The test binary of `build` (cached by content), or None and the compiler's output."""
    folder = output / "builds"
    folder.mkdir(parents=True, exist_ok=True)
    shim = write_sleef_shim(include, output / "sleef-shim")
    libraries = gtest_libraries(build, folder)
    tests = added_tests()
    key = digest(
        HARNESS.read_bytes(),
        *((REPO_ROOT / s).read_bytes() for s in build.vec_test_sources),
        tests.encode(),
        str(include).encode(),
        " ".join(build.flags).encode(),
        build.compiler.encode(),
    )
    executable = folder / f"{build.name}-{key}"
    if executable.is_file():
        return executable, "", 0.0
    source_folder = folder / f"{build.name}-{key}-src"
    source_folder.mkdir(exist_ok=True)
    (source_folder / "vec_tests.inc").write_text(tests)
    source = source_folder / HARNESS.name
    shutil.copyfile(HARNESS, source)
    started = time.monotonic()
    partial = executable.with_name(executable.name + ".partial")
    compiled = subprocess.run(
        compile_command(build, include, shim, source, partial, libraries), capture_output=True, text=True
    )
    seconds = time.monotonic() - started
    if compiled.returncode != 0:
        return None, compiled.stderr[-6000:], seconds
    unshimmed = long_double_imports(partial) if "-mlong-double-64" in build.flags else []
    if unshimmed:
        return None, f"imports long double functions of the x87 ABI: {' '.join(unshimmed)}; define them in " \
                     f"{' '.join(build.vec_test_sources)}", seconds
    partial.rename(executable)
    for stale in folder.glob(f"{build.name}-*"):
        if stale.is_file() and stale != executable:
            stale.unlink()
    return executable, "", seconds


def run_vec_tests(build: Build, include: Path, output: Path = OUTPUT) -> VecTestRun:
    executable, errors, compile_seconds = build_vec_tests(build, include, output)
    if executable is None:
        return VecTestRun(build, False, f"compile failed:\n{errors}", compile_seconds, 0.0)
    started = time.monotonic()
    ran = subprocess.run([*build.runner, str(executable), "--gtest_brief=1"], capture_output=True, text=True)
    return VecTestRun(
        build, ran.returncode == 0, (ran.stdout + ran.stderr)[-6000:], compile_seconds, time.monotonic() - started
    )


def missing_cpu_flags(build: Build) -> list[str]:
    """The CPU features a native build needs and this CPU lacks."""
    return sorted(set(build.cpu_flags) - host_cpu_flags()) if not build.emulated else []


def gtest_missing(builds: list[Build] | None = None) -> str | None:
    """Why googletest is not available to `builds` (default: all this host runs), installing libgtest-dev where it
    can (Debian), or None. Native builds need the host's googletest, cross builds its sources."""
    builds = runnable_builds() if builds is None else builds
    needs_sources = any(b.emulated for b in builds)
    needs_native = any(not b.emulated for b in builds)

    def missing() -> str | None:
        if needs_sources and not GTEST_SOURCES.is_dir():
            return f"googletest's sources ({GTEST_SOURCES})"
        if needs_native and not native_gtest().found():
            gtest = native_gtest()
            return f"googletest ({gtest.include / 'gtest'}, {' '.join(map(str, gtest.libraries))})"
        return None

    what = missing()
    if what is None:
        return None
    reason = install([GTEST_PACKAGE]) if shutil.which("apt-get") else None
    what = missing()
    if what is None:
        return None
    return reason or f"vec tests skipped: no {what}: install {GTEST_PACKAGE}, or set GTEST_ROOT"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--builds", nargs="+", help="build names (default: all this machine can run)")
    parser.add_argument("--print-include", action="store_true", help="print the patched include folder and stop")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1, not 0, when a missing toolchain skips the run (CI)")
    args = parser.parse_args(argv)
    if args.print_include:
        print(patched_include())
        return 0
    builds = [b for b in runnable_builds() if not args.builds or b.name in args.builds]
    skipped = gtest_missing(builds) or install(programs_needed(builds))
    if skipped or not builds:
        skipped = skipped or "no build this machine can run"
        print(skipped)
        return 1 if args.strict else 0
    include = patched_include()
    failed = 0
    for build in builds:
        run = run_vec_tests(build, include)
        failed += not run.passed
        state = "passed" if run.passed else "FAILED"
        print(f"vec tests: {build.name:18} {state} (compile {run.compile_seconds:5.1f}s, run {run.run_seconds:5.1f}s)")
        if not run.passed:
            print(run.output, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

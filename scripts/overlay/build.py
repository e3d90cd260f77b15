"""`make` / `make overlay`: patch the install, generate, compile and load the overlay, timing each step.

All or nothing: every file a build may change in the install is kept aside first, and a
failed or interrupted step puts each one back, so the install keeps its previous overlay,
or none; the message says which. Work is keyed by content: a build whose inputs and
installed files match the last successful one returns at once, and torchgen and the CMake
configure rerun only when their own inputs change.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from scripts.layout import REPO_ROOT, wheel_member_of
from scripts.overlay import install as overlay_install
from scripts.overlay import legacy, venv_patch
from scripts.overlay.harness import COMPILED_SUFFIXES
from scripts.overlay.record import (
    STATE_DIR_NAME,
    Record,
    file_digest,
    files_digest,
    inputs_digest,
    installed_digest,
    read_record,
    tree_files,
    write_record,
)
from scripts.overlay.snapshot import Snapshot
from scripts.overlay.target import Target, TargetError, probe
from scripts.patchset.fragments import FragmentError, load_sources
from scripts.patchset.native_ops import native_ops
from scripts.patchset.pin import DriftError, load_pin

OVERLAY_DIR = REPO_ROOT / "scripts" / "overlay"
NATIVE_SOURCES = REPO_ROOT / "aten_native" / "aten" / "src" / "ATen" / "native"
# Where fragments of C++ files the wheel lacks live: codegen compiles their added lines in harnesses.
HARNESS_FRAGMENTS = (REPO_ROOT / "aten_native", REPO_ROOT / "frontend")
PACKAGE = overlay_install.PACKAGE
BUILD_ROOT = REPO_ROOT / "build" / "overlay"
CODEGEN_INPUT_MEMBERS = tuple(
    f"torchgen/packaged/{name}" for name in ("ATen/native/native_functions.yaml", "ATen/native/tags.yaml",
                                             "autograd/derivatives.yaml", "autograd/deprecated.yaml"))
# Run in the target interpreter after installing: torch imports with the overlay, every operator of the sources
# has its schema and its Python bindings, and the patched Python front end imports too. None: load_check_code().
LOAD_CHECK: str | None = None


def load_check_code() -> str:
    ops = native_ops()
    schemas = sorted(f"{op.base}.{op.overload or 'default'}" for op in ops)
    # torchgen binds no derivative helper (_op_backward, _op_jvp) in Python
    functions = sorted({op.base for op in ops if "function" in op.variants and op.python_binding})
    methods = sorted({op.base for op in ops if "method" in op.variants and op.python_binding})
    return ("import operator, torch, torch._refs, torch._prims, torch._numpy\n"
            f"for name in {schemas!r}:\n    operator.attrgetter(name)(torch.ops.aten)\n"
            f"missing = [n for n in {functions!r} if not hasattr(torch, n)]\n"
            f"missing += ['Tensor.' + n for n in {methods!r} if not hasattr(torch.Tensor, n)]\n"
            "assert not missing, f'overlay loaded without bindings: {missing}'\n")


class StepError(RuntimeError):
    pass


@dataclass
class Build:
    target: Target
    jobs: int
    cuda: str  # AUTO, ON or OFF: CMake's OVERLAY_CUDA
    needed_python: frozenset[str]  # upstream paths whose fragments must apply off the pin too
    skipped: list[str] = field(default_factory=list)
    content_key: str = "unset"  # the digest of the build's inputs: the loader keys torch.compile's caches by it

    @property
    def python(self) -> str:
        return self.target.python

    @property
    def site(self) -> Path:
        return self.target.site

    @property
    def directory(self) -> Path:
        return BUILD_ROOT / self.target.torch_version.replace("+", "-")

    @property
    def on_pin(self) -> bool:
        return self.target.torch_version.split("+")[0] == load_pin().version

    def settings(self) -> dict[str, object]:
        return {"python": self.python, "torch": self.target.torch_version, "cuda": self.cuda,
                "needed_python": sorted(self.needed_python)}


@contextmanager
def step(name: str) -> Iterator[None]:
    print(f"overlay: {name} ...", flush=True)
    started = time.monotonic()
    yield
    print(f"overlay: {name} done in {time.monotonic() - started:.1f}s", flush=True)


def run(command: list[str], what: str) -> None:
    result = subprocess.run(command, cwd=REPO_ROOT)
    if result.returncode != 0:
        raise StepError(f"{what} failed (exit {result.returncode})")


def installed_paths(site: Path) -> list[str]:
    """Every path in the install a build may write (relative to site): the snapshot's roots."""
    sources = load_sources()
    upstream = [f.upstream_path for f in sources.fragment_files] + [f.upstream_path for f in sources.new_files]
    members = [m for m in map(wheel_member_of, upstream) if m is not None]
    return sorted({PACKAGE, STATE_DIR_NAME, "torch/__init__.py", *members, *legacy.paths(site)})


def output_paths(site: Path) -> list[str]:
    """What the build's success is recorded against: all the roots but the bookkeeping."""
    return [p for p in installed_paths(site) if p not in (STATE_DIR_NAME, *legacy.LEGACY_STATE_DIRS)]


def tool(python: str, name: str) -> str:
    """The interpreter's own copy of a build tool (from pip) if it has one, else the one on PATH."""
    beside = Path(python).with_name(name)
    return str(beside) if beside.is_file() else name


# ---------------------------------------------------------------- steps


def patch(build: Build, part: str) -> None:
    try:
        result = venv_patch.patch_install(build.site, build.on_pin, part, build.needed_python)
    except (FragmentError, DriftError) as error:
        raise StepError(f"applying the {part} fragments failed: {error}") from error
    for line in result.skipped:
        print(f"overlay: skipped {line}", file=sys.stderr)
    build.skipped += result.skipped
    print(f"overlay: {len(result.contents)} {part} file(s) updated in {build.site}")


def unchanged(stamp: Path, digest: str) -> bool:
    return stamp.is_file() and stamp.read_text() == digest


def is_codegen_source(name: str) -> bool:
    """A fragments file codegen reads: of a C++ translation unit (a harness) or of native_functions.yaml."""
    stem = name.removesuffix(".fragments.toml")
    return stem != name and stem.endswith((*COMPILED_SUFFIXES, "native_functions.yaml"))


def codegen_digest(build: Build) -> str:
    torchgen = build.site / "torchgen"
    inputs = [build.site / m for m in CODEGEN_INPUT_MEMBERS if (build.site / m).is_file()]
    inputs += [p for p in tree_files(torchgen) if p.suffix in (".py", ".yaml", ".h", ".cpp")]
    inputs += [OVERLAY_DIR / "codegen.py", OVERLAY_DIR / "harness.py", *tree_files(OVERLAY_DIR / "templates")]
    inputs += [REPO_ROOT / name for name in ("scripts/patchset/native_ops.py", "scripts/patchset/fragments.py")]
    # The harnesses compile the added lines of fragments to C++ files the wheel lacks (UnaryOps.cpp, sparse,
    # functorch); the operators come from the native_functions.yaml fragments, read here and in the install.
    inputs += [p for folder in HARNESS_FRAGMENTS for p in tree_files(folder) if is_codegen_source(p.name)]
    roots = [p for p in inputs if p.is_relative_to(build.site)]
    local = [p for p in inputs if not p.is_relative_to(build.site)]
    return files_digest(roots, build.site) + files_digest(local, REPO_ROOT) + build.target.torch_version


def codegen(build: Build) -> None:
    stamp, digest = build.directory / "codegen.digest", codegen_digest(build)
    if unchanged(stamp, digest) and (build.directory / "gen" / "sources.cmake").is_file():
        print("overlay: torchgen skipped: its inputs are unchanged")
        return
    stamp.unlink(missing_ok=True)
    run([build.python, "-m", "scripts.overlay.codegen", "--out", str(build.directory / "gen")], "codegen")
    stamp.write_text(digest)


def configure_command(build: Build) -> list[str]:
    directory = build.directory
    command = [tool(build.python, "cmake"), "-S", str(OVERLAY_DIR), "-B", str(directory / "cmake"), "-G", "Ninja",
               f"-DPython_EXECUTABLE={build.python}", f"-DOVERLAY_GEN_DIR={directory / 'gen'}",
               f"-DOVERLAY_SOURCE_DIR={NATIVE_SOURCES}", f"-DOVERLAY_OUTPUT_DIR={directory / 'lib'}",
               f"-DOVERLAY_CUDA={build.cuda}", "-DCMAKE_BUILD_TYPE=Release",
               # Given, not left to the CMake cache, whose older value (a build folder from before a rename)
               # would otherwise outlive the default and build libraries the install does not look for.
               f"-DOVERLAY_NAME={overlay_install.PACKAGE.removeprefix('_')}"]
    ninja = tool(build.python, "ninja")
    return command + ([f"-DCMAKE_MAKE_PROGRAM={ninja}"] if os.sep in ninja else [])


def configure(build: Build) -> None:
    """Once per command line: later CMakeLists.txt or sources.cmake edits make ninja rerun CMake itself."""
    command = configure_command(build)
    stamp, digest = build.directory / "configure.digest", hashlib.sha256("\0".join(command).encode()).hexdigest()
    if unchanged(stamp, digest) and (build.directory / "cmake" / "build.ninja").is_file():
        print("overlay: cmake configure skipped: same command as last time")
        return
    stamp.unlink(missing_ok=True)
    run(command, "cmake configure")
    stamp.write_text(digest)


# ninja recompiles an object only when one of its inputs has a newer mtime than the object. A file put back
# with its old mtime (cp -p, rsync -a, tar, shutil.copy2, or a failed build's rollback of the install) is
# older than the objects compiled from the text it replaced: ninja would link those objects, the previous
# kernel, and the record would then call the build up to date. So each compile notes the content digest of
# every file it may read that can change (our sources, the generated code, the patched headers of the
# install) and when it ended; before the next compile, a file whose content differs from what that compile
# read, yet whose mtime is not after it ended, is given the current time, and ninja recompiles exactly what
# depends on it. A file edited since keeps its mtime (already newer than every object), so an editor holding
# it sees no change; a file of the install is rewritten by an atomic rename instead, since scratch copies of
# the venv share its inodes (scripts/testing/mutants.py) and a new mtime on a shared inode would show there.
COMPILED_INPUTS = "compiled-inputs.json"


def compile_inputs(build: Build) -> list[Path]:
    """The files a compile reads that can change between builds; the wheel's own files never do."""
    local = [*tree_files(REPO_ROOT / "aten_native"), *tree_files(OVERLAY_DIR / "src"), OVERLAY_DIR / "CMakeLists.txt",
             *tree_files(build.directory / "gen")]
    installed = [build.site / m for m in installed_paths(build.site) if not m.endswith(venv_patch.PYTHON_SUFFIXES)]
    return sorted({p for p in local + installed if p.is_file()})


def refresh_changed_inputs(build: Build) -> list[Path]:
    """Give the current time to every input whose content changed since the last compile without a newer mtime;
    then note what this compile reads. Returns the files refreshed."""
    manifest = build.directory / COMPILED_INPUTS
    try:
        last = json.loads(manifest.read_text())
    except (OSError, ValueError):
        last = None  # the first compile here, or one from before these notes: nothing to compare with
    digests = {str(p): file_digest(p) for p in compile_inputs(build)}
    refreshed = []
    if last is not None:
        ended = last.get("ended_ns")  # None: that compile was killed, so any changed file may be older than objects
        for name, digest in digests.items():
            path = Path(name)
            if last["digests"].get(name) != digest and (ended is None or path.stat().st_mtime_ns <= ended):
                refresh(path, build.site)
                refreshed.append(path)
    manifest.parent.mkdir(parents=True, exist_ok=True)
    manifest.write_text(json.dumps({"digests": digests, "ended_ns": None}))
    return refreshed


def refresh(path: Path, site: Path) -> None:
    if path.is_relative_to(site):
        temporary = path.with_name(path.name + ".overlay-tmp")
        shutil.copyfile(path, temporary)
        shutil.copymode(path, temporary)
        os.replace(temporary, path)
    else:
        os.utime(path)


def compile_and_link(build: Build) -> None:
    for path in refresh_changed_inputs(build):
        print(f"overlay: {path} changed with an mtime older than the last compile: recompiling what includes it")
    manifest = build.directory / COMPILED_INPUTS
    try:
        run([tool(build.python, "cmake"), "--build", str(build.directory / "cmake"), "-j", str(build.jobs)], "compile")
    finally:
        # Every object now is at most as new as this instant, even when the compile failed halfway.
        noted = json.loads(manifest.read_text())
        manifest.write_text(json.dumps({**noted, "ended_ns": time.time_ns()}))


def install_libraries(build: Path, site: Path) -> None:
    """Copy the freshly linked libraries in, each by an atomic rename, where their content changed."""
    target = site / PACKAGE
    target.mkdir(exist_ok=True)
    for library in sorted((build / "lib").glob("*.so")):
        installed = target / library.name
        if installed.is_file() and file_digest(installed) == file_digest(library):
            continue
        temporary = target / (library.name + ".new")
        shutil.copy2(library, temporary)
        os.replace(temporary, installed)


def install(build: Build) -> None:
    install_libraries(build.directory, build.site)
    try:
        changed = overlay_install.install(build.site, build.content_key[:16])
    except overlay_install.HookError as error:
        raise StepError(f"installing the import hook failed: {error}") from error
    print(f"overlay: {len(changed)} loader file(s) updated")


def check_import(build: Build) -> None:
    run([build.python, "-c", LOAD_CHECK or load_check_code()], "loading the overlay into torch")


def steps(build: Build) -> list[tuple[str, Callable[[Build], None]]]:
    return [
        ("apply yaml and header fragments", lambda b: patch(b, "build")),
        ("torchgen for the patch set's operators", codegen),
        ("cmake configure", configure),
        ("compile and link", compile_and_link),
        ("install the library and the import hook", install),
        ("apply Python fragments", lambda b: patch(b, "python")),
        ("load check", check_import),
    ]


# ---------------------------------------------------------------- the transaction


def describe_installed(build: Build) -> str:
    record = read_record(build.site)
    if record is not None:
        return record.describe()
    hooked = (build.site / "torch" / "__init__.py").is_file() and overlay_install.HOOK in (
        build.site / "torch" / "__init__.py").read_text(encoding="utf-8")
    if hooked:
        return f"torch {build.target.torch_version} with an overlay installed before builds were recorded"
    return f"torch {build.target.torch_version} without the overlay"


def up_to_date(build: Build, inputs: str) -> bool:
    record = read_record(build.site)
    return (record is not None and record.inputs == inputs
            and record.installed == installed_digest(build.site, output_paths(build.site)))


def build_and_install(build: Build, inputs: str) -> None:
    """Every step, then the record; on any failure or interrupt the install is put back as it was."""
    snapshot = Snapshot.take(build.site, installed_paths(build.site))
    checked = read_record(build.site)
    try:
        for name, action in steps(build):
            if name == "load check" and checked and checked.installed == installed_digest(build.site,
                                                                                         output_paths(build.site)):
                print("overlay: load check skipped: the installed files are the ones last checked")
                continue
            with step(name):
                action(build)
        write_record(build.site, Record(inputs, installed_digest(build.site, output_paths(build.site)),
                                        build.target.torch_version, skipped_fragments=build.skipped))
        mark_ready(build)
    except BaseException:
        snapshot.restore()
        raise
    snapshot.discard()


def mark_ready(build: Build) -> None:
    """build/overlay/ready.stamp changes (content and mtime) only when the installed overlay does:
    what make reruns the demo on."""
    record = read_record(build.site)
    text = f"{build.python}\n{record.installed if record else ''}\n"
    stamp = BUILD_ROOT / "ready.stamp"
    if not stamp.is_file() or stamp.read_text() != text:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(text)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--python", default=sys.executable, help="interpreter whose torch gets the overlay")
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("MAX_JOBS") or os.cpu_count() or 2))
    # CPU only unless asked: the CUDA units are a third of a cold build, and nothing runs them without a GPU.
    parser.add_argument("--cuda", choices=("AUTO", "ON", "OFF"), default="OFF",
                        help="OFF (default): CPU kernels only; AUTO: also the CUDA kernels when torch and nvcc have "
                             "CUDA; ON: the CUDA kernels, refusing a CPU-only torch or a missing nvcc")
    parser.add_argument("--need-python", nargs="*", default=[], metavar="UPSTREAM_PATH",
                        help="Python files (e.g. torch/_refs/__init__.py) whose fragments must apply off the pin too")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # A full path, never resolved through links: a venv's python is a link to the base interpreter.
    python = os.path.abspath(shutil.which(args.python) or args.python)
    started = time.monotonic()
    try:
        target = probe(python, need_cuda=args.cuda == "ON")
    except TargetError as error:
        print(f"overlay: error: {error}", file=sys.stderr)
        return 1
    build = Build(target, args.jobs, args.cuda, frozenset(args.need_python))
    interrupted = Snapshot.interrupted(build.site)
    if interrupted is not None:
        print("overlay: an earlier build was interrupted; putting back the install it started from")
        interrupted.restore()
    inputs = inputs_digest(build.settings())
    build.content_key = hashlib.sha256(inputs.encode()).hexdigest()  # hex, whatever form the digest takes
    if up_to_date(build, inputs):
        mark_ready(build)
        for line in read_record(build.site).skipped_fragments:
            print(f"overlay: skipped {line}", file=sys.stderr)
        print(f"overlay: up to date ({describe_installed(build)}; sources and installed files unchanged)")
        return 0
    pin = load_pin().version
    print(f"overlay: {python} has torch {target.torch_version} in {target.site}"
          + ("" if build.on_pin else f" (not the pinned {pin}: a topic whose Python fragments do not all apply is left out of the Python part)"))
    try:
        build_and_install(build, inputs)
    except (StepError, KeyboardInterrupt) as error:
        reason = "interrupted" if isinstance(error, KeyboardInterrupt) else str(error)
        print(f"overlay: error: {reason}; the install was put back as it was: {describe_installed(build)}",
              file=sys.stderr)
        return 1
    skipped = f"; {len(build.skipped)} topic(s) left out of the Python part (listed above)" if build.skipped else ""
    print(f"overlay: ready in {time.monotonic() - started:.1f}s{skipped}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

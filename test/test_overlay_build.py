"""`make overlay` end to end through main(), on a small fake install: a failed or interrupted build leaves
the install it started from (previous overlay or none) and says which; bad interpreters get one line."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path

import pytest

import scripts.overlay.build as overlay_build
from scripts.overlay.install import HOOK, PACKAGE
from scripts.patchset.fragments import load_sources
from scripts.patchset.pin import load_pin
from scripts.testing.mutants import scratch_copy

EXTENSION = f"{PACKAGE}_C{sysconfig.get_config_var('EXT_SUFFIX')}"
LIBRARY = "libtorch_native_overlay.so"
TORCH_INIT = """\
class _C:
    @staticmethod
    def _initExtension(path):
        pass


def _manager_path():
    return ""


_C._initExtension(_manager_path())
"""
EXTENSION_SOURCE = """\
#include <Python.h>
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "%s", "%s", -1, NULL};
PyMODINIT_FUNC PyInit_%s(void) { return PyModule_Create(&module); }
"""
# Which build's extension `import torch` loaded, through the hook.
LOADED = f"import torch, {PACKAGE} as o; print(o.{PACKAGE}_C.__doc__)"
PRIMS = "torch/_prims/__init__.py"


@pytest.fixture(scope="session")
def extensions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """Two loadable builds of the overlay's Python extension (docstrings 'v1', 'v2') and a broken one."""
    folder = tmp_path_factory.mktemp("extensions")
    built = {"broken": b"not a shared object"}
    name = f"{PACKAGE}_C"
    for version in ("v1", "v2"):
        source = folder / f"{version}.c"
        source.write_text(EXTENSION_SOURCE % (name, version, name))
        output = folder / f"{version}.so"
        include = sysconfig.get_paths()["include"]
        subprocess.run(["cc", "-shared", "-fPIC", f"-I{include}", str(source), "-o", str(output)], check=True)
        built[version] = output.read_bytes()
    return built


def fake_install(root: Path, version: str, cuda: str | None = "13.0", torchgen: bool = True) -> str:
    """A site-packages holding a stub torch (and torchgen), and an interpreter that sees only it."""
    site = root / "site"
    (site / "torch").mkdir(parents=True)
    (site / "torch" / "__init__.py").write_text(TORCH_INIT)
    (site / "torch" / "version.py").write_text(f"__version__ = {version!r}\ncuda = {cuda!r}\n")
    (site / f"torch-{version}.dist-info").mkdir()
    (site / f"torch-{version}.dist-info" / "METADATA").write_text(f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n")
    if torchgen:
        (site / "torchgen").mkdir()
        (site / "torchgen" / "__init__.py").write_text("")
    python = root / "bin" / "python"
    python.parent.mkdir()
    python.write_text(f'#!/bin/sh\nPYTHONPATH={site} exec {sys.executable} -S "$@"\n')
    python.chmod(0o755)
    return str(python)


class FakeBuild:
    """Stands in for torchgen, CMake and the compiler; installing, fragments and the load check are real."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, root: Path, extensions: dict[str, bytes]) -> None:
        self.extensions = extensions
        self.compiles = 0
        self.next: str | Callable[[], None] = "v1"
        self.sources = "sources as first built"
        monkeypatch.setattr(overlay_build, "inputs_digest", lambda settings: f"{self.sources} {settings}")
        monkeypatch.setattr(overlay_build, "BUILD_ROOT", root / "build")
        monkeypatch.setattr(overlay_build, "codegen", lambda build: None)
        monkeypatch.setattr(overlay_build, "configure", lambda build: None)
        monkeypatch.setattr(overlay_build, "compile_and_link", self.compile)
        monkeypatch.setattr(overlay_build, "LOAD_CHECK", f"import torch, {PACKAGE}")

    def compile(self, build: overlay_build.Build) -> None:
        self.compiles += 1
        if callable(self.next):
            self.next()
            return
        lib = build.directory / "lib"
        lib.mkdir(parents=True, exist_ok=True)
        (lib / EXTENSION).write_bytes(self.extensions[self.next])
        (lib / LIBRARY).write_bytes(self.next.encode())


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, extensions: dict[str, bytes]) -> FakeBuild:
    return FakeBuild(monkeypatch, tmp_path, extensions)


def loaded(python: str) -> str:
    result = subprocess.run([python, "-c", LOADED], capture_output=True, text=True)
    return result.stdout.strip() if result.returncode == 0 else f"import failed: {result.stderr.strip()[-200:]}"


def imports_torch(python: str) -> bool:
    return subprocess.run([python, "-c", "import torch"], capture_output=True).returncode == 0


def site_of(python: str) -> Path:
    return Path(python).parent.parent / "site"


def fail_compile() -> None:
    raise overlay_build.StepError("compile failed (exit 1)")


def interrupt() -> None:
    raise KeyboardInterrupt


def break_python_fragments(python: str) -> list[str]:
    """A _prims/__init__.py without the fragment's anchor, which the build is told it needs."""
    prims = site_of(python) / PRIMS
    prims.parent.mkdir(parents=True, exist_ok=True)
    prims.write_text("def cbrt(a):\n    return a\n")
    return ["--need-python", PRIMS]


FAILURES = {
    "compile": lambda fake, python: (setattr(fake, "next", fail_compile), [])[1],
    "load check": lambda fake, python: (setattr(fake, "next", "broken"), [])[1],
    "python fragments": lambda fake, python: (setattr(fake, "next", "v2"), break_python_fragments(python))[1],
    "interrupt": lambda fake, python: (setattr(fake, "next", interrupt), [])[1],
}


def installed_files(site: Path) -> dict[Path, bytes | None]:
    """Every file's content and every folder (None), so that a folder a build leaves behind counts too."""
    return {p: p.read_bytes() if p.is_file() else None for p in site.rglob("*") if "__pycache__" not in p.parts}


# What the install holds before the failing build, and how the error message names it.
EARLIER = {"first build": "torch 2.12.0 without the overlay", "rebuild": "torch 2.12.0 with the native-operator overlay built"}


@pytest.mark.parametrize("earlier", EARLIER)
@pytest.mark.parametrize("failure", FAILURES)
def test_a_failed_build_leaves_the_install_as_it_was_and_says_so(
    fake: FakeBuild, tmp_path: Path, failure: str, earlier: str, capsys: pytest.CaptureFixture[str]
) -> None:
    python = fake_install(tmp_path, "2.12.0")
    site = site_of(python)
    if earlier == "rebuild":
        assert overlay_build.main(["--python", python]) == 0
        fake.sources = "a kernel edited"
    extra = FAILURES[failure](fake, python)  # may break a file of the install on purpose, before the build
    before = installed_files(site)
    assert overlay_build.main(["--python", python, *extra]) == 1
    assert imports_torch(python) and (loaded(python) == "v1" if earlier == "rebuild" else HOOK not in (
        site / "torch" / "__init__.py").read_text())
    assert installed_files(site) == before
    assert f"the install was put back as it was: {EARLIER[earlier]}" in capsys.readouterr().err


def test_a_good_rebuild_replaces_the_overlay(fake: FakeBuild, tmp_path: Path) -> None:
    python = fake_install(tmp_path, "2.12.0")
    assert overlay_build.main(["--python", python]) == 0
    fake.next, fake.sources = "v2", "a kernel edited"
    assert overlay_build.main(["--python", python]) == 0
    assert loaded(python) == "v2"


def test_nothing_changed_means_nothing_is_rebuilt(
    fake: FakeBuild, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    python = fake_install(tmp_path, "2.12.0")
    assert overlay_build.main(["--python", python]) == 0
    assert overlay_build.main(["--python", python]) == 0
    assert fake.compiles == 1
    assert "overlay: up to date (torch 2.12.0 with the native-operator overlay built" in capsys.readouterr().out
    (site_of(python) / PACKAGE / LIBRARY).write_bytes(b"damaged")
    assert overlay_build.main(["--python", python]) == 0
    assert fake.compiles == 2 and (site_of(python) / PACKAGE / LIBRARY).read_bytes() == b"v1"


def test_off_the_pin_a_topic_whose_python_fragment_does_not_apply_is_left_out_and_named(
    fake: FakeBuild, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    python = fake_install(tmp_path, "2.12.0")
    break_python_fragments(python)
    assert overlay_build.main(["--python", python]) == 0
    assert loaded(python) == "v1"
    skipped = [line for line in capsys.readouterr().err.splitlines() if line.startswith("overlay: skipped")]
    topic = next(f.topic for ff in load_sources().fragment_files if ff.upstream_path == PRIMS for f in ff.fragments)
    assert skipped == [f"overlay: skipped topic {topic}'s Python fragments left out: frontend/{PRIMS}.fragments.toml "
                       "fragment #1: anchor '    return torch.copysign(torch.pow(a.abs(), 1 / 3), a)' not found in "
                       "torch/_prims/__init__.py; upstream changed this file: update the anchor"]
    assert (site_of(python) / PRIMS).read_text() == "def cbrt(a):\n    return a\n"


def test_on_the_pin_every_python_fragment_must_apply(
    fake: FakeBuild, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    python = fake_install(tmp_path, load_pin().version)
    break_python_fragments(python)
    assert overlay_build.main(["--python", python]) == 1
    assert "applying the python fragments failed" in capsys.readouterr().err
    assert imports_torch(python) and not (site_of(python) / PACKAGE).exists()


def test_an_interrupted_build_is_put_back_by_the_next_run(fake: FakeBuild, tmp_path: Path) -> None:
    python = fake_install(tmp_path, "2.12.0")
    site = site_of(python)
    snapshot = overlay_build.Snapshot.take(site, overlay_build.installed_paths(site))
    (site / "torch" / "__init__.py").write_text(TORCH_INIT + HOOK)  # the killed build got this far
    fake.next = fail_compile
    assert overlay_build.main(["--python", python]) == 1
    assert snapshot.store.exists() is False
    assert (site / "torch" / "__init__.py").read_text() == TORCH_INIT


# ---------------------------------------------------------------- interpreters


def test_a_missing_interpreter_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert overlay_build.main(["--python", str(tmp_path / "no-python")]) == 1
    assert capsys.readouterr().err == (f"overlay: error: PYTHON={tmp_path / 'no-python'} does not exist; "
                                       "pass an interpreter that has torch installed\n")


@pytest.mark.parametrize(
    ("install", "cuda", "message"),
    [
        (None, "AUTO", "has no torch; pip install torch==2.14.1 (any torch from 2.11 to 2.14.1 will do)"),
        ({"version": "2.12.0", "torchgen": False}, "AUTO", "has torch 2.12.0 but no torchgen"),
        ({"version": "2.10.1"}, "AUTO", "has torch 2.10.1, older than 2.11, the oldest the overlay builds on"),
        ({"version": "2.12.0", "cuda": None}, "ON", "has torch 2.12.0, a CPU-only build (torch.version.cuda is None), "
                                                    "but CUDA was asked for"),
    ],
    ids=["no torch", "no torchgen", "torch too old", "CPU-only torch with CUDA=ON"],
)
def test_a_bad_interpreter_gets_one_line(
    tmp_path: Path, install: dict | None, cuda: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if install is None:
        python = fake_install(tmp_path, "2.12.0")
        for path in sorted((tmp_path / "site").glob("torch*"), reverse=True):
            subprocess.run(["rm", "-r", str(path)], check=True)
    else:
        python = fake_install(tmp_path, **install)
    assert overlay_build.main(["--python", python, "--cuda", cuda]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"overlay: error: {python} ") and message in err


def test_the_venv_interpreter_is_accepted() -> None:
    target = overlay_build.probe(sys.executable)
    assert (target.site / "torch").is_dir() and target.release >= (2, 11)


# ---------------------------------------------------------------- codegen keyed by content


def test_torchgen_reruns_only_when_its_inputs_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    python = fake_install(tmp_path, "2.12.0")
    yaml = site_of(python) / overlay_build.CODEGEN_INPUT_MEMBERS[0]
    yaml.parent.mkdir(parents=True)
    yaml.write_text("- func: sqrt(Tensor self) -> Tensor\n")
    monkeypatch.setattr(overlay_build, "BUILD_ROOT", tmp_path / "build")
    runs: list[list[str]] = []

    def run(command: list[str], what: str) -> None:
        runs.append(command)
        out = Path(command[command.index("--out") + 1])
        out.mkdir(parents=True, exist_ok=True)
        (out / "sources.cmake").write_text("")

    monkeypatch.setattr(overlay_build, "run", run)
    build = overlay_build.Build(overlay_build.probe(python), 1, "AUTO", frozenset())
    overlay_build.codegen(build)
    overlay_build.codegen(build)
    assert len(runs) == 1
    yaml.touch()  # a new mtime alone changes nothing
    overlay_build.codegen(build)
    assert len(runs) == 1
    yaml.write_text("- func: sqrt(Tensor self) -> Tensor\n\n- func: cbrt(Tensor self) -> Tensor\n")
    overlay_build.codegen(build)
    assert len(runs) == 2


def test_torchgen_reruns_when_a_fragment_compiled_in_a_harness_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = fake_install(tmp_path, "2.12.0")
    fragments = Path(overlay_build.REPO_ROOT) / "build" / "test-harness-fragments"
    shutil.rmtree(fragments, ignore_errors=True)
    (fragments / "sparse").mkdir(parents=True)
    harness_fragment = fragments / "sparse" / "SparseUnaryOps.cpp.fragments.toml"
    harness_fragment.write_text("# COALESCED_UNARY_UFUNC(cbrt)\n")
    monkeypatch.setattr(overlay_build, "HARNESS_FRAGMENTS", (fragments,))
    build = overlay_build.Build(overlay_build.probe(python), 1, "AUTO", frozenset())
    before = overlay_build.codegen_digest(build)
    harness_fragment.write_text("# COALESCED_UNARY_UFUNC(cbrt) changed\n")
    assert overlay_build.codegen_digest(build) != before
    shutil.rmtree(fragments)


# ---------------------------------------------------------------- a real build in a scratch copy

KERNEL = "aten_native/aten/src/ATen/native/cpu/CbrtKernel.cpp"
# The kernel's vector path adds 1 to every result (the 37 contiguous inputs below fill at least two vectors).
KERNEL_SLIP = (("{ return a.cbrt(); }", "{ return a.cbrt() + Vectorized<scalar_t>(scalar_t(1)); }"),)
CUBE_ROOTS = ("import torch\nx = torch.full((37,), 8.0)\n"
              "print([torch.cbrt(x.to(d)).tolist() for d in (torch.float32, torch.float64)], "
              "torch.cbrt(x[::2]).tolist())")


def built(scratch: Path, python: str) -> None:
    result = subprocess.run([python, "-m", "scripts.overlay.build", "--python", python], cwd=scratch,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def cube_roots(python: str) -> str:
    return subprocess.run([python, "-c", CUBE_ROOTS], capture_output=True, text=True, check=True).stdout


@pytest.mark.skipif(not os.environ.get("CBRT_SCRATCH_BUILD"), reason="a full overlay build in a scratch copy "
                    "(minutes on 2 cores): set CBRT_SCRATCH_BUILD=1")
def test_a_source_restored_with_its_old_mtime_is_recompiled(tmp_path: Path) -> None:
    """cp -p, rsync -a, tar and shutil.copy2 put back a file's old mtime, older than the objects compiled from the
    edit: the build must still compile the restored text, not keep the edited kernel behind an 'up to date' record."""
    scratch = scratch_copy(tmp_path / "tree", with_venv=True)
    python = str(scratch / ".venv" / "bin" / "python")
    built(scratch, python)
    original = cube_roots(python)
    kernel = scratch / KERNEL
    saved = tmp_path / "CbrtKernel.cpp.saved"
    shutil.copy2(kernel, saved)
    text = kernel.read_text()
    for find, replace in KERNEL_SLIP:
        assert text.count(find) == 1, find
        text = text.replace(find, replace)
    kernel.write_text(text)
    built(scratch, python)
    assert cube_roots(python) != original  # the slip is compiled in
    shutil.copy2(saved, kernel)  # the original text, and its old mtime
    built(scratch, python)
    assert cube_roots(python) == original


def test_an_input_put_back_with_its_old_mtime_is_recompiled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real ninja, one copy rule per input standing in for CMake's compile rules: a kernel source of the repository
    and a header of the install, each edited, compiled, then put back with its old mtime (shutil.copy2, as cp -p,
    rsync -a, tar or a failed build's rollback do) must be compiled again; the install's header is replaced, never
    touched in place, so a scratch venv hard-linked to it keeps its mtime."""
    python = fake_install(tmp_path, "2.12.0")
    repo = tmp_path / "repo"
    monkeypatch.setattr(overlay_build, "REPO_ROOT", repo)
    monkeypatch.setattr(overlay_build, "OVERLAY_DIR", repo / "scripts" / "overlay")
    monkeypatch.setattr(overlay_build, "BUILD_ROOT", tmp_path / "build")
    build = overlay_build.Build(overlay_build.probe(python), 1, "OFF", frozenset())
    inputs = {"kernel": repo / KERNEL, "header": build.site / "torch/include/ATen/cpu/vec/vec_cbrt.h"}
    ninja_file = build.directory / "cmake" / "build.ninja"
    ninja_file.parent.mkdir(parents=True)
    ninja_file.write_text("rule copy\n  command = cp $in $out\n" + "".join(
        f"build {name}.o: copy {path}\n" for name, path in inputs.items()))
    ninja = shutil.which("ninja", path=str(Path(sys.executable).parent)) or "ninja"
    monkeypatch.setattr(overlay_build, "run", lambda command, what: subprocess.run(
        [ninja, "-C", command[command.index("--build") + 1]], check=True, capture_output=True))
    for name, path in inputs.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{name} as shipped\n")
    overlay_build.compile_and_link(build)
    for name, path in inputs.items():
        shutil.copy2(path, tmp_path / f"{name}.saved")
        path.write_text(f"{name} with a slip\n")
    overlay_build.compile_and_link(build)
    assert (build.directory / "cmake" / "kernel.o").read_text() == "kernel with a slip\n"
    linked = tmp_path / "scratch-venv-link.h"
    for name, path in inputs.items():
        shutil.copy2(tmp_path / f"{name}.saved", path)  # the original text, and its old mtime
    os.link(inputs["header"], linked)
    linked_mtime = linked.stat().st_mtime_ns
    overlay_build.compile_and_link(build)
    for name in inputs:
        assert (build.directory / "cmake" / f"{name}.o").read_text() == f"{name} as shipped\n", name
    assert linked.stat().st_mtime_ns == linked_mtime and linked.read_text() == "header as shipped\n"

"""`make cross-arch`: Vectorized<T>::cbrt() gives the same bits on every architecture and CPU capability.

Builds test/cross_arch/vec_cbrt_identity.cpp against the installed torch's (patched) vec headers once per build in
scripts/cross_arch/targets.py, runs each natively or under qemu-user, and compares every result with the first
x86 build's, and with the interpreter's torch.cbrt where it has one. Bitwise, except that any NaN equals any NaN.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scripts.cross_arch.targets import Build, programs_needed, runnable_builds
from scripts.cross_arch.toolchain import install
from scripts.layout import REPO_ROOT

PROGRAM = REPO_ROOT / "test" / "cross_arch" / "vec_cbrt_identity.cpp"
DEFAULT_OUTPUT = REPO_ROOT / "build" / "cross-arch"
FLOAT_SAMPLE = 1 << 20


@dataclass(frozen=True)
class Layout:
    """How a dtype's results are stored: little-endian unsigned integers of its width."""

    bits: str
    exponent_bits: int
    mantissa_bits: int

    def is_nan(self, values: np.ndarray) -> np.ndarray:
        magnitude = values & np.array((1 << (self.exponent_bits + self.mantissa_bits)) - 1, dtype=values.dtype)
        infinity = ((1 << self.exponent_bits) - 1) << self.mantissa_bits
        return magnitude > infinity


LAYOUTS = {
    "float32": Layout("<u4", 8, 23),
    "float64": Layout("<u8", 11, 52),
    "float16": Layout("<u2", 5, 10),
    "bfloat16": Layout("<u2", 8, 7),
}


def differing(expected: np.ndarray, actual: np.ndarray, layout: Layout) -> np.ndarray:
    """Indices whose results differ: bit patterns, except that any NaN equals any NaN."""
    both_nan = layout.is_nan(expected) & layout.is_nan(actual)
    return np.flatnonzero((expected != actual) & ~both_nan)


def torch_include() -> Path:
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        raise SystemExit("error: this interpreter has no torch: run `make venv` and use .venv/bin/python")
    return Path(spec.origin).parent / "include"


# vec256_zarch.h hands its entry points to mapSleef as function pointers (mapSleef(Sleef_fmodf4, Sleef_fmodd2, b)),
# whose type a template cannot give: those need one plain declaration each, of the vector type the name's suffix
# says (f4: four floats, d2: two doubles; variadic, since they are unary or binary).
ZARCH_HEADER = "vec256/zarch/vec256_zarch.h"
ZARCH_VECTOR_TYPES = {"f4": "__vector float", "d2": "__vector double"}


def zarch_declaration(name: str) -> str | None:
    match = re.fullmatch(r"Sleef_[a-z0-9]+?(f4|d2)(?:_u\d+)?", name)
    vector = ZARCH_VECTOR_TYPES[match.group(1)] if match else None
    return f"{vector} {name}({vector}, ...);" if vector else None


def write_sleef_shim(include: Path, folder: Path) -> Path:
    """The wheel's sleef.h declares only x86 entry points, but the NEON, SVE, VSX and ZVECTOR headers name their
    own in members that the vec code tested never calls. Declaring each name lets those headers compile; a call
    would fail to link, since nothing defines them."""
    vec = include / "ATen" / "cpu" / "vec"
    named = {header: set(re.findall(r"\bSleef_\w+", header.read_text())) for header in vec.rglob("*.h")}
    names = sorted(set().union(*named.values()))
    zarch = named.get(vec / ZARCH_HEADER, set())
    lines = ["#pragma once"]
    for name in names:
        template = f"template <typename V, typename... W> V {name}(V, W...);"
        plain = zarch_declaration(name) if name in zarch else None
        lines += [template] if plain is None else ["#if defined(__s390x__)", plain, "#else", template, "#endif"]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sleef.h").write_text("\n".join(lines) + "\n")
    return folder


def compile_command(build: Build, include: Path, shim: Path, executable: Path) -> list[str]:
    includes = [f"-I{shim}"] if build.uses_sleef_shim else []
    linking = ["-static"] if build.emulated else []
    return [build.compiler, "-std=c++20", "-O3", *build.flags, *includes, f"-I{include}", *linking,
            str(PROGRAM), "-o", str(executable)]


@dataclass(frozen=True)
class Outcome:
    build: Build
    folder: Path
    error: str | None
    compile_seconds: float
    run_seconds: float


def build_and_run(build: Build, include: Path, shim: Path, output: Path, sample: int, seed: int) -> Outcome:
    folder = output / build.name
    folder.mkdir(parents=True, exist_ok=True)
    for stale in [*folder.glob("*.in"), *folder.glob("*.out")]:
        stale.unlink()
    # Cached by content: the program, the shim and the command (whose include folder is named by the digest of
    # everything the patched headers depend on, scripts/cross_arch/vec_tests.py).
    command = compile_command(build, include, shim, folder / "partial")
    key = hashlib.sha256("\0".join(command).encode() + PROGRAM.read_bytes()
                         + (shim / "sleef.h").read_bytes()).hexdigest()[:16]
    executable = folder / f"vec_cbrt_identity-{key}"
    started = time.monotonic()
    if not executable.is_file():
        compiled = subprocess.run(command, capture_output=True, text=True)
        if compiled.returncode != 0:
            seconds = time.monotonic() - started
            return Outcome(build, folder, f"compile failed:\n{compiled.stderr[-3000:]}", seconds, 0.0)
        (folder / "partial").rename(executable)
        for stale in folder.glob("vec_cbrt_identity*"):
            if stale != executable:
                stale.unlink()
    compile_seconds = time.monotonic() - started
    started = time.monotonic()
    ran = subprocess.run([*build.runner, str(executable), str(folder), str(sample), str(seed)],
                         capture_output=True, text=True)
    run_seconds = time.monotonic() - started
    error = None if ran.returncode == 0 else f"run failed ({ran.returncode}):\n{ran.stderr[-3000:]}"
    return Outcome(build, folder, error, compile_seconds, run_seconds)


def read(folder: Path, dtype: str, kind: str) -> np.ndarray:
    return np.fromfile(folder / f"{dtype}.{kind}", dtype=LAYOUTS[dtype].bits)


def describe(dtype: str, inputs: np.ndarray, expected: np.ndarray, actual: np.ndarray, where: np.ndarray) -> str:
    width = 2 * np.dtype(LAYOUTS[dtype].bits).itemsize
    shown = ", ".join(f"cbrt(0x{inputs[i]:0{width}x}) = 0x{actual[i]:0{width}x}, not 0x{expected[i]:0{width}x}"
                      for i in where[:3])
    return f"{dtype}: {len(where)} of {len(inputs)} results differ ({shown})"


def compare_folders(reference: Path, other: Path) -> list[str]:
    problems = []
    for dtype, layout in LAYOUTS.items():
        inputs = read(reference, dtype, "in")
        if not np.array_equal(inputs, read(other, dtype, "in")):
            problems.append(f"{dtype}: the inputs differ, so the program is not portable")
            continue
        expected, actual = read(reference, dtype, "out"), read(other, dtype, "out")
        where = differing(expected, actual, layout)
        if len(where):
            problems.append(describe(dtype, inputs, expected, actual, where))
    return problems


def compare_with_torch(reference: Path) -> list[str] | None:
    """The reference inputs through this interpreter's torch.cbrt; None when its torch has no cbrt."""
    import torch

    if not hasattr(torch, "cbrt"):
        return None
    problems = []
    signed = {"float32": torch.int32, "float64": torch.int64, "float16": torch.int16, "bfloat16": torch.int16}
    for dtype, layout in LAYOUTS.items():
        inputs = read(reference, dtype, "in")
        as_tensor = torch.from_numpy(inputs.view(inputs.dtype.str.replace("u", "i"))).view(getattr(torch, dtype))
        actual = torch.cbrt(as_tensor).view(signed[dtype]).numpy().view(inputs.dtype)
        expected = read(reference, dtype, "out")
        where = differing(expected, actual, layout)
        if len(where):
            problems.append(describe(dtype, inputs, expected, actual, where))
    return problems


def run_all(include: Path, output: Path, builds: list[Build], sample: int, seed: int, jobs: int) -> list[Outcome]:
    shim = write_sleef_shim(include, output / "sleef-shim")
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(build_and_run, b, include, shim, output, sample, seed) for b in builds]
        return [f.result() for f in futures]


def report(outcomes: list[Outcome], with_torch: bool) -> list[str]:
    """One line per build, and every problem found; the first build that ran is the reference."""
    problems = [f"{o.build.name}: {o.error}" for o in outcomes if o.error]
    # a run that found a differing tail still wrote its results: compare them too
    ran = [o for o in outcomes if all((o.folder / f"{d}.out").is_file() for d in LAYOUTS)]
    if not ran:
        return problems or ["no build ran"]
    reference = ran[0]
    for outcome in ran:
        found = [] if outcome is reference else compare_folders(reference.folder, outcome.folder)
        problems += [f"{outcome.build.name} vs {reference.build.name}: {p}" for p in found]
        state = "reference" if outcome is reference else "identical" if not found else "DIFFERENT"
        state += "" if outcome.error is None else ", FAILED"
        runner = " ".join(outcome.build.runner) or "native"
        print(f"cross-arch: {outcome.build.name:18} {state:10} compile {outcome.compile_seconds:5.1f}s, "
              f"run {outcome.run_seconds:5.1f}s ({runner})")
    if with_torch:
        found = compare_with_torch(reference.folder)
        if found is None:
            print("cross-arch: this torch has no torch.cbrt (overlay not built): not compared with it")
        else:
            problems += [f"torch.cbrt vs {reference.build.name}: {p}" for p in found]
            print(f"cross-arch: torch.cbrt         {'identical' if not found else 'DIFFERENT'}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--include", type=Path, help="header root to build against (default: the torch's include)")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--builds", nargs="+", help="build names (default: all this machine can run)")
    parser.add_argument("--sample", type=int, default=FLOAT_SAMPLE, help="random float32 and float64 inputs")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--jobs", type=int, default=2, help="builds compiled and run at once")
    parser.add_argument("--no-torch", action="store_true", help="do not compare with this interpreter's torch.cbrt")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1, not 0, when a missing toolchain skips the run (CI)")
    args = parser.parse_args(argv)
    builds = runnable_builds()
    if args.builds:
        unknown = set(args.builds) - {b.name for b in builds}
        if unknown:
            raise SystemExit(f"error: unknown or not runnable here: {' '.join(sorted(unknown))}; "
                             f"choose from {' '.join(b.name for b in builds)}")
        builds = [b for b in builds if b.name in args.builds]
    skipped = install(programs_needed(builds))
    if skipped or not builds:
        skipped = skipped or "no build this machine can run"
        print(skipped)
        return 1 if args.strict else 0
    outcomes = run_all(args.include or torch_include(), args.output, builds, args.sample, args.seed, args.jobs)
    problems = report(outcomes, with_torch=not args.no_torch)
    for problem in problems:
        print(f"cross-arch: {problem}", file=sys.stderr)
    print(f"cross-arch: {'FAILED' if problems else 'all builds give the same bits'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

"""The builds of test/cross_arch/vec_cbrt_identity.cpp: PyTorch's per-capability flags and how each one runs.

Flags follow PyTorch's cmake/Codegen.cmake and Inductor's torch/_inductor/cpu_vec_isa.py: the capability macros
(CPU_CAPABILITY=<name>, CPU_CAPABILITY_<name>) select the vec headers' code path, the -m flags the instructions.
Each build is listed as an x86-64 Linux host runs it: x86 natively, every other architecture cross-compiled and
run under qemu-user. `builds_for_host` turns that list into what another host runs: on an aarch64 Linux host the
aarch64 builds its CPU can run are the same builds with the host's compiler and no qemu prefix (`native mode`), on
macOS arm64 the clang ones with Apple's clang; builds a host cannot run are left out.
"""

from __future__ import annotations

import os
import platform
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

CLANG = "clang++-19"  # Debian's clang; `clang++` (Apple's) in native mode on macOS


@dataclass(frozen=True)
class Build:
    name: str
    compiler: str
    flags: tuple[str, ...]
    runner: tuple[str, ...] = ()  # empty: runs natively
    cpu_flags: tuple[str, ...] = ()  # CPU features (/proc/cpuinfo names) a native run needs
    uses_sleef_shim: bool = False
    arch: str = "x86_64"
    # Programs the build needs besides its compiler and runner: clang's cross builds take the GCC cross
    # toolchain's libstdc++, glibc and linker.
    needs: tuple[str, ...] = ()
    # Extra sources compiled into the vec tests' binary (paths relative to the repository root).
    vec_test_sources: tuple[str, ...] = ()

    @property
    def emulated(self) -> bool:
        return bool(self.runner)

    @property
    def toolchain(self) -> str:
        return "clang" if "clang" in self.compiler else "gcc"


def capability(name: str) -> tuple[str, ...]:
    return (f"-DCPU_CAPABILITY={name}", f"-DCPU_CAPABILITY_{name}")


AVX2_FLAGS = ("-mavx2", "-mfma", "-mf16c")
AVX512_FLAGS = ("-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq", "-mfma")
AVX2_CPU = ("avx2", "fma", "f16c")
AVX512_CPU = ("avx512f", "avx512bw", "avx512vl", "avx512dq", "fma")
# aarch64 wheels build their DEFAULT capability with NEON (vec128) and Sleef's AdvSIMD entry points.
ARM_SLEEF = ("-DAT_BUILD_ARM_VEC256_WITH_SLEEF",)
NEON = (*capability("DEFAULT"), "-DCPU_CAPABILITY_NEON", *ARM_SLEEF)
# Inductor's VecSVE(bits): -march=armv8-a+sve+bf16 -msve-vector-bits=<bits> and these macros.
def sve(bits: int) -> tuple[str, ...]:
    return ("-march=armv8-a+sve+bf16", f"-msve-vector-bits={bits}", "-D__ARM_FEATURE_BF16", "-DCPU_CAPABILITY_SVE",
            *capability(f"SVE{bits}"), *ARM_SLEEF)


# clang cross-compiles with the GCC cross toolchain's sysroot and linker (Debian's layout, found by --target).
AARCH64_CLANG = (CLANG, "--target=aarch64-linux-gnu")
AARCH64_GCC = "aarch64-linux-gnu-g++"
QEMU_AARCH64 = "qemu-aarch64"
SVE_CPU = ("sve", "svebf16")

# A build whose long double is double, as on MSVC x64 and on Apple arm64 (both: `long double` is an IEEE double and
# libm's cbrtl is cbrt), which no Linux x86 or aarch64 toolchain has: on those long double is x87's 64-bit
# significand or IEEE quad, so a long double reference is far more exact than the double results it checks, and a
# test whose reference leans on that passes here and fails there. GCC's -mlong-double-64 makes long double double;
# glibc has no such ABI on x86-64 (its cbrtl reads an x87 value), so test/cross_arch/narrow_long_double.cpp
# supplies the long double math functions as their double versions, as those platforms' libraries are.
NARROW_LONG_DOUBLE = ("-mlong-double-64",)

BUILDS: tuple[Build, ...] = (
    Build("x86_64-default", "g++", capability("DEFAULT")),
    Build("x86_64-avx2", "g++", (*AVX2_FLAGS, *capability("AVX2")), cpu_flags=AVX2_CPU),
    Build("x86_64-avx512", "g++", (*AVX512_FLAGS, *capability("AVX512")), cpu_flags=AVX512_CPU),
    Build("aarch64-neon", AARCH64_GCC, NEON, runner=(QEMU_AARCH64,), cpu_flags=("asimd",),
          uses_sleef_shim=True, arch="aarch64"),
    # armv8.2-a+fp16 turns on the NEON half headers' __ARM_FEATURE_FP16_VECTOR_ARITHMETIC paths.
    Build("aarch64-neon-fp16", AARCH64_GCC, ("-march=armv8.2-a+fp16", *NEON),
          runner=(QEMU_AARCH64, "-cpu", "max"), cpu_flags=("asimd", "asimdhp"), uses_sleef_shim=True, arch="aarch64"),
    Build("aarch64-sve256", AARCH64_GCC, sve(256), runner=(QEMU_AARCH64, "-cpu", "max,sve256=on"),
          cpu_flags=(*SVE_CPU, "sve_vl256"), uses_sleef_shim=True, arch="aarch64"),
    Build("ppc64le-vsx", "powerpc64le-linux-gnu-g++", ("-mvsx", *capability("VSX")),
          runner=("qemu-ppc64le",), uses_sleef_shim=True, arch="ppc64le"),
    Build("s390x-zvector", "s390x-linux-gnu-g++",
          ("-march=z14", "-mvx", "-mzvector", *capability("ZVECTOR"), "-DHAVE_ZVECTOR_CPU_DEFINITION"),
          runner=("qemu-s390x", "-cpu", "max"), uses_sleef_shim=True, arch="s390x"),
    # clang: the same capabilities. With +sve, clang takes vec128_float_neon.h's
    # `#if defined(__clang__) && defined(__ARM_FEATURE_SVE)` branch (fmadd and friends as SVE instructions), which
    # GCC never compiles.
    Build("x86_64-avx2-clang", CLANG, (*AVX2_FLAGS, *capability("AVX2")), cpu_flags=AVX2_CPU),
    Build("x86_64-avx512-clang", CLANG, (*AVX512_FLAGS, *capability("AVX512")), cpu_flags=AVX512_CPU),
    Build("aarch64-neon-clang", CLANG, (AARCH64_CLANG[1], *NEON), runner=(QEMU_AARCH64,), cpu_flags=("asimd",),
          uses_sleef_shim=True, arch="aarch64", needs=(AARCH64_GCC,)),
    Build("aarch64-neon-sve-clang", CLANG, (AARCH64_CLANG[1], "-march=armv8-a+sve", *NEON),
          runner=(QEMU_AARCH64, "-cpu", "max"), cpu_flags=("asimd", "sve"), uses_sleef_shim=True, arch="aarch64",
          needs=(AARCH64_GCC,)),
    Build("aarch64-sve256-clang", CLANG, (AARCH64_CLANG[1], *sve(256)), runner=(QEMU_AARCH64, "-cpu", "max,sve256=on"),
          cpu_flags=(*SVE_CPU, "sve_vl256"), uses_sleef_shim=True, arch="aarch64", needs=(AARCH64_GCC,)),
    # SVE128 (v2.14.1's DispatchStub has it; Inductor picks it where the SVE vector length is 128 bits): the NEON
    # classes (vec128) with SVE instructions, through the same clang branch. Clang only: GCC 12 rejects the NEON
    # bfloat16 header under these flags (vld1q_bf16: target specific option mismatch).
    Build("aarch64-sve128-clang", CLANG, (AARCH64_CLANG[1], *sve(128)), runner=(QEMU_AARCH64, "-cpu", "max,sve128=on"),
          cpu_flags=(*SVE_CPU, "sve_vl128"), uses_sleef_shim=True, arch="aarch64", needs=(AARCH64_GCC,)),
    Build("x86_64-avx2-narrow-long-double", "g++", (*AVX2_FLAGS, *capability("AVX2"), *NARROW_LONG_DOUBLE),
          cpu_flags=AVX2_CPU, vec_test_sources=("test/cross_arch/narrow_long_double.cpp",)),
)

# Debian packages that provide each cross compiler and emulator.
PACKAGES = {
    "aarch64-linux-gnu-g++": "g++-aarch64-linux-gnu",
    "powerpc64le-linux-gnu-g++": "g++-powerpc64le-linux-gnu",
    "s390x-linux-gnu-g++": "g++-s390x-linux-gnu",
    "qemu-aarch64": "qemu-user",
    "qemu-ppc64le": "qemu-user",
    "qemu-s390x": "qemu-user",
    CLANG: "clang-19",
}


@dataclass(frozen=True)
class Host:
    """What decides which builds run here, and how: the architecture, the OS and the CPU's features."""

    arch: str  # x86_64, aarch64, ...
    system: str  # Linux, Darwin
    cpu_flags: frozenset[str]


def host_arch() -> str:
    machine = platform.machine().lower()
    return {"arm64": "aarch64", "amd64": "x86_64"}.get(machine, machine)


def linux_cpu_flags(cpuinfo: str, sve_default_vector_bytes: str | None) -> set[str]:
    """/proc/cpuinfo's `flags` (x86) or `Features` (aarch64), and sve_vl<bits> for the SVE vector length."""
    line = next((x for x in cpuinfo.splitlines() if x.startswith(("flags", "Features"))), "")
    flags = set(line.partition(":")[2].split())
    if "sve" in flags and sve_default_vector_bytes and sve_default_vector_bytes.strip().isdigit():
        flags.add(f"sve_vl{8 * int(sve_default_vector_bytes)}")
    return flags


# macOS's sysctl names for the aarch64 features the builds ask for (every Apple arm64 CPU has NEON).
DARWIN_FEATURES = {"hw.optional.AdvSIMD": "asimd", "hw.optional.arm.FEAT_FP16": "asimdhp",
                   "hw.optional.arm.FEAT_BF16": "bf16"}


def host_cpu_flags() -> set[str]:
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        vector_length = Path("/proc/sys/abi/sve_default_vector_length")
        return linux_cpu_flags(cpuinfo.read_text(), vector_length.read_text() if vector_length.is_file() else None)
    if platform.system() == "Darwin":
        found = subprocess.run(["sysctl", *DARWIN_FEATURES], capture_output=True, text=True).stdout
        values = dict(line.split(": ", 1) for line in found.splitlines() if ": " in line)
        return {flag for name, flag in DARWIN_FEATURES.items() if values.get(name, "").strip() == "1"}
    return set()


def this_host() -> Host:
    return Host(host_arch(), platform.system(), frozenset(host_cpu_flags()))


def native_compiler(build: Build, host: Host) -> str | None:
    """The compiler of `build` on a host of its architecture, or None when that host has none for it."""
    if host.system == "Darwin":
        return "clang++" if build.toolchain == "clang" else None  # Apple's clang; no GCC there
    return CLANG if build.toolchain == "clang" else "g++"


def for_host(build: Build, host: Host) -> Build | None:
    """`build` as `host` runs it: natively where it is of the host's architecture and the CPU has what it needs
    (the same flags, the host's compiler, no --target, no qemu), emulated on Linux otherwise (as listed, or with the
    host's compiler where the architecture is the host's); None where the host cannot run it."""
    if build.arch == host.arch:
        compiler = native_compiler(build, host)
        if compiler is None:
            return None
        flags = tuple(f for f in build.flags if not f.startswith("--target="))
        if set(build.cpu_flags) <= host.cpu_flags:
            return replace(build, compiler=compiler, flags=flags, runner=(), needs=())
        # the host's compiler still builds it; qemu-user runs what this CPU lacks (an SVE256 build on 128-bit SVE)
        if build.emulated and host.system == "Linux":
            return replace(build, compiler=compiler, flags=flags, needs=())
        return None
    if build.emulated and host.system == "Linux":
        return build
    return None


def builds_for_host(host: Host | None = None, builds: tuple[Build, ...] = BUILDS) -> list[Build]:
    host = host or this_host()
    return [b for b in (for_host(b, host) for b in builds) if b is not None]


def runnable_builds() -> list[Build]:
    """Every build this machine can run: natively, or under qemu-user on Linux. CROSS_ARCH_BUILDS (a
    comma-separated list of names) narrows it."""
    builds = builds_for_host()
    chosen = os.environ.get("CROSS_ARCH_BUILDS")
    return [b for b in builds if b.name in chosen.split(",")] if chosen else builds


def programs_needed(builds: list[Build]) -> list[str]:
    return sorted({b.compiler for b in builds} | {b.runner[0] for b in builds if b.runner}
                  | {p for b in builds for p in b.needs})

"""The builds of test/cross_arch/vec_cbrt_identity.cpp: PyTorch's per-capability flags and how each one runs.

Flags follow PyTorch's cmake/Codegen.cmake and Inductor's torch/_inductor/cpu_vec_isa.py: the capability macros
(CPU_CAPABILITY=<name>, CPU_CAPABILITY_<name>) select the vec headers' code path, the -m flags the instructions.
"""

from __future__ import annotations

import platform
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Build:
    name: str
    compiler: str
    flags: tuple[str, ...]
    runner: tuple[str, ...] = ()  # empty: runs natively
    cpu_flags: tuple[str, ...] = ()  # /proc/cpuinfo flags a native build needs
    uses_sleef_shim: bool = False

    @property
    def emulated(self) -> bool:
        return bool(self.runner)


def capability(name: str) -> tuple[str, ...]:
    return (f"-DCPU_CAPABILITY={name}", f"-DCPU_CAPABILITY_{name}")


AVX512_FLAGS = ("-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq", "-mfma")
# aarch64 wheels build their DEFAULT capability with NEON (vec128) and Sleef's AdvSIMD entry points.
ARM_SLEEF = ("-DAT_BUILD_ARM_VEC256_WITH_SLEEF",)

BUILDS: tuple[Build, ...] = (
    Build("x86_64-default", "g++", capability("DEFAULT")),
    Build("x86_64-avx2", "g++", ("-mavx2", "-mfma", "-mf16c", *capability("AVX2")), cpu_flags=("avx2", "fma", "f16c")),
    Build("x86_64-avx512", "g++", (*AVX512_FLAGS, *capability("AVX512")),
          cpu_flags=("avx512f", "avx512bw", "avx512vl", "avx512dq", "fma")),
    Build("aarch64-neon", "aarch64-linux-gnu-g++", (*capability("DEFAULT"), "-DCPU_CAPABILITY_NEON", *ARM_SLEEF),
          runner=("qemu-aarch64",), uses_sleef_shim=True),
    # armv8.2-a+fp16 turns on the NEON half headers' __ARM_FEATURE_FP16_VECTOR_ARITHMETIC paths.
    Build("aarch64-neon-fp16", "aarch64-linux-gnu-g++",
          ("-march=armv8.2-a+fp16", *capability("DEFAULT"), "-DCPU_CAPABILITY_NEON", *ARM_SLEEF),
          runner=("qemu-aarch64", "-cpu", "max"), uses_sleef_shim=True),
    Build("aarch64-sve256", "aarch64-linux-gnu-g++",
          ("-march=armv8-a+sve+bf16", "-msve-vector-bits=256", "-D__ARM_FEATURE_BF16", "-DCPU_CAPABILITY_SVE",
           *capability("SVE256"), *ARM_SLEEF),
          runner=("qemu-aarch64", "-cpu", "max,sve256=on"), uses_sleef_shim=True),
    Build("ppc64le-vsx", "powerpc64le-linux-gnu-g++", ("-mvsx", *capability("VSX")),
          runner=("qemu-ppc64le",), uses_sleef_shim=True),
    Build("s390x-zvector", "s390x-linux-gnu-g++",
          ("-march=z14", "-mvx", "-mzvector", *capability("ZVECTOR"), "-DHAVE_ZVECTOR_CPU_DEFINITION"),
          runner=("qemu-s390x", "-cpu", "max"), uses_sleef_shim=True),
)

# Debian packages that provide each cross compiler and emulator.
PACKAGES = {
    "aarch64-linux-gnu-g++": "g++-aarch64-linux-gnu",
    "powerpc64le-linux-gnu-g++": "g++-powerpc64le-linux-gnu",
    "s390x-linux-gnu-g++": "g++-s390x-linux-gnu",
    "qemu-aarch64": "qemu-user",
    "qemu-ppc64le": "qemu-user",
    "qemu-s390x": "qemu-user",
}


def host_cpu_flags() -> set[str]:
    cpuinfo = Path("/proc/cpuinfo")
    if not cpuinfo.is_file():
        return set()
    line = next((x for x in cpuinfo.read_text().splitlines() if x.startswith("flags")), "")
    return set(line.partition(":")[2].split())


def runnable_builds() -> list[Build]:
    """Every cross build, and the native x86 builds this CPU can run."""
    flags = host_cpu_flags() if platform.machine() == "x86_64" else None
    return [b for b in BUILDS if b.emulated or (flags is not None and set(b.cpu_flags) <= flags)]


def programs_needed(builds: list[Build]) -> list[str]:
    return sorted({b.compiler for b in builds} | {b.runner[0] for b in builds if b.runner})

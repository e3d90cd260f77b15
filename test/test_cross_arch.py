"""Vectorized<T>::cbrt() gives the x86 bits on aarch64 (NEON, SVE256, SVE128), ppc64le (VSX) and s390x (ZVECTOR), under
qemu, built with GCC and with clang; and which builds a host runs, natively or emulated."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from scripts.cross_arch import kernels
from scripts.cross_arch.check import DEFAULT_OUTPUT, LAYOUTS, differing, report, run_all, write_sleef_shim
from scripts.cross_arch.targets import (
    BUILDS,
    CLANG,
    Host,
    builds_for_host,
    linux_cpu_flags,
    programs_needed,
    runnable_builds,
)
from scripts.cross_arch.toolchain import install
from scripts.cross_arch.vec_tests import patched_include
from scripts.patchset.fragments import load_sources


def bits(dtype: str, *values: int) -> np.ndarray:
    return np.array(values, dtype=LAYOUTS[dtype].bits)


def test_any_nan_equals_any_nan() -> None:
    quiet, negative_quiet, signaling = 0x7FC00000, 0xFFC00000, 0x7F800001
    expected = bits("float32", quiet, quiet, signaling)
    assert differing(expected, bits("float32", negative_quiet, signaling, quiet), LAYOUTS["float32"]).size == 0


def test_signed_zeros_infinities_and_last_bits_count() -> None:
    expected = bits("float32", 0x00000000, 0x7F800000, 0x3F800000, 0x7FC00000)
    actual = bits("float32", 0x80000000, 0x7FC00000, 0x3F800001, 0x7F800000)
    assert differing(expected, actual, LAYOUTS["float32"]).tolist() == [0, 1, 2, 3]


def test_bfloat16_and_half_nans_are_told_from_infinities() -> None:
    assert LAYOUTS["bfloat16"].is_nan(bits("bfloat16", 0x7F80, 0x7F81, 0xFFC0, 0x7F7F)).tolist() == [False, True, True, False]
    assert LAYOUTS["float16"].is_nan(bits("float16", 0x7C00, 0x7C01, 0xFE00, 0x7BFF)).tolist() == [False, True, True, False]
    assert LAYOUTS["float64"].is_nan(bits("float64", 0x7FF0000000000000, 0xFFF8000000000000)).tolist() == [False, True]


def test_the_sleef_shim_declares_every_entry_point_the_headers_name(tmp_path: Path) -> None:
    header = tmp_path / "include" / "ATen" / "cpu" / "vec" / "vec256" / "vsx" / "vec256_float_vsx.h"
    header.parent.mkdir(parents=True)
    header.write_text("return {Sleef_expf4_u10(_vec0), Sleef_atan2d2_u10(a, b)};\n")
    shim = write_sleef_shim(tmp_path / "include", tmp_path / "shim").joinpath("sleef.h").read_text()
    assert "V Sleef_atan2d2_u10(V, W...);" in shim and "V Sleef_expf4_u10(V, W...);" in shim


@pytest.fixture(scope="module")
def toolchains() -> None:
    skipped = install(programs_needed(runnable_builds()))
    if skipped:
        pytest.skip(skipped)


@pytest.mark.slow  # make test-slow (see conftest.py's SLOW)
def test_every_architecture_and_capability_gives_the_same_bits(toolchains: None) -> None:
    builds = runnable_builds()
    # build/cross-arch, as `make cross-arch`: the binaries are cached by content there
    outcomes = run_all(patched_include(), DEFAULT_OUTPUT, builds, sample=1 << 20, seed=2024, jobs=2)
    assert {o.build.name for o in outcomes} >= {
        "aarch64-neon", "aarch64-sve256", "ppc64le-vsx", "s390x-zvector", "x86_64-avx2-clang", "aarch64-neon-clang",
        "aarch64-neon-sve-clang", "aarch64-sve256-clang", "aarch64-sve128-clang", "x86_64-avx2-narrow-long-double"}
    assert outcomes[0].build.name == "x86_64-default" and outcomes[1].build.name == "x86_64-avx2"
    assert report(outcomes, with_torch=True) == []


@pytest.mark.slow
def test_every_cpu_kernel_of_the_patch_set_compiles_for_every_architecture_and_capability(toolchains: None) -> None:
    builds, files = kernels.compilable_builds(), kernels.kernel_files(load_sources())
    assert {f.name for f in files} == {"CbrtKernel.cpp", "DivModKernel.cpp", "InterpKernel.cpp", "NanStdVarKernel.cpp"}
    assert {b.name for b in builds} >= {"aarch64-neon", "aarch64-sve256", "ppc64le-vsx", "s390x-zvector",
                                        "aarch64-neon-sve-clang", "aarch64-sve128-clang", "x86_64-avx512-clang"}
    results = kernels.compile_all(patched_include(), builds, files, kernels.OUTPUT, jobs=2)
    assert kernels.problems_of(results) == []


@pytest.mark.slow
def test_a_kernel_with_an_x86_intrinsic_fails_the_other_architectures_builds(toolchains: None, tmp_path: Path) -> None:
    kernel = tmp_path / "XKernel.cpp"
    kernel.write_text("#include <ATen/cpu/vec/vec.h>\n#include <immintrin.h>\n"
                      "double first() { return _mm_cvtsd_f64(_mm_set1_pd(1.0)); }\n")
    builds = [b for b in kernels.compilable_builds() if b.name in ("x86_64-default", "aarch64-neon", "ppc64le-vsx")]
    results = {r.build.name: r.error for r in kernels.compile_all(patched_include(), builds, [kernel], tmp_path, 2)}
    assert results["x86_64-default"] is None
    # aarch64 has no immintrin.h; ppc64le's compatibility headers refuse to stand in for x86 by default
    assert "immintrin.h" in results["aarch64-neon"] and "X86_INTRINSICS" in results["ppc64le-vsx"]


@pytest.mark.parametrize(("build", "slot"), [("x86_64-default", None), ("x86_64-avx2", "HAVE_AVX2_CPU_DEFINITION"),
                                             ("aarch64-neon", None), ("aarch64-sve256", "HAVE_SVE_CPU_DEFINITION"),
                                             ("aarch64-sve128-clang", "HAVE_SVE_CPU_DEFINITION"),
                                             ("ppc64le-vsx", "HAVE_VSX_CPU_DEFINITION"),
                                             ("s390x-zvector", "HAVE_ZVECTOR_CPU_DEFINITION")])
def test_each_kernel_build_defines_the_dispatch_slot_of_its_capability_once(build: str, slot: str | None) -> None:
    # without the macro DispatchStub.h has no member for the capability, and REGISTER_DISPATCH fails to compile
    (chosen,) = [b for b in BUILDS if b.name == build]
    command = kernels.compile_command(chosen, Path("K.cpp"), Path("include"), Path("shim"), Path("K.o"))
    defined = [flag for flag in command if flag.startswith("-DHAVE_") and flag.endswith("_CPU_DEFINITION")]
    assert defined == ([f"-D{slot}"] if slot else [])


def test_kernel_files_are_the_new_files_under_a_native_cpu_folder(tmp_path: Path) -> None:
    root = tmp_path / "sources"
    kernel = "aten/src/ATen/native/cpu/XKernel.cpp"
    others = ("aten/src/ATen/native/X.cpp", "aten/src/ATen/native/cuda/XKernel.cu", "aten/src/ATen/native/cpu/X.h")
    for path in (kernel, "aten/src/ATen/native/sparse/cpu/YKernel.cpp", *others):
        (root / "aten_native" / path).parent.mkdir(parents=True, exist_ok=True)
        (root / "aten_native" / path).write_text("// new\n")
    files = sorted(f"aten/src/ATen/native/{p}" for p in ("cpu/XKernel.cpp", "sparse/cpu/YKernel.cpp"))
    (root / "topics.toml").write_text(
        '[[topic]]\nid = "one"\nstack = "one"\nsubject = "s"\nbody = "b"\ntests = []\nfiles = ['
        + ", ".join(f'"{p}"' for p in (kernel, "aten/src/ATen/native/sparse/cpu/YKernel.cpp", *others)) + "]\n")
    found = [str(f.relative_to(root / "aten_native")) for f in kernels.kernel_files(load_sources(root))]
    assert found == files


def test_the_zarch_shim_declares_plain_functions_of_the_suffixs_vector_type() -> None:
    assert write_sleef_shim.__module__ == "scripts.cross_arch.check"
    from scripts.cross_arch.check import zarch_declaration

    assert zarch_declaration("Sleef_fmodd2") == "__vector double Sleef_fmodd2(__vector double, ...);"
    assert zarch_declaration("Sleef_hypotf4_u05") == "__vector float Sleef_hypotf4_u05(__vector float, ...);"
    assert zarch_declaration("Sleef_fmodd4") is None


X86_AVX512 = Host("x86_64", "Linux", frozenset({"avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512dq"}))
# A GitHub ubuntu-24.04-arm runner's CPU (Neoverse N2: SVE2 and bf16, 128-bit vectors).
ARM64_LINUX = Host("aarch64", "Linux", frozenset(linux_cpu_flags(
    "processor\t: 0\nFeatures\t: fp asimd evtstrm fphp asimdhp sve asimdfhm sve2 svebf16 i8mm bf16\n", "16")))
MACOS_ARM64 = Host("aarch64", "Darwin", frozenset({"asimd", "asimdhp", "bf16"}))


def by_name(host: Host) -> dict:
    return {b.name: b for b in builds_for_host(host)}


def test_an_x86_linux_host_runs_x86_natively_and_every_other_architecture_under_qemu() -> None:
    builds = by_name(X86_AVX512)
    assert list(builds) == [b.name for b in BUILDS]
    assert all(b == builds[b.name] for b in BUILDS)
    assert builds["aarch64-neon-sve-clang"].compiler == CLANG and "--target=aarch64-linux-gnu" in \
        builds["aarch64-neon-sve-clang"].flags
    assert "x86_64-avx512" not in by_name(Host("x86_64", "Linux", frozenset({"avx2", "fma", "f16c"})))


def test_an_arm64_linux_host_runs_the_aarch64_builds_its_cpu_has_natively_with_its_own_compilers() -> None:
    assert {"sve_vl128", "sve", "svebf16", "asimdhp"} <= ARM64_LINUX.cpu_flags
    builds = by_name(ARM64_LINUX)
    native = {name for name, b in builds.items() if not b.emulated}
    assert native == {"aarch64-neon", "aarch64-neon-fp16", "aarch64-neon-clang", "aarch64-neon-sve-clang",
                      "aarch64-sve128-clang"}
    for name in native:
        listed = next(b for b in BUILDS if b.name == name)
        # the same build code: the listed flags less --target, the host's compiler, no qemu prefix
        assert builds[name].flags == tuple(f for f in listed.flags if not f.startswith("--target="))
        assert builds[name].compiler == ("g++" if listed.compiler.endswith("g++") and "clang" not in name else CLANG)
    # a 256-bit SVE build cannot run on 128-bit vectors: the host's compiler, run under qemu; no x86 build runs here
    assert builds["aarch64-sve256"].runner == ("qemu-aarch64", "-cpu", "max,sve256=on")
    assert builds["aarch64-sve256"].compiler == "g++" and builds["aarch64-sve256-clang"].compiler == CLANG
    assert "--target=aarch64-linux-gnu" not in builds["aarch64-sve256-clang"].flags
    assert builds["ppc64le-vsx"].emulated and not any(name.startswith("x86_64") for name in builds)


def test_macos_arm64_runs_the_clang_neon_builds_with_apple_clang_and_nothing_emulated() -> None:
    builds = by_name(MACOS_ARM64)
    assert set(builds) == {"aarch64-neon-clang"}
    assert builds["aarch64-neon-clang"].compiler == "clang++" and builds["aarch64-neon-clang"].runner == ()
    assert "--target=aarch64-linux-gnu" not in builds["aarch64-neon-clang"].flags


def test_the_clang_cross_builds_need_the_gcc_cross_toolchain_and_clang_19() -> None:
    needed = programs_needed([b for b in BUILDS if b.name == "aarch64-sve128-clang"])
    assert needed == sorted(["aarch64-linux-gnu-g++", CLANG, "qemu-aarch64"])


def test_without_root_the_check_is_skipped_naming_the_packages_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import scripts.cross_arch.toolchain as toolchain

    monkeypatch.setattr(toolchain.shutil, "which", lambda p: "/usr/bin/apt-get" if p == "apt-get" else None)
    monkeypatch.setattr(toolchain.os, "geteuid", lambda: 1000)
    reason = install(["s390x-linux-gnu-g++", "qemu-s390x"])
    assert reason == ("cross-arch check skipped: not root; needs s390x-linux-gnu-g++ qemu-s390x: "
                      "install g++-s390x-linux-gnu qemu-user (apt-get install, as root)")

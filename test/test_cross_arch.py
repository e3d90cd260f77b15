"""Vectorized<T>::cbrt() gives the x86 bits on aarch64 (NEON, SVE256), ppc64le (VSX) and s390x (ZVECTOR), under qemu."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from scripts.cross_arch.check import LAYOUTS, differing, report, run_all, write_sleef_shim
from scripts.cross_arch.targets import programs_needed, runnable_builds
from scripts.cross_arch.toolchain import install
from scripts.cross_arch.vec_tests import patched_include


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


def test_every_architecture_and_capability_gives_the_same_bits(toolchains: None, tmp_path: Path) -> None:
    builds = runnable_builds()
    outcomes = run_all(patched_include(), tmp_path, builds, sample=1 << 20, seed=2024, jobs=2)
    assert {o.build.name for o in outcomes} >= {"aarch64-neon", "aarch64-sve256", "ppc64le-vsx", "s390x-zvector"}
    assert report(outcomes, with_torch=True) == []


def test_without_root_the_check_is_skipped_naming_the_packages_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import scripts.cross_arch.toolchain as toolchain

    monkeypatch.setattr(toolchain.shutil, "which", lambda p: "/usr/bin/apt-get" if p == "apt-get" else None)
    monkeypatch.setattr(toolchain.os, "geteuid", lambda: 1000)
    reason = install(["s390x-linux-gnu-g++", "qemu-s390x"])
    assert reason == ("cross-arch check skipped: not root; needs s390x-linux-gnu-g++ qemu-s390x: "
                      "install g++-s390x-linux-gnu qemu-user (apt-get install, as root)")

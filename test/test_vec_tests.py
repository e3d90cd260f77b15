"""The vec tests the patch set adds to vec_test_all_types.cpp pass on every CPU build: x86 DEFAULT, AVX2 and AVX512
natively, aarch64 (NEON, SVE256), ppc64le (VSX) and s390x (ZVECTOR) under qemu-user."""

from __future__ import annotations

from pathlib import Path

import pytest

from scripts.cross_arch.targets import BUILDS, Build, programs_needed
from scripts.cross_arch.toolchain import install
from scripts.cross_arch.vec_tests import added_tests, gtest_missing, missing_cpu_flags, patched_include, run_vec_tests


def test_the_added_tests_declare_each_suite_before_its_tests() -> None:
    tests = added_tests()
    for suite in ("FusedMultiplyAdd", "Cbrt"):
        declared = tests.index(f"class {suite} : public ::testing::Test {{}};")
        assert declared < tests.index(f"TYPED_TEST_SUITE({suite},") < tests.index(f"TYPED_TEST({suite},")


def test_the_fmadd_commit_brings_only_its_own_tests() -> None:
    tests = added_tests(("vec-fmadd",))
    assert "FusedMultiplyAdd" in tests and "Cbrt" not in tests


@pytest.fixture(scope="module")
def include() -> Path:
    skipped = gtest_missing()
    if skipped:
        pytest.skip(skipped)
    return patched_include()


@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
def test_vec_tests_pass(build: Build, include: Path) -> None:
    missing = missing_cpu_flags(build)
    if missing:
        pytest.skip(f"{build.name}: this CPU lacks {' '.join(missing)}")
    skipped = install(programs_needed([build]))
    if skipped:
        pytest.skip(skipped)
    run = run_vec_tests(build, include)
    assert run.passed, run.output

"""The vec tests the patch set adds to vec_test_all_types.cpp pass on every CPU build: x86 DEFAULT, AVX2 and AVX512
natively, aarch64 (NEON, SVE256, SVE128), ppc64le (VSX) and s390x (ZVECTOR) under qemu-user, with GCC and clang, and
an x86 build whose long double is double (as MSVC's and Apple's)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from scripts.cross_arch.targets import BUILDS, Build, for_host, programs_needed, this_host
from scripts.cross_arch.toolchain import install
from scripts.cross_arch.vec_tests import (
    Gtest,
    added_tests,
    build_vec_tests,
    gtest_missing,
    long_double_imports,
    native_gtest,
    patched_include,
    run_vec_tests,
)


def test_the_added_tests_declare_each_suite_before_its_tests() -> None:
    tests = added_tests()
    for suite in ("FusedMultiplyAdd", "Cbrt"):
        declared = tests.index(f"class {suite} : public ::testing::Test {{}};")
        assert declared < tests.index(f"TYPED_TEST_SUITE({suite},") < tests.index(f"TYPED_TEST({suite},")


def test_the_fmadd_commit_brings_only_its_own_tests() -> None:
    tests = added_tests(("vec-fmadd",))
    assert "FusedMultiplyAdd" in tests and "Cbrt" not in tests


def test_gtest_root_names_the_googletest_native_builds_link(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GTEST_ROOT", str(tmp_path))
    assert native_gtest() == Gtest(tmp_path / "include", (tmp_path / "lib/libgtest.a", tmp_path / "lib/libgtest_main.a"))
    assert not native_gtest().found()
    monkeypatch.delenv("GTEST_ROOT")
    assert str(native_gtest().libraries[0]).endswith("-linux-gnu/libgtest.a")


@pytest.fixture(scope="module")
def include() -> Path:
    skipped = gtest_missing()
    if skipped:
        pytest.skip(skipped)
    return patched_include()


@pytest.mark.slow  # make test-slow (see conftest.py's SLOW)
@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.name)
def test_vec_tests_pass(build: Build, include: Path) -> None:
    hosted = for_host(build, this_host())
    if hosted is None:
        pytest.skip(f"{build.name}: this host cannot run it (CPU features needed: {' '.join(build.cpu_flags)})")
    skipped = install(programs_needed([hosted]))
    if skipped:
        pytest.skip(skipped)
    run = run_vec_tests(hosted, include)
    assert run.passed, run.output


def test_the_narrow_long_double_build_imports_no_x87_long_double_function(include: Path, tmp_path: Path) -> None:
    """Its long double functions are the shim's (double's), none of glibc's or libstdc++'s x87 ones; a program
    without the shim imports them."""
    build = next(b for b in BUILDS if "-mlong-double-64" in b.flags)
    if for_host(build, this_host()) is None:
        pytest.skip(f"{build.name}: this CPU lacks {' '.join(build.cpu_flags)}")
    executable, errors, _ = build_vec_tests(build, include)
    assert executable is not None, errors
    assert long_double_imports(executable) == []
    source = tmp_path / "unshimmed.cpp"
    source.write_text("#include <cmath>\n#include <iostream>\n"
                      "int main(int n, char**) { std::cout << std::cbrt(static_cast<long double>(n)); }\n")
    subprocess.run(["g++", "-O2", "-mlong-double-64", str(source), "-o", str(tmp_path / "unshimmed")], check=True)
    assert long_double_imports(tmp_path / "unshimmed") == [
        "cbrtl", "std::basic_ostream<char, std::char_traits<char> >& "
        "std::basic_ostream<char, std::char_traits<char> >::_M_insert<long double>(long double)"]

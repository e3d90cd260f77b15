"""Source text from the wheel: the install-time header guard comes off exactly, a damaged one stops the build,
and files the build generates are no upstream files."""

from __future__ import annotations

import pytest

from scripts.layout import is_install_generated, upstream_path_of, wheel_member_of
from scripts.patchset.wheel_source import (
    GUARD_CLOSE,
    GUARD_OPEN,
    InstallGuardError,
    add_install_guard,
    source_bytes,
    strip_install_guard,
)

SOURCE = "#pragma once\n\nnamespace c10 {\nint f();\n} // namespace c10\n"
# What the 2.14.1 wheel installs for SOURCE, written out rather than built with add_install_guard.
INSTALLED = (
    "#if !defined(TORCH_STABLE_ONLY) && !defined(TORCH_TARGET_VERSION)\n"
    "#pragma once\n\nnamespace c10 {\nint f();\n} // namespace c10\n"
    "\n#else\n"
    '#error "This file should not be included when either TORCH_STABLE_ONLY or TORCH_TARGET_VERSION is defined."\n'
    "#endif  // !defined(TORCH_STABLE_ONLY) && !defined(TORCH_TARGET_VERSION)\n"
)


def test_the_installed_header_gives_back_its_source_text() -> None:
    assert strip_install_guard(INSTALLED, "c10/util/f.h") == SOURCE


def test_guarding_the_source_text_is_what_the_wheel_installs() -> None:
    assert add_install_guard(SOURCE) == INSTALLED


def test_a_source_without_a_final_newline_keeps_none() -> None:
    source = SOURCE.rstrip("\n")
    installed = add_install_guard(source)
    assert "} // namespace c10\n#else\n" in installed
    assert strip_install_guard(installed, "x.h") == source


def test_a_file_without_the_guard_is_its_own_source_text() -> None:
    text = "- func: sqrt(Tensor self) -> Tensor\n"
    assert strip_install_guard(text, "native_functions.yaml") == text


def test_a_source_that_names_the_macros_inside_is_not_a_guard() -> None:
    text = (
        "#pragma once\n#ifdef TORCH_STABLE_ONLY\n#define X 1\n#endif\n\nnamespace c10 {\nint x;\n} // namespace c10\n"
    )
    assert strip_install_guard(text, "x.h") == text


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (GUARD_OPEN + SOURCE, "opens but does not close"),
        (SOURCE + GUARD_CLOSE, "closes but does not open"),
        (GUARD_OPEN + SOURCE + GUARD_CLOSE.replace("#error", "#warning"), "opens but does not close"),
        ("#if !defined(TORCH_STABLE_ONLY)\n" + SOURCE + GUARD_CLOSE, "closes but does not open"),
        ("#if !defined(TORCH_STABLE_ONLY)\n" + SOURCE + "#endif // TORCH_STABLE_ONLY\n", "differs from"),
    ],
)
def test_a_partial_or_altered_guard_fails_naming_the_file(text: str, found: str) -> None:
    with pytest.raises(InstallGuardError, match=rf"^aten/src/ATen/Foo\.h: its install-time guard {found}"):
        strip_install_guard(text, "aten/src/ATen/Foo.h")


def test_bytes_that_are_not_utf8_pass_unchanged() -> None:
    assert source_bytes(b"\xff\xfe", "x.bin") == b"\xff\xfe"


@pytest.mark.parametrize(
    "upstream",
    [
        "aten/src/ATen/ops/add.h",
        "aten/src/ATen/Functions.h",
        "aten/src/ATen/CPUFunctions_inl.h",
        "aten/src/ATen/core/TensorBody.h",
        "aten/src/ATen/Config.h",
        "torch/version.py",
        "torch/_C/_VariableFunctions.pyi",
    ],
)
def test_files_the_build_generates_have_no_upstream_path(upstream: str) -> None:
    assert is_install_generated(upstream)
    assert wheel_member_of(upstream) is None


@pytest.mark.parametrize(
    ("member", "upstream"),
    [
        ("torch/include/ATen/ops/from_blob.h", "aten/src/ATen/ops/from_blob.h"),
        ("torch/include/c10/util/generic_math.h", "c10/util/generic_math.h"),
        ("torch/include/c10/macros/cmake_macros.h", "c10/macros/cmake_macros.h"),
        ("torch/_C/_autograd.pyi", "torch/_C/_autograd.pyi"),
        ("torchgen/packaged/autograd/gen_variable_type.py", "tools/autograd/gen_variable_type.py"),
        ("torchgen/packaged/autograd/derivatives.yaml", "tools/autograd/derivatives.yaml"),
    ],
)
def test_source_files_beside_generated_ones_keep_their_upstream_path(member: str, upstream: str) -> None:
    assert upstream_path_of(member) == upstream
    assert wheel_member_of(upstream) == member

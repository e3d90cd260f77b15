"""The DEFAULT and AVX2 objects of each CPU kernel file, at -O0, define no symbol of the patch set's operators in common:
the linker cannot give the DEFAULT kernel a copy compiled with AVX2 and FMA instructions (scripts/cross_arch/odr.py)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from scripts.cross_arch.kernels import kernel_files
from scripts.cross_arch.odr import OUTPUT, compile_objects, external_symbols, operator_names, shared_symbols_naming
from scripts.cross_arch.vec_tests import patched_include
from scripts.patchset.fragments import load_sources

pytestmark = pytest.mark.skipif(
    any(shutil.which(p) is None for p in ("g++", "nm", "c++filt")), reason="needs g++, nm and c++filt"
)


def compile_source(tmp_path: Path, text: str, cap: str, define: str) -> Path:
    source = tmp_path / f"{define}.cpp"
    source.write_text(text)
    obj = tmp_path / f"{define}.o"
    flags = ["-mavx2", "-mfma"] if cap == "AVX2" else []
    subprocess.run(
        ["g++", "-std=c++17", "-O0", *flags, f"-DCPU_CAPABILITY={cap}", "-c", str(source), "-o", str(obj)], check=True
    )
    return obj


def test_a_shared_inline_cube_root_is_found_and_a_capability_one_is_not(tmp_path: Path) -> None:
    # The check itself: an inline function outside the capability namespace is defined (weak) by both objects.
    text = """
        namespace outside { inline float cbrt_like(float x) { return x * x; } }
        namespace inside { inline namespace CPU_CAPABILITY { inline float cbrt_like(float x) { return x * x; } } }
        namespace { inline float cbrt_local(float x) { return x * x; } }
        float use(float x) { return outside::cbrt_like(x) + inside::cbrt_like(x) + cbrt_local(x); }
    """
    default = compile_source(tmp_path, text.replace("use(", "use_default("), "DEFAULT", "default")
    avx2 = compile_source(tmp_path, text.replace("use(", "use_avx2("), "AVX2", "avx2")
    assert "outside::cbrt_like(float)" in external_symbols(default).values()
    assert shared_symbols_naming([default, avx2], ("cbrt",)) == ["outside::cbrt_like(float)"]


def test_the_operator_names_are_those_the_patch_set_adds() -> None:
    assert set(operator_names()) >= {"cbrt", "divmod", "interp"}


@pytest.mark.parametrize("kernel", kernel_files(load_sources()), ids=lambda path: path.name)
def test_the_kernel_objects_share_no_symbol_of_an_operator(kernel: Path) -> None:
    include = patched_include(OUTPUT)
    objects = compile_objects(("DEFAULT", "AVX2"), OUTPUT / "objects", include, kernel)
    shared = shared_symbols_naming(list(objects.values()), operator_names())
    assert not shared, f"{len(shared)} operator symbols defined by both the DEFAULT and the AVX2 object:\n" + "\n".join(
        shared
    )

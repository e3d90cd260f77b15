"""The DEFAULT and AVX2 objects of CbrtKernel.cpp, at -O0, define no cube-root symbol in common: the linker cannot
give the DEFAULT kernel a copy compiled with AVX2 and FMA instructions (scripts/cross_arch/odr.py)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from scripts.cross_arch.odr import OUTPUT, compile_objects, external_symbols, shared_cbrt_symbols
from scripts.cross_arch.vec_tests import patched_include

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
    assert shared_cbrt_symbols([default, avx2]) == ["outside::cbrt_like(float)"]


def test_the_kernel_objects_share_no_cube_root_symbol() -> None:
    include = patched_include(OUTPUT)
    objects = compile_objects(("DEFAULT", "AVX2"), OUTPUT / "objects", include)
    shared = shared_cbrt_symbols(list(objects.values()))
    assert not shared, f"{len(shared)} cube-root symbols defined by both the DEFAULT and the AVX2 object:\n" + "\n".join(
        shared
    )

"""Native baselines for `make bench`, compiled at bench time into one small shim linked against libtorch_cpu.

- Sleef's vector cube roots, u10 and u35, float and double, through their AVX-512 and AVX2 entry points. PyTorch
  links Sleef into libtorch_cpu and exports them (`nm -D libtorch_cpu.so | grep Sleef_cbrt`).
- The scalar loop that the DEFAULT build ran before Vectorized<T>::cbrt(): C's cbrt refined by one Newton step on an
  fma-exact residual, element by element, compiled with the DEFAULT build's flags (no -m options).
"""

from __future__ import annotations

import ctypes
import subprocess
from collections.abc import Callable
from pathlib import Path

import torch

from scripts.layout import REPO_ROOT

# (bench name, dtype, C function of the shim, /proc/cpuinfo flags it needs)
SLEEF_KERNELS: tuple[tuple[str, str, str, tuple[str, ...]], ...] = tuple(
    (f"Sleef {accuracy} ({isa})", dtype, f"sleef_cbrt{suffix}_{accuracy}{isa_suffix}", flags)
    for accuracy in ("u10", "u35")
    for isa, isa_suffix, flags, lanes in (("AVX-512", "", ("avx512f",), (16, 8)), ("AVX2", "avx2", ("avx2", "fma"), (8, 4)))
    for dtype, suffix in (("float32", f"f{lanes[0]}"), ("float64", f"d{lanes[1]}"))
)
SCALAR_LOOP = "scalar loop (before Vectorized cbrt)"

SHIM_SOURCE = r"""
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

// Sleef's exported vector entry points, one loop per entry point; the tail goes through a zero-padded vector.
#define SLEEF_LOOP(NAME, T, VEC, LANES, TARGET, LOADU, STOREU)                    \
  VEC Sleef_##NAME(VEC);                                                         \
  __attribute__((target(TARGET))) void sleef_##NAME(const T* x, T* y, int64_t n) { \
    int64_t i = 0;                                                               \
    for (; i + LANES <= n; i += LANES) STOREU(y + i, Sleef_##NAME(LOADU(x + i)));  \
    if (i < n) {                                                                 \
      T in[LANES] = {0}, out[LANES];                                             \
      memcpy(in, x + i, (n - i) * sizeof(T));                                    \
      STOREU(out, Sleef_##NAME(LOADU(in)));                                      \
      memcpy(y + i, out, (n - i) * sizeof(T));                                   \
    }                                                                            \
  }

SLEEF_LOOP(cbrtf16_u10, float, __m512, 16, "avx512f", _mm512_loadu_ps, _mm512_storeu_ps)
SLEEF_LOOP(cbrtf16_u35, float, __m512, 16, "avx512f", _mm512_loadu_ps, _mm512_storeu_ps)
SLEEF_LOOP(cbrtd8_u10, double, __m512d, 8, "avx512f", _mm512_loadu_pd, _mm512_storeu_pd)
SLEEF_LOOP(cbrtd8_u35, double, __m512d, 8, "avx512f", _mm512_loadu_pd, _mm512_storeu_pd)
SLEEF_LOOP(cbrtf8_u10avx2, float, __m256, 8, "avx2,fma", _mm256_loadu_ps, _mm256_storeu_ps)
SLEEF_LOOP(cbrtf8_u35avx2, float, __m256, 8, "avx2,fma", _mm256_loadu_ps, _mm256_storeu_ps)
SLEEF_LOOP(cbrtd4_u10avx2, double, __m256d, 4, "avx2,fma", _mm256_loadu_pd, _mm256_storeu_pd)
SLEEF_LOOP(cbrtd4_u35avx2, double, __m256d, 4, "avx2,fma", _mm256_loadu_pd, _mm256_storeu_pd)

static double cbrt_refined(double x) {
  if (!isfinite(x) || x == 0) return x;
  const double ax = fabs(x);
  const int tiny = ax < 0x1p-900;
  const double a = tiny ? ax * 0x1p300 : ax;
  double y = cbrt(a);
  const double y2 = y * y;
  y -= fma(fma(y, y, -y2), y, fma(y2, y, -a)) / (3 * y2);
  return copysign(tiny ? y * 0x1p-100 : y, x);
}

void scalar_loop_float32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = (float)cbrt_refined(x[i]);
}

void scalar_loop_float64(const double* x, double* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = cbrt_refined(x[i]);
}
"""

Loop = Callable[[torch.Tensor, torch.Tensor], object]


def build_shim(folder: Path) -> ctypes.CDLL:
    torch_lib = Path(torch.__file__).parent / "lib"
    folder.mkdir(parents=True, exist_ok=True)
    source, library = folder / "bench_baselines.c", folder / "libbench_baselines.so"
    source.write_text(SHIM_SOURCE)
    command = ["cc", "-O3", "-fno-tree-vectorize", "-shared", "-fPIC", str(source), "-o", str(library),
               f"-L{torch_lib}", "-ltorch_cpu", f"-Wl,-rpath,{torch_lib}", "-lm"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"error: the bench baselines shim did not build ({' '.join(command)}):\n{result.stderr}")
    return ctypes.CDLL(str(library))


def as_loop(function: ctypes._CFuncPtr) -> Loop:
    function.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)
    function.restype = None
    return lambda x, out: function(x.data_ptr(), out.data_ptr(), x.numel())


def baseline_kernels(cpu_flags: set[str], folder: Path = REPO_ROOT / "build" / "bench") -> dict[str, dict[str, Loop]]:
    """Bench name -> dtype -> loop, for the baselines this CPU can run."""
    shim = build_shim(folder)
    table: dict[str, dict[str, Loop]] = {}
    for name, dtype, function, needs in SLEEF_KERNELS:
        if set(needs) <= cpu_flags:
            table.setdefault(name, {})[dtype] = as_loop(getattr(shim, function))
    table[SCALAR_LOOP] = {dtype: as_loop(getattr(shim, f"scalar_loop_{dtype}")) for dtype in ("float32", "float64")}
    return table

"""Each compiled CPU capability of the kernel (DEFAULT, AVX2, AVX512) is correct, not only the one this CPU picks."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys

import pytest
import torch

from scripts.layout import REPO_ROOT

CHECK = """
import json, sys, torch
from scripts.accuracy import float64_inputs, longdouble_cbrt, round_reference, ulp_distance, ulp_error
import numpy as np
assert torch.backends.cpu.get_cpu_capability() == sys.argv[1], torch.backends.cpu.get_cpu_capability()
bits = torch.randint(-2**31, 2**31, (1 << 20,), dtype=torch.int64, generator=torch.Generator().manual_seed(0))
inputs = {"float32": bits.to(torch.int32).view(torch.float32)}
for dtype in (torch.half, torch.bfloat16):
    inputs[str(dtype).removeprefix("torch.")] = torch.arange(-2**15, 2**15, dtype=torch.int64).to(torch.int16).view(dtype)
worst = {}
for name, x in inputs.items():
    expected = round_reference(x, x.dtype)
    actual = torch.cbrt(x)
    worst[name] = ulp_error(actual, x, expected).max().item()
    worst[name + " misrounded"] = int((ulp_distance(actual, expected) > 0).sum())
wide = float64_inputs(1 << 18, seed=1)
spacing = np.spacing(np.abs(longdouble_cbrt(wide).astype(np.float64)))
with np.errstate(all="ignore"):
    error = np.abs(torch.cbrt(torch.from_numpy(wide)).numpy() - longdouble_cbrt(wide)) / spacing
worst["float64"] = float(np.nanmax(np.where(np.isinf(wide) | (wide == 0), 0, error)))
print(json.dumps(worst))
"""

AVAILABLE = ["DEFAULT"] + [c for c in ("AVX2", "AVX512") if torch.backends.cpu.get_cpu_capability() in (c, "AVX512")]


@functools.cache
def worst_ulps(capability: str) -> dict[str, float]:
    environment = {"ATEN_CPU_CAPABILITY": capability.lower(), "PYTHONPATH": str(REPO_ROOT)}
    result = subprocess.run([sys.executable, "-c", CHECK, capability], capture_output=True, text=True,
                            env={**os.environ, **environment}, cwd=REPO_ROOT)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("capability", AVAILABLE)
def test_every_capability_stays_within_the_documented_bounds(capability: str) -> None:
    worst = worst_ulps(capability)
    assert max(worst[d] for d in ("float32", "float64", "float16", "bfloat16")) <= 0.84, worst


@pytest.mark.parametrize("capability", AVAILABLE)
def test_every_capability_rounds_half_and_bfloat16_correctly(capability: str) -> None:
    worst = worst_ulps(capability)
    assert (worst["float16 misrounded"], worst["bfloat16 misrounded"]) == (0, 0), worst


def test_the_portable_build_also_rounds_float32_correctly() -> None:
    worst = worst_ulps("DEFAULT")
    assert worst["float32 misrounded"] == 0, worst

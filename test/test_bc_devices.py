"""On a device without a cbrt kernel, everything that worked before the operator existed still works.

The device is a real PrivateUse1 backend registered from Python (test/privateuse1_backend.py) with
only the kernels the old composite needs. Expected values come from numpy.cbrt in float64.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

if not hasattr(torch, "cbrt"):
    pytest.skip("the overlay is not built: run `make`", allow_module_level=True)

BACKEND = Path(__file__).with_name("privateuse1_backend.py")
INPUTS = [-27.0, -8.0, -1.0, 0.0, 1.0, 8.0, 1000.0]
MARKER = 42.0  # what privateuse1_backend.py's run-time kernel returns


@pytest.fixture(scope="module")
def outcomes() -> dict[str, object]:
    result = subprocess.run([sys.executable, str(BACKEND)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout)


def test_the_device_is_real_and_has_no_cbrt_kernel(outcomes: dict[str, object]) -> None:
    assert outcomes["device"] == "bcdev"
    assert outcomes["has_cbrt_kernel"] is False


@pytest.mark.parametrize("entry_point", ["prims.cbrt", "torch._numpy.cbrt", "torch._refs.cbrt"])
def test_cube_root_entry_points_keep_working_with_the_composite(entry_point: str, outcomes: dict[str, object]) -> None:
    result = outcomes[entry_point]
    assert isinstance(result, list), result
    np.testing.assert_allclose(result, np.cbrt(np.array(INPUTS)), rtol=1e-13, atol=0)


def test_aten_cbrt_itself_does_not_fall_back(outcomes: dict[str, object]) -> None:
    """A backend without a kernel gets the dispatcher's error, as for any operator it lacks."""
    result = outcomes["torch.cbrt"]
    assert isinstance(result, str) and result.startswith("NotImplementedError")
    assert "aten::cbrt" in result


@pytest.mark.parametrize("entry_point", ["prims.cbrt", "torch._numpy.cbrt"])
def test_entry_points_follow_a_kernel_registered_and_removed_at_run_time(
    entry_point: str, outcomes: dict[str, object]
) -> None:
    """The kernel decision is made per call: a backend's kernel added after the first call is used, and one removed
    is no longer called (a decision cached at the first call would do neither)."""
    registered, removed = outcomes["registered"], outcomes["removed"]
    assert isinstance(registered, dict) and isinstance(removed, dict)
    assert registered["has_cbrt_kernel"] is True and removed["has_cbrt_kernel"] is False
    assert registered[entry_point] == [MARKER] * len(INPUTS)
    assert isinstance(removed[entry_point], list), removed[entry_point]
    np.testing.assert_allclose(removed[entry_point], np.cbrt(np.array(INPUTS)), rtol=1e-13, atol=0)

"""The overlay's kernels share libtorch_cpu's intra-op threads.

at::parallel_for is a header template, so a kernel that calls it directly (torch.interp's, which has no
TensorIterator to do it) runs its tasks on OpenMP's threads only if the overlay was compiled with OpenMP, as
libtorch_cpu was. Each check runs in a fresh interpreter, whose OpenMP pool does not exist until the first
parallel region: the inputs come from numpy, so that no torch kernel starts the pool before the one measured.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

if not hasattr(torch, "interp"):
    pytest.skip("the overlay is not built: run `make`", allow_module_level=True)

THREAD_COUNTS = """
import os, sys
import numpy as np
import torch

torch.set_num_threads(int(sys.argv[1]))
x = torch.from_numpy(np.random.default_rng(0).random(1 << 20))
xp = torch.from_numpy(np.linspace(0.0, 1.0, 64))
fp = torch.from_numpy(np.linspace(0.0, 1.0, 64) ** 2)
before = len(os.listdir("/proc/self/task"))
torch.interp(x, xp, fp)
print(before, len(os.listdir("/proc/self/task")))
"""


def threads_around_one_call(num_threads: int) -> tuple[int, int]:
    """The process's thread count before and after one large torch.interp call, at torch.set_num_threads(n)."""
    completed = subprocess.run(
        [sys.executable, "-c", THREAD_COUNTS, str(num_threads)], capture_output=True, text=True, check=True
    )
    before, after = completed.stdout.split()
    return int(before), int(after)


needs_openmp = pytest.mark.skipif(
    "OpenMP" not in torch.__config__.parallel_info().splitlines()[-1],
    reason="this torch's intra-op backend is not OpenMP",
)
needs_proc = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts threads in /proc/self/task")


@needs_openmp
@needs_proc
def test_a_kernel_of_the_overlay_runs_its_parallel_for_on_the_intra_op_threads() -> None:
    before, after = threads_around_one_call(2)
    assert after == before + 1, "torch.interp ran on the calling thread alone: the overlay lacks OpenMP"


@needs_openmp
@needs_proc
def test_one_intra_op_thread_starts_no_other() -> None:
    before, after = threads_around_one_call(1)
    assert after == before

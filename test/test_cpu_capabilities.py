"""Every compiled CPU capability of the kernel (DEFAULT, AVX2, AVX512) gives the same bits.

Each capability this CPU can run computes torch.cbrt in its own processes (ATEN_CPU_CAPABILITY) on all
2^32 float32 inputs, all half and bfloat16 inputs and a float64 sample, contiguous (vectorized), as a
strided view (element by element) and at every tail length; the processes exchange digests of the
result bits (test/capability_runs.py starts them as soon as this file is collected). A NaN result equals any NaN
(payloads are not portable) but only for a NaN input.
CBRT_FLOAT32_CHUNK_STEP=N checks every N-th chunk of 2^24 float32 inputs instead of all of them.
"""

from __future__ import annotations

import pytest
from capability_runs import AVAILABLE, digests

# An exhaustive proof (every float32 input, in each build's own processes): make test-slow (see conftest.py's SLOW).
# In make test its processes took the second core from the tests for most of the run.
pytestmark = pytest.mark.slow


def first_difference(dtype: str, capability: str) -> str | None:
    """Where `capability`'s results for dtype first differ from DEFAULT's, or None."""
    reference, other = digests()["DEFAULT"][dtype], digests()[capability][dtype]
    for chunk, (a, b) in enumerate(zip(reference, other, strict=True)):
        if a != b:
            return f"{dtype} chunk {chunk} of {len(reference)}"
    return None


@pytest.mark.parametrize("capability", AVAILABLE)
def test_each_process_runs_the_capability_it_was_given(capability: str) -> None:
    assert digests()[capability]["capability"] == capability


@pytest.mark.parametrize("capability", AVAILABLE)
def test_strided_and_tail_results_equal_vectorized_ones_and_no_finite_input_gives_nan(capability: str) -> None:
    assert digests()[capability]["violations"] == []


@pytest.mark.parametrize("capability", [c for c in AVAILABLE if c != "DEFAULT"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
def test_every_capability_gives_the_default_builds_bits(capability: str, dtype: str) -> None:
    assert first_difference(dtype, capability) is None

"""The test/inductor/test_cpu_repro.py fragments, run on the overlay in that file's CPUReproTests class: the upstream
file is not in the wheel, so this module gives the fragments the names they use from it (the lowp dtypes, metrics,
parametrize and the vectorized-kernel count check, which counts only where the machine vectorizes)."""

# ruff: noqa: F401 - the upstream file's names, which the fragments may use
from __future__ import annotations

import os

import pytest
import torch
from fragment_harness import added_lines, fragment_file
from torch._inductor import config, cpu_vec_isa, metrics
from torch.testing._internal.common_utils import TestCase, instantiate_parametrized_tests, parametrize

from scripts.layout import REPO_ROOT

if not hasattr(torch, "cbrt"):
    pytest.skip("the overlay is not built: run `make`", allow_module_level=True)

UPSTREAM_PATH = "test/inductor/test_cpu_repro.py"
FRAGMENTS = fragment_file(UPSTREAM_PATH)

_lowp_fp_dtypes = (torch.bfloat16, torch.float16)
check_model = None  # upstream's test_torchinductor.check_model; the fragments do not call it


def check_metrics_vec_kernel_count(num_expected_vec_kernels: int) -> None:
    vectorizes = (
        cpu_vec_isa.valid_vec_isa_list() and os.getenv("ATEN_CPU_CAPABILITY") != "default" and config.cpp.simdlen != 1
    )
    if vectorizes:
        assert metrics.generated_cpp_vec_kernel_count == num_expected_vec_kernels


def upstream_class_source() -> str:
    """The fragments' added lines as the body of the upstream file's test class."""
    body = added_lines(UPSTREAM_PATH)
    return "class CPUReproTests(TestCase):\n    common = check_model\n\n" + "\n".join(body) + "\n"


exec(compile(upstream_class_source(), str(FRAGMENTS), "exec"))  # noqa: S102 - defines CPUReproTests
instantiate_parametrized_tests(CPUReproTests)  # noqa: F821

"""The test/test_unary_ufuncs.py fragments, run on the overlay inside that file's class and device
instantiation: the upstream file is not in the wheel, so this module gives the fragments its
imports, its TestUnaryUfuncs(TestCase) class and instantiate_device_type_tests."""

# ruff: noqa: F401 - the upstream file's imports, which the fragments may use
from __future__ import annotations

import math
import random
import unittest
from numbers import Number

import numpy as np
import pytest
import torch
from fragment_harness import added_lines, fragment_file
from torch import inf, nan
from torch.testing import make_tensor
from torch.testing._internal.common_device_type import (
    dtypes,
    dtypesIfCPU,
    dtypesIfCUDA,
    instantiate_device_type_tests,
    onlyCPU,
    onlyCUDA,
    onlyNativeDeviceTypes,
    ops,
    precisionOverride,
)
from torch.testing._internal.common_dtype import (
    all_types_and,
    all_types_and_complex_and,
    complex_types,
    floating_and_complex_types_and,
    floating_types_and,
    get_all_math_dtypes,
    integral_types_and,
)
from torch.testing._internal.common_utils import (
    TestCase,
    numpy_to_torch_dtype_dict,
    suppress_warnings,
    torch_to_numpy_dtype_dict,
)

from scripts.layout import REPO_ROOT

if not hasattr(torch, "cbrt"):
    pytest.skip("the overlay is not built: run `make`", allow_module_level=True)

UPSTREAM_PATH = "test/test_unary_ufuncs.py"
FRAGMENTS = fragment_file(UPSTREAM_PATH)


def upstream_class_source() -> str:
    """The fragments' added lines as the body of the upstream file's test class."""
    body = added_lines(UPSTREAM_PATH)
    return "class TestUnaryUfuncs(TestCase):\n    exact_dtype = True\n\n" + "\n".join(body) + "\n"


exec(compile(upstream_class_source(), str(FRAGMENTS), "exec"))  # noqa: S102 - defines TestUnaryUfuncs
instantiate_device_type_tests(TestUnaryUfuncs, globals(), only_for=("cpu", "cuda"))  # noqa: F821

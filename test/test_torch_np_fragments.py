"""The test/torch_np/test_ufuncs_basic.py fragments, run on the overlay with that file's imports: the upstream file is
not in the wheel, so this module gives the fragments its module namespace (torch._numpy as np, as upstream runs it
without dynamo)."""

# ruff: noqa: F401 - the upstream file's imports, which the fragments may use
from __future__ import annotations

import operator
from unittest import SkipTest
from unittest import skipIf as skip

import pytest
import torch
from fragment_harness import added_lines, fragment_file
from pytest import raises as assert_raises
from torch.testing._internal.common_utils import (
    TEST_WITH_TORCHDYNAMO,
    TestCase,
    instantiate_parametrized_tests,
    parametrize,
)

from scripts.layout import REPO_ROOT

if not hasattr(torch, "cbrt"):
    pytest.skip("the overlay is not built: run `make`", allow_module_level=True)

import torch._numpy as np
from torch._numpy.testing import assert_equal

UPSTREAM_PATH = "test/torch_np/test_ufuncs_basic.py"
FRAGMENTS = fragment_file(UPSTREAM_PATH)


def upstream_source() -> str:
    """The fragments' added lines, at module level as upstream has them."""
    return "\n".join(added_lines(UPSTREAM_PATH)) + "\n"


exec(compile(upstream_source(), str(FRAGMENTS), "exec"))  # noqa: S102 - defines the fragments' test classes

"""The cube roots torch.cbrt is compared with, shared by the accuracy sweep and the benchmark."""

from __future__ import annotations

import torch


def python_cube_root(x: torch.Tensor) -> torch.Tensor:
    """The usual Python cube root, sign(x) * abs(x) ** (1/3): the forward of the common CubeRootFunction prototype."""
    return torch.sign(x) * torch.abs(x) ** (1.0 / 3.0)


def prims_composite(x: torch.Tensor) -> torch.Tensor:
    """prims.cbrt's impl_aten before this patch set."""
    return torch.copysign(torch.pow(torch.abs(x), 1.0 / 3.0), x)

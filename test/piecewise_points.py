"""Where each operator of the patch set is piecewise, and from which side its documented derivative is taken there.

test_conformance.py checks, for every differentiable input, that autograd's derivative at these exact points (both
backward and forward mode) is the one-sided finite difference from the declared side. Every operator of the patch
set is declared here, as piecewise (a function from its OpInfo samples to samples on those points) or as having no
such points, so that the next operator cannot pass unchecked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class OneSidedSample:
    """Arguments that put queries exactly on piecewise points, and for each differentiable argument (by position)
    the side its documented derivative is taken from, per element: +1 from above, -1 from below, 0 either (the
    function is smooth in that argument there)."""

    arguments: list
    kwargs: dict
    sides: dict[int, torch.Tensor]


def interp_on_sample_points(samples: list) -> list[OneSidedSample]:
    """interp with every query on a sample point (its first and last included). The documentation's rule: at a
    sample point the gradient is that of the segment to its right, whose value the query takes. For x that is the
    derivative from above; for xp it is from below (a point moved down keeps the query on its right segment); the
    result is linear in fp."""
    points = []
    for sample in samples:
        x, xp, fp = sample.input, *sample.args
        if x.numel() == 0 or xp.is_complex() or fp.is_complex():
            continue
        batch = torch.broadcast_shapes(x.shape[:-1], xp.shape[:-1], fp.shape[:-1])
        on_points = xp.expand(*batch, xp.shape[-1]).clone()
        points.append(OneSidedSample([on_points, xp, fp], sample.kwargs, {
            0: torch.ones_like(on_points), 1: -torch.ones_like(xp), 2: torch.zeros_like(fp)}))
    return points


def divmod_on_quotient_steps(samples: list) -> list[OneSidedSample]:
    """divmod where every quotient is an integer k exactly (self = k * other, with other a multiple of 1/4 so that
    the product is exact): the remainder jumps there. Its documented gradient, torch.remainder's, takes the
    quotient k, the floor of self / other as that ratio grows from k: for self the side of other's sign, for other
    the side opposite self's."""
    points = []
    for sample in samples:
        a, b = sample.input, sample.args[0]
        if not isinstance(b, torch.Tensor) or not a.is_floating_point() or a.numel() == 0:
            continue
        shape = torch.broadcast_shapes(a.shape, b.shape)
        other = (b.expand(shape) * 4).round() / 4
        other = torch.where(other == 0, 0.25, other)
        dividend = other * (a.expand(shape) / other).round()
        points.append(OneSidedSample([dividend, other], sample.kwargs, {
            0: other.sign(), 1: -dividend.sign()}))
    return points


# Each operator of the patch set: the function giving its samples on piecewise points, or None where it has none.
PIECEWISE: dict[str, Callable[[list], list[OneSidedSample]] | None] = {
    "cbrt": None,  # smooth but at 0, where the derivative is infinite (documented), not one-sided
    "divmod": divmod_on_quotient_steps,
    "interp": interp_on_sample_points,
    # smooth in every element that is not NaN; a NaN element is left out, with gradient 0, not a piece boundary
    "nanstd": None,
    "nanvar": None,
}

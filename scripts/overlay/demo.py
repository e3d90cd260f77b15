"""Cube roots of a few values, their gradients and a gradcheck, run on the real operator."""

from __future__ import annotations

import torch


def main() -> None:
    x = torch.tensor([-27.0, -8.0, -1.0, 1.0, 8.0, 27.0], requires_grad=True)
    y = torch.cbrt(x)
    y.sum().backward()
    print("x  :", x.tolist())
    print("y  :", y.tolist())
    print("dx :", x.grad.tolist())
    sample = torch.linspace(-2.0, 2.0, 20, dtype=torch.float64)
    sample = sample[sample != 0].requires_grad_()
    ok = torch.autograd.gradcheck(torch.cbrt, (sample,), eps=1e-6, atol=1e-5)
    print(f"gradcheck on {sample.numel()} points in [-2, 2] without 0:", ok)
    print("gradgradcheck:", torch.autograd.gradgradcheck(torch.cbrt, (sample,)))


if __name__ == "__main__":
    main()

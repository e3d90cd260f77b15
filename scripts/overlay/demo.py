"""Each operator of the patch set on a few values against its numpy counterpart, with its gradients and a gradcheck,
run on the real operator.

What to run is data (demo.toml): the operator, its arguments, its numpy counterpart, and the arguments its
gradients are checked on. Any number of tensor arguments and outputs; the tools name no operator.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from scripts import tomlcompat as tomllib
from scripts.layout import REPO_ROOT

DEMOS = REPO_ROOT / "demo.toml"


class DemoError(ValueError):
    """demo.toml does not describe a demo that can run."""


def argument(value: Any, dtype: torch.dtype) -> torch.Tensor | float:
    """A list of numbers as a tensor, a table {low, high, points, exclude} as that many evenly spread values less
    the excluded ones, a number as itself."""
    if isinstance(value, list):
        return torch.tensor(value, dtype=dtype)
    if isinstance(value, dict):
        values = torch.linspace(value["low"], value["high"], value["points"], dtype=dtype)
        for excluded in value.get("exclude", ()):
            values = values[values != excluded]
        return values
    return value


def as_outputs(result: Any) -> list[Any]:
    return list(result) if isinstance(result, (tuple, list)) else [result]


def shown(values: torch.Tensor | np.ndarray | float) -> str:
    """Each value as the shortest decimal that its own dtype reads back exactly (float32's -3.0000002 stays so)."""
    array = values.numpy() if isinstance(values, torch.Tensor) else np.asarray(values)
    if array.dtype.kind != "f":
        return str(array.tolist())
    return "[" + ", ".join(np.format_float_positional(v, trim="-") for v in array.reshape(-1)) + "]"


# How far from numpy's result ours may be: numpy's own functions are not all correctly rounded (numpy.cbrt's float32
# error reaches 1.94 ulp, docs/BENCHMARKS.md)
NUMPY_ULPS = 2


def ulps_apart(ours: np.ndarray, theirs: np.ndarray) -> float:
    """The largest distance between the two in units of the last place of ours' dtype (0 where both are NaN or
    equal); inf where one is NaN and the other not."""
    if ours.dtype.kind != "f":
        return 0.0 if np.array_equal(ours, theirs) else float("inf")
    theirs = theirs.astype(ours.dtype)
    equal = (ours == theirs) | (np.isnan(ours) & np.isnan(theirs))
    if equal.all():
        return 0.0
    if (np.isnan(ours) != np.isnan(theirs)).any():
        return float("inf")
    return float(np.max(np.where(equal, 0, np.abs(ours - theirs) / np.spacing(np.abs(theirs)))))


def schema_names(op: str, count: int) -> tuple[list[str], list[str]]:
    """The names the operator's schema gives its first `count` positional arguments (x, xp, fp) and its results
    (quotient, remainder), from the first overload that takes that many tensors; arg0, out0, ... where none
    does or a result has no name."""
    packet = getattr(torch.ops.aten, op, None)
    for overload in packet.overloads() if packet is not None else ():
        schema = getattr(packet, overload)._schema
        positional = [a for a in schema.arguments if not a.kwarg_only]
        if len(positional) == count and all(str(a.type) == "Tensor" for a in positional):
            results = [r.name or f"out{i}" for i, r in enumerate(schema.returns)]
            return [a.name for a in positional], results
    return [f"arg{i}" for i in range(count)], []


@dataclass(frozen=True)
class Demo:
    op: str
    numpy: str  # the name of its numpy counterpart
    args: tuple[Any, ...]  # shown: lists of numbers (tensors) or numbers
    kwargs: dict[str, Any]
    wrt: tuple[int, ...]  # the arguments whose gradients are shown and checked
    check_args: tuple[Any, ...]  # gradcheck's arguments in float64 (default: the shown ones)
    eps: float = 1e-6
    atol: float = 1e-5
    # numpy's keyword arguments where its names or defaults differ from torch's (ddof for correction)
    numpy_kwargs: dict[str, Any] | None = None

    @staticmethod
    def load(path: Path = DEMOS) -> list[Demo]:
        demos = []
        for table in tomllib.loads(path.read_text(encoding="utf-8")).get("demo", []):
            try:
                check = table.get("gradcheck", {})
                args = tuple(table["args"])
                demos.append(Demo(table["op"], table["numpy"], args, dict(table.get("kwargs", {})),
                                  tuple(check.get("wrt", ())), tuple(check.get("args", args)),
                                  check.get("eps", 1e-6), check.get("atol", 1e-5), table.get("numpy_kwargs")))
            except KeyError as error:
                raise DemoError(f"{path}: a [[demo]] lacks {error} (each needs op, numpy and args)") from error
        return demos

    def arguments(self, values: Sequence[Any], dtype: torch.dtype) -> list[Any]:
        return [argument(v, dtype) for v in values]

    def run(self) -> bool:
        """Prints the demo; whether every result equals numpy's and the gradchecks pass."""
        function = getattr(torch, self.op)
        reference = getattr(np, self.numpy)
        args = self.arguments(self.args, torch.float32)
        for at in self.wrt:
            args[at].requires_grad_()
        outputs = as_outputs(function(*args, **self.kwargs))
        numpy_kwargs = self.kwargs if self.numpy_kwargs is None else self.numpy_kwargs
        expected = as_outputs(reference(*[a.detach().numpy() if isinstance(a, torch.Tensor) else a for a in args],
                                        **numpy_kwargs))
        names, results = schema_names(self.op, len(args))
        results = [results[i] if i < len(results) else f"out{i}" for i in range(len(outputs))]
        width = max(len(name) for name in [*names, *results]) + 4
        call = ", ".join([*names, *(f"{k}={v!r}" for k, v in self.kwargs.items())])
        print(f"torch.{self.op}({call}) against numpy.{self.numpy}")
        for name, value in zip(names, args, strict=True):
            print(f"  {name:{width}}: {shown(value.detach() if isinstance(value, torch.Tensor) else value)}")
        same = True
        for index, (ours, theirs) in enumerate(zip(outputs, expected, strict=True)):
            apart = ulps_apart(ours.detach().numpy(), np.asarray(theirs))
            same &= apart <= NUMPY_ULPS
            print(f"  {results[index]:{width}}: {shown(ours.detach())}  numpy: {shown(np.asarray(theirs))}  "
                  f"{'equal' if apart == 0 else f'{apart:g} ulp apart'}")
        differentiable = [o for o in outputs if isinstance(o, torch.Tensor) and o.requires_grad]
        if self.wrt and differentiable:
            torch.stack([o.sum() for o in differentiable]).sum().backward()
            for at in self.wrt:
                print(f"  {'d/d' + names[at]:{width}}: {shown(args[at].grad)}  (of the differentiable results' sum)")
        if not self.wrt:
            return same
        checked = self.arguments(self.check_args, torch.float64)

        def of_checked(*inputs: torch.Tensor) -> Any:
            given = list(checked)
            for at, value in zip(self.wrt, inputs, strict=True):
                given[at] = value
            return function(*given, **self.kwargs)

        inputs = tuple(checked[at].requires_grad_() for at in self.wrt)
        first = torch.autograd.gradcheck(of_checked, inputs, eps=self.eps, atol=self.atol)
        second = torch.autograd.gradgradcheck(of_checked, inputs, eps=self.eps, atol=self.atol)
        wrt = ", ".join(names[at] for at in self.wrt)
        print(f"  gradcheck ({wrt}, float64, {inputs[0].numel()} values): {first}; gradgradcheck: {second}")
        return same and first and second


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demos", type=Path, default=DEMOS)
    results = []
    for demo in Demo.load(parser.parse_args().demos):
        results.append(demo.run())
        print()
    if not all(results):
        raise SystemExit("demo: a result differs from numpy's or a gradcheck failed (above)")


if __name__ == "__main__":
    main()

"""Each new operator of the patch set on a few values, its gradients and a gradcheck, run on the real operator.

What to run is data (demo.toml): the operator, its inputs and the range its gradient is checked on.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import torch

from scripts import tomlcompat as tomllib
from scripts.layout import REPO_ROOT

DEMOS = REPO_ROOT / "demo.toml"


@dataclass(frozen=True)
class Demo:
    op: str
    inputs: tuple[float, ...]
    low: float
    high: float
    points: int
    exclude: tuple[float, ...] = ()
    eps: float = 1e-6
    atol: float = 1e-5

    @staticmethod
    def load(path: Path = DEMOS) -> list[Demo]:
        demos = []
        for table in tomllib.loads(path.read_text(encoding="utf-8")).get("demo", []):
            check = table.get("gradcheck", {})
            demos.append(Demo(table["op"], tuple(table["inputs"]), check["low"], check["high"], check["points"],
                              tuple(check.get("exclude", ())), check.get("eps", 1e-6), check.get("atol", 1e-5)))
        return demos

    def run(self) -> None:
        fn = getattr(torch, self.op)
        x = torch.tensor(self.inputs, requires_grad=True)
        y = fn(x)
        y.sum().backward()
        print("x  :", x.tolist())
        print("y  :", y.tolist())
        print("dx :", x.grad.tolist())
        sample = torch.linspace(self.low, self.high, self.points, dtype=torch.float64)
        for value in self.exclude:
            sample = sample[sample != value]
        sample = sample.requires_grad_()
        ok = torch.autograd.gradcheck(fn, (sample,), eps=self.eps, atol=self.atol)
        without = f" without {', '.join(f'{v:g}' for v in self.exclude)}" if self.exclude else ""
        print(f"gradcheck on {sample.numel()} points in [{self.low:g}, {self.high:g}]{without}:", ok)
        print("gradgradcheck:", torch.autograd.gradgradcheck(fn, (sample,)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demos", type=Path, default=DEMOS)
    demos = Demo.load(parser.parse_args().demos)
    for demo in demos:
        if len(demos) > 1:
            print(f"torch.{demo.op}:")
        demo.run()


if __name__ == "__main__":
    main()

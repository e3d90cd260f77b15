"""`make demo`: every operator of the patch set is shown against its numpy counterpart, from demo.toml alone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import write

from scripts.layout import REPO_ROOT
from scripts.overlay.demo import DEMOS, Demo, DemoError
from scripts.patchset.native_ops import native_ops


def run_demo(demos: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scripts.overlay.demo", "--demos", str(demos)], cwd=REPO_ROOT,
                          capture_output=True, text=True)


def test_every_operator_of_the_patch_set_has_a_demo() -> None:
    operators = {op.root for op in native_ops() if op.python_binding and not op.inplace}
    assert sorted(operators - {demo.op for demo in Demo.load()}) == []


def test_the_demo_shows_each_operator_equal_to_numpy_with_passing_gradchecks() -> None:
    ran = run_demo(DEMOS)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    for demo in Demo.load():
        block = ran.stdout.split(f"torch.{demo.op}(", 1)[1].split("\n\n", 1)[0]
        assert f") against numpy.{demo.numpy}\n" in block
        assert "DIFFERENT" not in block and "inf ulp" not in block
        assert ("gradcheck (" in block and "): True; gradgradcheck: True" in block) or not demo.wrt


def test_the_workflow_page_quotes_the_demo_as_it_prints() -> None:
    ran = run_demo(DEMOS)
    blocks = ran.stdout.strip().split("\n\n")
    quoted = [b for b in blocks if b in (REPO_ROOT / "docs" / "WORKFLOW.md").read_text()]
    assert quoted, "docs/WORKFLOW.md's demo excerpt is no block of `make demo`'s output: paste it again"


def test_a_result_that_differs_from_numpy_fails_the_demo(tmp_path: Path) -> None:
    (first,) = [t for t in DEMOS.read_text().split("[[demo]]")[1:2]]
    # Planted: the first operator compared with another numpy function, the gradients left out.
    wrong = "[[demo]]" + first.split("[demo.gradcheck]")[0].replace('numpy = "', 'numpy = "negative" #', 1)
    ran = run_demo(write(tmp_path / "demo.toml", wrong))
    assert ran.returncode != 0
    assert "ulp apart" in ran.stdout and "a result differs from numpy's" in ran.stderr


def test_a_demo_without_its_numpy_counterpart_is_refused_naming_the_keys(tmp_path: Path) -> None:
    with pytest.raises(DemoError, match=r"lacks 'numpy' \(each needs op, numpy and args\)"):
        Demo.load(write(tmp_path / "demo.toml", '[[demo]]\nop = "cbrt"\nargs = [[1.0]]\n'))

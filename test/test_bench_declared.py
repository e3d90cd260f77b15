"""`make bench` runs the benchmark each stack declares in pr.toml, so the Makefile names no operator's module."""

from __future__ import annotations

import dataclasses
import importlib.util

import pytest

from scripts.layout import REPO_ROOT
from scripts.patchset.fragments import FragmentError, load_sources
from scripts.upstream.pr import texts


def test_every_stack_declares_a_benchmark_module_that_exists() -> None:
    from scripts.measure.declared import benchmark_commands

    commands = dict(benchmark_commands())
    assert list(commands) == list(load_sources().stacks)
    for stack, argv in commands.items():
        assert argv[1] == "-m" and importlib.util.find_spec(argv[2]) is not None, (stack, argv)


def test_the_makefile_runs_the_declared_benchmarks_and_names_no_module_of_its_own() -> None:
    recipe = (REPO_ROOT / "Makefile").read_text().split("\nbench: overlay\n", 1)[1].split("\n\n", 1)[0]
    assert recipe.strip() == "$(PYTHON) -m scripts.measure.declared"


def test_a_declared_benchmark_that_is_not_a_python_module_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import scripts.measure.declared as declared

    first = load_sources().stacks[0]
    prose = texts(first)
    assert prose.benchmarks is not None
    # Planted: a shell command where a module is expected.
    planted = dataclasses.replace(prose, benchmarks=dataclasses.replace(prose.benchmarks, made_by="make bench"))
    monkeypatch.setattr(declared, "texts", lambda stack: planted if stack == first else texts(stack))
    with pytest.raises(FragmentError, match=rf"\[stack.{first}\].benchmarks.made_by is 'make bench'"):
        declared.benchmark_commands()

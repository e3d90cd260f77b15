"""A failing step of .ci/run says why in its last lines: the step, the failing test or GPU-check stage, and the first
line of its error (the exception's type and message, not a hint to set a verbose flag)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import write

from scripts.layout import REPO_ROOT
from scripts.testing import failure_report

# The way dynamo reports an Inductor error: a wrapper naming the backend, the real exception, then hints.
COMPILE_FAILURE = textwrap.dedent('''
    def test_planted_compile():
        raise RuntimeError(
            "backend='inductor' raised:\\n"
            "AssertionError: make_fallback(aten.cbrt.default): a decomposition exists, we should switch to it.\\n\\n"
            "Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace (please do this especially if you're reporting a bug)"
        )


    def test_passes():
        pass
''')


@pytest.fixture(scope="module")
def junit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """JUnit XML of a real pytest run: the compile failure first, then 7 failing asserts and 1 passing test."""
    folder = tmp_path_factory.mktemp("planted")
    asserts = "".join(f"\n\ndef test_{i}():\n    assert {i} == -1\n" for i in range(7))
    tests = write(folder / "suite" / "test_planted.py", COMPILE_FAILURE + asserts)
    xml = folder / "results.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests), f"--junitxml={xml}"],
                   cwd=folder, capture_output=True, text=True)
    return xml


def test_a_failing_pytest_run_names_each_test_and_its_errors_first_line(junit: Path, tmp_path: Path) -> None:
    lines = failure_report.report("make test", 2, tmp_path / "make-test.log", 0, [junit], [])
    assert lines[0] == f"ci: FAILED: step 'make test' (exit 2); its whole log: {tmp_path / 'make-test.log'}"
    assert lines[1:3] == ["ci:   failed: suite/test_planted.py::test_planted_compile",
                          "ci:     AssertionError: make_fallback(aten.cbrt.default): a decomposition exists, we should "
                          "switch to it."]
    assert lines[3:5] == ["ci:   failed: suite/test_planted.py::test_0", "ci:     AssertionError: assert 0 == -1"]
    assert not any("TORCHDYNAMO_VERBOSE" in line or "test_passes" in line for line in lines)


def test_results_older_than_the_step_are_not_its_failure(junit: Path, tmp_path: Path) -> None:
    log = write(tmp_path / "make-test.log", "ruff check\nscripts/x.py:3:1: F401 [*] `os` imported but unused\n"
                "make: *** [Makefile:60: lint] Error 1\n")
    lines = failure_report.report("make test", 2, log, time.time() + 60, [junit], [])
    assert lines[1:] == ["ci:   no test or stage reported a failure; the log's error: "
                         "make: *** [Makefile:60: lint] Error 1"]


def test_a_failed_gpu_stage_is_named_with_the_innermost_exception_of_its_log(tmp_path: Path) -> None:
    out = tmp_path / "gpu-rehearsal"
    write(out / "summary.txt", "gpu_check: overlay ok in 200s\n"
          "gpu_check: bitwise FAILED (exit 1) in 9s: bitwise: error: float16 (cpu): BackendCompilerFailed: ...\n")
    write(out / "bitwise.log", textwrap.dedent('''
        Traceback (most recent call last):
          File "scripts/gpu/bitwise.py", line 160, in main
        torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:
        AssertionError: make_fallback(aten.cbrt.default): a decomposition exists, we should switch to it.

        Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace
        bitwise: error: float16 (cpu): AssertionError: make_fallback(aten.cbrt.default): a decomposition exists, we should switch to it.
    '''))
    lines = failure_report.report("make gpu-rehearse", 2, tmp_path / "ci.log", 0, [], [out / "summary.txt"])
    assert lines[1:] == [
        f"ci:   failed: stage bitwise of {out} (log: {out / 'bitwise.log'})",
        "ci:     AssertionError: make_fallback(aten.cbrt.default): a decomposition exists, we should switch to it.",
    ]


def test_many_failures_are_counted_after_the_first_few(junit: Path, tmp_path: Path) -> None:
    lines = failure_report.report("make test", 1, tmp_path / "log", 0, [junit], [])
    assert sum(line.startswith("ci:   failed:") for line in lines) == failure_report.MOST_CASES
    assert lines[-1] == "ci:   and 3 more failing tests or stages"


def test_ci_run_refuses_an_unknown_step_and_lists_the_steps() -> None:
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    result = subprocess.run(["bash", str(REPO_ROOT / ".ci" / "run"), "tset"], capture_output=True, text=True, env=env)
    assert result.returncode == 2
    assert result.stderr.strip() == "ci: no step 'tset'; the steps: test test-slow gpu-rehearse gpu-rehearse-pinned"

"""`make pytorch`: the plan of commands, the dry run that prints it, the runner, and the JUnit summary."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from conftest import write

import scripts.upstream.pytorch_build as lane
from scripts.gitutil import git
from scripts.patchset.fragments import load_sources
from scripts.upstream.apply_checkout import ApplyError
from scripts.upstream.junit_summary import markdown_table, summarize_dir, summarize_file
from scripts.upstream.pytorch_build import (
    ApplyPatchSet,
    Command,
    LaneOptions,
    Plan,
    Runner,
    Toolchain,
    dry_run_text,
    plan_lane,
)
from scripts.upstream.suites import SUITES, all_suites, stack_ops

CPU_BOX = Toolchain(cpus=16, memory_gib=64.0, ccache=None, nvcc=None, gpu=False)
GPU_BOX = Toolchain(cpus=16, memory_gib=64.0, ccache="/usr/bin/ccache", nvcc="/usr/local/cuda/bin/nvcc", gpu=True)


def options(tmp_path: Path, **overrides: object) -> LaneOptions:
    """Everything the lane writes lands under tmp_path; the checkout comes from `src` or clone_dir."""
    base = {
        "clone_dir": tmp_path / "clone" / "pytorch",
        "venv_dir": tmp_path / "venv",
        "results_dir": tmp_path / "results",
    }
    return LaneOptions(**{**base, **overrides})


def commands(plan: Plan) -> list[Command]:
    return [step for step in plan.steps if isinstance(step, Command)]


def is_suite_run(command: Command) -> bool:
    return command.argv[1:3] == ("-m", "pytest")


def step_titled(plan: Plan, prefix: str) -> Command:
    return next(step for step in commands(plan) if step.title.startswith(prefix))


def build_env(plan: Plan) -> dict[str, str]:
    return dict(step_titled(plan, "build PyTorch").env)


def snapshot(repo: Path) -> tuple[str, str, str]:
    return (
        git(repo, "rev-parse", "HEAD").strip(),
        git(repo, "status", "--porcelain", "--untracked-files=all"),
        git(repo, "branch", "--list"),
    )


# --- the plan: clone or existing checkout ---------------------------------------------------------


def test_without_a_checkout_the_plan_starts_with_a_shallow_clone_of_the_pinned_tag(tmp_path: Path) -> None:
    plan = plan_lane(options(tmp_path), CPU_BOX)
    clone = plan.steps[0]
    assert isinstance(clone, Command)
    assert clone.argv[:2] == ("git", "clone")
    assert {"--depth", "1", "--branch", "v2.14.1", "--recurse-submodules", "--shallow-submodules"} <= set(clone.argv)
    assert clone.argv[-2:] == ("https://github.com/pytorch/pytorch.git", str(tmp_path / "clone" / "pytorch"))
    assert plan.steps[1] == ApplyPatchSet(tmp_path / "clone" / "pytorch", "cbrt")


def test_an_existing_checkout_is_used_in_place_without_a_clone(tmp_path: Path, checkout: Path) -> None:
    plan = plan_lane(options(tmp_path, src=checkout, branch="mine"), CPU_BOX)
    assert not any("clone" in step.argv for step in commands(plan))
    assert step_titled(plan, "update submodules").argv == ("git", "submodule", "update", "--init", "--recursive")
    assert ApplyPatchSet(checkout, "mine") in plan.steps
    assert step_titled(plan, "build PyTorch").cwd == checkout


def test_a_second_run_reuses_the_clone_and_builds_incrementally(tmp_path: Path, checkout: Path) -> None:
    plan = plan_lane(options(tmp_path, clone_dir=checkout), CPU_BOX)
    assert not any("clone" in step.argv for step in commands(plan))
    build = step_titled(plan, "build PyTorch")
    assert build.argv[1:] == ("-m", "pip", "install", "--no-build-isolation", "-v", "-e", ".")
    assert "CMAKE_FRESH" not in build_env(plan)
    assert not any("clean" in step.argv for step in commands(plan))


def test_a_clone_folder_that_is_not_a_git_checkout_is_refused(tmp_path: Path) -> None:
    leftover = tmp_path / "clone" / "pytorch"
    leftover.mkdir(parents=True)
    with pytest.raises(ApplyError, match="exists but is not a git checkout"):
        plan_lane(options(tmp_path), CPU_BOX)


def test_a_dirty_checkout_is_refused_before_anything_runs(tmp_path: Path, checkout: Path) -> None:
    (checkout / "docs/source/torch.md").write_text("my uncommitted work\n")
    before = snapshot(checkout)
    with pytest.raises(ApplyError, match="uncommitted changes; commit or stash them first"):
        plan_lane(options(tmp_path, src=checkout), CPU_BOX)
    assert snapshot(checkout) == before


def test_a_missing_checkout_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ApplyError, match="is not a git checkout"):
        plan_lane(options(tmp_path, src=tmp_path / "nowhere"), CPU_BOX)


# --- the plan: build settings ---------------------------------------------------------------------


def test_max_jobs_given_is_passed_to_the_build(tmp_path: Path) -> None:
    assert build_env(plan_lane(options(tmp_path, max_jobs=3), CPU_BOX))["MAX_JOBS"] == "3"


def test_max_jobs_by_default_fits_cpus_and_memory(tmp_path: Path) -> None:
    small = Toolchain(cpus=16, memory_gib=8.0, ccache=None, nvcc=None, gpu=False)
    assert build_env(plan_lane(options(tmp_path), small))["MAX_JOBS"] == "4"
    assert build_env(plan_lane(options(tmp_path), CPU_BOX))["MAX_JOBS"] == "16"


def test_ccache_found_is_the_compiler_launcher(tmp_path: Path) -> None:
    env = build_env(plan_lane(options(tmp_path, use_cuda=False), GPU_BOX))
    assert env["CMAKE_C_COMPILER_LAUNCHER"] == env["CMAKE_CXX_COMPILER_LAUNCHER"] == "/usr/bin/ccache"
    assert "CMAKE_CUDA_COMPILER_LAUNCHER" not in env
    assert "USE_CCACHE" not in env


def test_ccache_off_disables_pytorchs_own_detection(tmp_path: Path) -> None:
    for plan in (plan_lane(options(tmp_path), CPU_BOX), plan_lane(options(tmp_path, ccache=False), GPU_BOX)):
        env = build_env(plan)
        assert env["USE_CCACHE"] == "0"
        assert not any(name.endswith("COMPILER_LAUNCHER") for name in env)


def test_cuda_is_on_with_nvcc_and_a_gpu(tmp_path: Path) -> None:
    plan = plan_lane(options(tmp_path), GPU_BOX)
    env = build_env(plan)
    assert env["USE_CUDA"] == "1"
    assert env["CMAKE_CUDA_COMPILER_LAUNCHER"] == "/usr/bin/ccache"
    assert step_titled(plan, "install the Triton wheel").argv == ("bash", "scripts/install_triton_wheel.sh")


def test_cuda_is_off_without_a_gpu_or_without_nvcc(tmp_path: Path) -> None:
    no_gpu = Toolchain(cpus=4, memory_gib=16.0, ccache=None, nvcc="/usr/local/cuda/bin/nvcc", gpu=False)
    no_nvcc = Toolchain(cpus=4, memory_gib=16.0, ccache=None, nvcc=None, gpu=True)
    for box in (no_gpu, no_nvcc):
        plan = plan_lane(options(tmp_path), box)
        assert build_env(plan)["USE_CUDA"] == "0"
        assert not any(step.title.startswith("install the Triton") for step in commands(plan))


def test_use_cuda_given_overrides_detection(tmp_path: Path) -> None:
    assert build_env(plan_lane(options(tmp_path, use_cuda=True), CPU_BOX))["USE_CUDA"] == "1"
    assert build_env(plan_lane(options(tmp_path, use_cuda=False), GPU_BOX))["USE_CUDA"] == "0"


def test_a_build_venv_is_created_unless_an_interpreter_is_given(tmp_path: Path) -> None:
    plan = plan_lane(options(tmp_path), CPU_BOX)
    assert step_titled(plan, "create the build venv").argv[1:] == ("-m", "venv", str(tmp_path / "venv"))
    assert plan.python == tmp_path / "venv" / "bin" / "python"
    given = tmp_path / "env" / "bin" / "python"
    plan = plan_lane(options(tmp_path, python=given, install_deps=False), CPU_BOX)
    assert not any(step.title.startswith(("create the build venv", "install", "upgrade pip")) for step in commands(plan))
    assert step_titled(plan, "build PyTorch").argv[0] == str(given)
    assert step_titled(plan, "build PyTorch").path_prepend == (given.parent,)


def test_every_suite_runs_filtered_from_test_with_its_own_junit_file(tmp_path: Path) -> None:
    plan = plan_lane(options(tmp_path), CPU_BOX)
    runs = [step for step in commands(plan) if is_suite_run(step)]
    named = {path for topic in load_sources().of_stack().topics for path in topic.tests}
    suites = [suite for suite in all_suites(load_sources()) if suite.path in named]  # those the stack's Test Plans run, in order
    assert [run.argv[3] for run in runs] == [suite.path for suite in suites]
    for run, suite in zip(runs, suites, strict=True):
        assert run.cwd == tmp_path / "clone" / "pytorch" / "test"
        assert run.argv[run.argv.index("-k") + 1] == suite.keyword(stack_ops(load_sources().of_stack()))
        assert "divmod" not in run.argv[run.argv.index("-k") + 1]
        assert f"--junitxml={tmp_path / 'results' / suite.junit_file}" in run.argv
        assert not run.check
    assert len({suite.junit_file for suite in SUITES}) == len(SUITES)
    assert commands(plan)[-1].argv[1:] == ("-m", "scripts.upstream.junit_summary", str(tmp_path / "results"))


# --- dry run ----------------------------------------------------------------------------------------


def test_dry_run_prints_every_step_in_order_and_runs_nothing(
    tmp_path: Path, checkout: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def must_not_run(*args: object) -> int:
        raise AssertionError("a dry run executed a step")

    monkeypatch.setattr(lane, "detect_toolchain", lambda: CPU_BOX)
    monkeypatch.setattr(lane, "run_command", must_not_run)
    monkeypatch.setattr(lane.Runner, "run", must_not_run)
    before = snapshot(checkout)
    lane.main(["--src", str(checkout), "--dry-run", "--max-jobs", "5", "--use-cuda", "0"])
    printed = [line for line in capsys.readouterr().out.splitlines() if not line.startswith("#")]
    plan = plan_lane(LaneOptions(src=checkout, max_jobs=5, use_cuda=False), CPU_BOX)
    assert printed == [step.shell_line() for step in plan.steps]
    assert any(line.startswith(f"cd {checkout} && env MAX_JOBS=5 USE_CUDA=0") for line in printed)
    assert snapshot(checkout) == before


def test_dry_run_of_a_dirty_checkout_is_refused_with_the_reason(
    checkout: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(lane, "detect_toolchain", lambda: CPU_BOX)
    (checkout / "notes.txt").write_text("untracked work\n")
    with pytest.raises(SystemExit) as exit_info:
        lane.main(["--src", str(checkout), "--dry-run"])
    assert exit_info.value.code == 1
    captured = capsys.readouterr()
    assert "has uncommitted changes; commit or stash them first" in captured.err
    assert "notes.txt" in captured.err
    assert captured.out == ""


def test_dry_run_text_numbers_the_steps_and_states_the_choices(tmp_path: Path) -> None:
    plan = plan_lane(options(tmp_path, max_jobs=2), GPU_BOX)
    text = dry_run_text(plan)
    assert f"[1/{len(plan.steps)}] clone PyTorch v2.14.1" in text
    assert "# MAX_JOBS=2 (given)" in text
    assert "# USE_CUDA=1 (nvcc at /usr/local/cuda/bin/nvcc, GPU present)" in text
    assert "# ccache: /usr/bin/ccache" in text


def test_shell_line_quotes_arguments_and_extends_path() -> None:
    command = Command("t", ("python", "-k", "cbrt or x"), Path("/a b"), (("X", "1 2"),), (Path("/v/bin"),))
    assert command.shell_line() == "cd '/a b' && env 'X=1 2' PATH=/v/bin:\"$PATH\" python -k 'cbrt or x'"


# --- the runner -------------------------------------------------------------------------------------


class Recorder:
    def __init__(self, failing: tuple[str, ...] = ()) -> None:
        self.seen: list[Command] = []
        self.failing = failing

    def __call__(self, command: Command) -> int:
        self.seen.append(command)
        return 1 if command.title.startswith(self.failing) else 0


def test_a_run_applies_the_patch_set_to_the_fixture_tree_then_runs_each_command_in_order(
    sources_root: Path, checkout: Path, tmp_path: Path
) -> None:
    plan = plan_lane(options(tmp_path, src=checkout), CPU_BOX)
    recorder = Recorder()
    assert Runner(load_sources(sources_root), recorder).run(plan) == 0
    assert git(checkout, "log", "--format=%s", "main..cbrt").splitlines() == ["[docs] second topic", "[ATen] first topic"]
    assert (checkout / "aten/src/ATen/native/New.cpp").read_text() == "// new file\n"
    assert recorder.seen == commands(plan)


def test_a_second_run_finds_the_patch_set_applied_and_goes_on(
    sources_root: Path, checkout: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sources = load_sources(sources_root)
    Runner(sources, Recorder()).run(plan_lane(options(tmp_path, src=checkout), CPU_BOX))
    before = snapshot(checkout)
    second = Recorder()
    plan = plan_lane(options(tmp_path, src=checkout), CPU_BOX)
    assert Runner(sources, second).run(plan) == 0
    assert "already applied" in capsys.readouterr().out
    assert snapshot(checkout) == before
    assert second.seen == commands(plan)


def test_a_failing_build_stops_the_lane(sources_root: Path, checkout: Path, tmp_path: Path) -> None:
    recorder = Recorder(failing=("build PyTorch",))
    plan = plan_lane(options(tmp_path, src=checkout), CPU_BOX)
    assert Runner(load_sources(sources_root), recorder).run(plan) == 1
    assert recorder.seen[-1].title.startswith("build PyTorch")
    assert not any(is_suite_run(command) for command in recorder.seen)


def test_a_failing_suite_is_reported_and_the_other_suites_still_run(
    sources_root: Path, checkout: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recorder = Recorder(failing=("test test_meta.py",))
    plan = plan_lane(options(tmp_path, src=checkout), CPU_BOX)
    runner = Runner(load_sources(sources_root), recorder)
    assert runner.run(plan) == 1
    assert recorder.seen == commands(plan)
    assert runner.failed == ["test test_meta.py -k '_cbrt_'"]
    assert "finished with failures in: test test_meta.py" in capsys.readouterr().err


def test_a_failed_apply_stops_before_any_build(sources_root: Path, checkout: Path, tmp_path: Path) -> None:
    plan = plan_lane(options(tmp_path, src=checkout), CPU_BOX)
    git(checkout, "branch", "cbrt")
    recorder = Recorder()
    assert Runner(load_sources(sources_root), recorder).run(plan) == 1
    assert recorder.seen == [commands(plan)[0]]


def test_a_command_runs_in_its_folder_with_its_env_and_path(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    script = f"import os, pathlib; pathlib.Path({str(out)!r}).write_text(os.getcwd() + '|' + os.environ['X'] + '|' + os.environ['PATH'])"
    command = Command("probe", (sys.executable, "-c", script), tmp_path, (("X", "42"),), (Path("/opt/tool/bin"),))
    assert lane.run_command(command) == 0
    cwd, x, path = out.read_text().split("|")
    assert (cwd, x) == (str(tmp_path), "42")
    assert path.startswith("/opt/tool/bin:")


# --- JUnit summary ----------------------------------------------------------------------------------

PYTEST_XML = """\
<?xml version="1.0" encoding="utf-8"?>
<testsuites name="pytest tests">
  <testsuite name="test_ops.py" errors="1" failures="1" skipped="2" tests="6" time="3.5">
    <testcase classname="test_ops.TestCommonCPU" name="test_out_cbrt_cpu_float32" time="0.5"/>
    <testcase classname="test_ops.TestCommonCPU" name="test_variant_consistency_eager_cbrt_cpu_float32" time="1.0"/>
    <testcase classname="test_ops.TestCommonCPU" name="test_compare_cpu_cbrt_cpu_float16" time="0.5">
      <failure message="AssertionError: Tensor-likes are not close!">trace</failure>
    </testcase>
    <testcase classname="test_ops.TestCommonCPU" name="test_dtypes_cbrt_cpu" time="1.0">
      <error message="failed on teardown">trace</error>
    </testcase>
    <testcase classname="test_ops.TestCommonCPU" name="test_python_ref_cbrt_cpu_complex64" time="0.0">
      <skipped type="pytest.skip" message="not supported">skip</skipped>
    </testcase>
    <testcase classname="test_ops.TestCommonCPU" name="test_noncontiguous_cbrt_cpu_bfloat16" time="0.5">
      <skipped type="pytest.xfail" message="expected failure"/>
    </testcase>
  </testsuite>
</testsuites>
"""

UNITTEST_XML = """\
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="pytest" tests="2" errors="0" failures="0" skipped="0">
  <testcase classname="TestTorch" name="test_doc" time="0.25"/>
  <testcase classname="TestTorch" name="test_doc_template" time="0.25"/>
</testsuite>
"""


def test_junit_counts_passes_failures_errors_and_skips_per_testcase(tmp_path: Path) -> None:
    result = summarize_file(write(tmp_path / "test_ops.xml", PYTEST_XML))
    assert (result.name, result.passed, result.failed, result.errors, result.skipped) == ("test_ops.py", 2, 1, 1, 2)
    assert result.seconds == pytest.approx(3.5)
    assert result.problems == [
        "test_ops.TestCommonCPU::test_compare_cpu_cbrt_cpu_float16",
        "test_ops.TestCommonCPU::test_dtypes_cbrt_cpu",
    ]
    assert result.verdict == "FAILED" and not result.ok


def test_junit_with_a_bare_testsuite_root_and_the_default_name_uses_the_file_name(tmp_path: Path) -> None:
    result = summarize_file(write(tmp_path / "test_torch.xml", UNITTEST_XML))
    assert (result.name, result.passed, result.total, result.verdict) == ("test_torch", 2, 2, "ok")


def test_junit_an_error_outranks_a_failure_in_one_testcase(tmp_path: Path) -> None:
    xml = '<testsuite><testcase name="t"><failure/><error/></testcase></testsuite>'
    result = summarize_file(write(tmp_path / "s.xml", xml))
    assert (result.failed, result.errors) == (0, 1)


def test_junit_no_testcase_means_nothing_was_selected(tmp_path: Path) -> None:
    result = summarize_file(write(tmp_path / "empty.xml", '<testsuites><testsuite name="x.py" tests="0"/></testsuites>'))
    assert result.verdict == "no tests selected" and not result.ok


def test_junit_an_unreadable_file_is_reported_not_skipped(tmp_path: Path) -> None:
    result = summarize_file(write(tmp_path / "cut.xml", "<testsuite><testcase name="))
    assert result.verdict == "unreadable" and result.unreadable


def test_junit_summary_of_a_folder_and_its_exit_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import scripts.upstream.junit_summary as junit_summary

    write(tmp_path / "b-test_torch.xml", UNITTEST_XML)
    monkeypatch.setattr(sys, "argv", ["junit_summary", str(tmp_path)])
    with pytest.raises(SystemExit) as passing:
        junit_summary.main()
    assert passing.value.code == 0
    write(tmp_path / "a-test_ops.xml", PYTEST_XML)
    with pytest.raises(SystemExit) as failing:
        junit_summary.main()
    assert failing.value.code == 1
    out = capsys.readouterr().out
    assert "| `test_ops.py` | 2 | 1 | 1 | 2 | 3.5 | FAILED |" in out
    assert "test_ops.py: test_ops.TestCommonCPU::test_dtypes_cbrt_cpu" in out


def test_junit_markdown_table_has_one_row_per_suite(tmp_path: Path) -> None:
    write(tmp_path / "one.xml", PYTEST_XML)
    write(tmp_path / "two.xml", UNITTEST_XML)
    table = markdown_table(summarize_dir(tmp_path))
    assert textwrap.dedent(table).count("\n") == 4
    assert "| `two` | 2 | 0 | 0 | 0 | 0.5 | ok |" in table


def test_earlier_results_are_cleared_before_the_build(tmp_path: Path) -> None:
    titles = [step.title for step in plan_lane(options(tmp_path), CPU_BOX).steps]
    assert titles.index("clear earlier JUnit results") == titles.index("build PyTorch in development mode (incremental)") - 1
    assert step_titled(plan_lane(options(tmp_path), CPU_BOX), "clear").argv == ("rm", "-rf", str(tmp_path / "results"))


# --- STACK= -----------------------------------------------------------------------------------------


def test_a_stack_is_applied_on_its_own_branch_and_its_suites_filter_on_its_operators(tmp_path: Path) -> None:
    plan = plan_lane(options(tmp_path, stack="divmod"), CPU_BOX)
    apply = plan.steps[1]
    assert apply == ApplyPatchSet(tmp_path / "clone" / "pytorch", "divmod", "divmod")
    assert isinstance(apply, ApplyPatchSet) and apply.shell_line().endswith("--branch divmod --stack divmod")
    keywords = [run.argv[run.argv.index("-k") + 1] for run in commands(plan) if is_suite_run(run)]
    assert keywords and all(("divmod" in k or k == "test_doc") and "cbrt" not in k for k in keywords)


def test_each_stack_keeps_its_junit_results_apart_by_default(tmp_path: Path) -> None:
    from scripts.upstream.suites import results_dir_of

    plans = {stack: plan_lane(options(tmp_path, results_dir=None, stack=stack), CPU_BOX) for stack in ("cbrt", "divmod")}
    assert {stack: plan.results_dir for stack, plan in plans.items()} == {s: results_dir_of(s) for s in plans}


def test_an_unknown_stack_stops_the_plan_naming_the_stacks(tmp_path: Path) -> None:
    with pytest.raises(ApplyError, match="unknown stack 'nope': topics.toml has cbrt, divmod, interp"):
        plan_lane(options(tmp_path, stack="nope"), CPU_BOX)

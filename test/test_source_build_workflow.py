"""The source-build workflow: `make pytorch` for every stack, on a fork's runners, manual and weekly. Its matrix
and commands are checked here; its commands through `make pytorch DRY_RUN=1` (actionlint lints the file in
test_lint_workflows.py)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys

from scripts.layout import REPO_ROOT
from scripts.patchset.fragments import load_sources
from scripts.upstream.suites import all_suites

WORKFLOW = REPO_ROOT / ".github" / "workflows" / "source-build.yml"


def step_command(name: str) -> str:
    """The `run:` line of the step named `name`."""
    text = WORKFLOW.read_text()
    return text.split(f"      - name: {name}\n", 1)[1].split("        run: ", 1)[1].split("\n", 1)[0]


def test_it_runs_only_on_a_manual_run_or_its_weekly_schedule() -> None:
    triggers = WORKFLOW.read_text().split("\non:\n", 1)[1].split("\n\n", 1)[0]
    assert re.findall(r"^  (\w+):", triggers, re.MULTILINE) == ["workflow_dispatch", "schedule"]


def test_its_matrix_is_the_stacks_of_topics_toml() -> None:
    text = WORKFLOW.read_text()
    assert "stack: ${{ fromJSON(needs.stacks.outputs.stacks) }}" in text
    command = text.split("      - id: stacks\n        run: ", 1)[1].split("\n", 1)[0]
    printed = command.removeprefix('echo "stacks=$(').split(')" >> "$GITHUB_OUTPUT"')[0]
    ran = subprocess.run(shlex.split(printed), cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    assert json.loads(ran.stdout) == list(load_sources().stacks)


def test_each_stacks_job_plans_the_pinned_clone_the_stack_and_its_test_plan_suites() -> None:
    command = step_command("make pytorch")
    for stack in load_sources().stacks:
        argv = shlex.split(command.replace("${{ matrix.stack }}", stack).replace("python3", sys.executable))
        assert argv[:2] == ["make", "pytorch"]
        plan = subprocess.run([*argv, "DRY_RUN=1"], cwd=REPO_ROOT, capture_output=True, text=True, check=True).stdout
        assert "--depth 1 --branch v2.14.1 --recurse-submodules --shallow-submodules" in plan
        assert f"--branch {stack} --stack {stack}" in plan
        assert "CMAKE_CXX_COMPILER_LAUNCHER=ccache" in plan and "USE_CUDA=0" in plan
        named = {path for topic in load_sources().of_stack(stack).topics for path in topic.tests}
        run = re.findall(r"-m pytest (\S+) -k", plan)
        assert run == [suite.path for suite in all_suites(load_sources()) if suite.path in named], stack
        assert f"build/pytorch-results/{stack}/" in plan


def test_it_uploads_each_stacks_junit_xml_and_summary() -> None:
    text = WORKFLOW.read_text()
    assert "path: build/pytorch-results/${{ matrix.stack }}\n" in text
    assert 'junit_summary "build/pytorch-results/${{ matrix.stack }}"' in text
    assert "path: build/ccache\n" in text and "CCACHE_DIR: ${{ github.workspace }}/build/ccache" in text

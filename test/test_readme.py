"""The README's generated tables match the commands that make them."""

from __future__ import annotations

from scripts.bad_inputs import markdown_table
from scripts.readme_tables import README, read_section


def test_bad_input_table_matches_what_the_operator_raises_today() -> None:
    assert read_section(README.read_text(), "bad-inputs") == markdown_table(), "run `python -m scripts.readme_tables`"


def test_accuracy_table_is_filled_in() -> None:
    assert "| float32 | torch.cbrt | 4,294,967,296 |" in read_section(README.read_text(), "accuracy")

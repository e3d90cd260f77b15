"""The README is the front door: every operator of the patch set has an example there that runs as written, and a
page under docs/, whose bad inputs raise as written. docs/cbrt.md's generated tables match the commands that make
them: every cheap figure is computed again here, the float32 and float64 rows of torch.cbrt from the sweeps
`make test` runs anyway."""

from __future__ import annotations

import builtins
import math
import re
from pathlib import Path

import pytest
from accuracy_runs import swept

from scripts.layout import REPO_ROOT
from scripts.measure.accuracy import Report, markdown_table, run
from scripts.measure.bad_inputs import markdown_table as bad_input_table
from scripts.measure.bench_summary import BENCHMARKS, summary_of
from scripts.measure.bench_summary import parse as parse_benchmarks
from scripts.measure.readme_tables import PAGE, read_section
from scripts.patchset.native_ops import native_ops

PAGE_CANDIDATES = ("torch.cbrt", "numpy.cbrt", "copysign(pow(abs(x), 1/3), x)", "sign(x) * abs(x) ** (1/3)")


def accuracy_rows() -> dict[tuple[str, str], str]:
    """docs/cbrt.md's accuracy table's rows by (dtype, implementation)."""
    lines = read_section(PAGE.read_text(), "accuracy").splitlines()
    rows = [line for line in lines if line.startswith("| ") and not line.startswith("| dtype |")]
    return {tuple(cell.strip() for cell in row.split("|")[1:3]): row for row in rows}


def row_of(report: Report) -> str:
    return markdown_table([report]).splitlines()[2]


def test_performance_figures_are_the_ones_of_docs_benchmarks_md() -> None:
    """Machine, date and every ratio of docs/cbrt.md's performance block, made again from docs/BENCHMARKS.md."""
    assert read_section(PAGE.read_text(), "performance") == summary_of(BENCHMARKS), (
        "run `python -m scripts.measure.readme_tables`")


def test_the_cbrt_page_names_no_measured_figure_outside_its_generated_blocks() -> None:
    """The performance section's figures live only between the markers; the machine is named only there."""
    text = PAGE.read_text()
    section = text[text.index("## Performance"):text.index("## Bad inputs")]
    outside = re.sub(r"<!-- performance:begin -->.*<!-- performance:end -->", "", section, flags=re.DOTALL)
    assert not re.findall(r"\d+\.\d+x|\d{4}-\d{2}-\d{2}|Gelem/s", outside), outside


def test_the_commit_messages_quote_only_ratios_of_the_generated_performance_block() -> None:
    """Every speed ratio a commit body in topics.toml quotes is one docs/cbrt.md's checked block gives."""
    from scripts.patchset.fragments import load_sources

    block = read_section(PAGE.read_text(), "performance")
    quoted = {(t.id, r) for t in load_sources().topics for r in re.findall(r"\d+\.\d+(?:-\d+\.\d+)?x", t.body)}
    assert quoted, "no ratio quoted: drop this test or the figures"
    assert not [(topic, ratio) for topic, ratio in quoted if ratio not in block]


def test_the_cbrt_pages_other_claims_from_docs_benchmarks_md_hold_there() -> None:
    """The introduction's "faster than numpy.cbrt" needs both numpy targets met, and the GPU section's "no figures yet"
    needs the report's GPU section to be the unmeasured one."""
    text, report = PAGE.read_text(), BENCHMARKS.read_text()
    if "faster than `numpy.cbrt`" in text[:text.index("## Accuracy")]:
        targets = parse_benchmarks(report).targets
        assert all(targets[f"{d} vs numpy.cbrt, 1 thread"].met for d in ("float32", "float64")), "docs/cbrt.md's introduction"
    unmeasured = "Not measured yet: no run on a GPU so far." in report
    assert ("No GPU figures have been measured yet" in text) == unmeasured, "docs/cbrt.md's GPU section"


def test_bad_input_table_matches_what_the_operator_raises_today() -> None:
    assert read_section(PAGE.read_text(), "bad-inputs") == bad_input_table(), "run `python -m scripts.measure.readme_tables`"


def test_accuracy_table_has_a_row_per_dtype_and_implementation_of_its_command() -> None:
    command = next(line for line in PAGE.read_text().splitlines() if line.startswith("`python -m scripts.measure.accuracy"))
    assert all(f'"{c}"' in command or f" {c} " in command for c in PAGE_CANDIDATES), command
    dtypes = ("float16", "bfloat16", "float32", "float64")
    assert list(accuracy_rows()) == [(d, c) for d in dtypes for c in PAGE_CANDIDATES]


@pytest.mark.slow
def test_every_half_and_bfloat16_torch_cbrt_row_is_what_the_sweep_gives_today() -> None:
    rows = accuracy_rows()
    for report in run(["float16", "bfloat16"], ("torch.cbrt",), workers=2, float64_count=0, limit=None):
        assert rows[(report.dtype.removeprefix("torch."), report.candidate)] == row_of(report)


def test_the_other_rows_name_the_machine_and_library_versions_that_measured_them() -> None:
    """numpy's cube root and torch.pow take a different SIMD path on each CPU: their rows hold on the machine named
    above the table, with the versions named there, and are never asserted here."""
    (line,) = [line for line in read_section(PAGE.read_text(), "accuracy").splitlines() if line.startswith("Measured")]
    assert re.search(r"numpy \d+\.\d+", line) and re.search(r"torch \d+\.\d+", line) and " build" in line, line


@pytest.mark.slow
def test_float32_torch_cbrt_row_is_what_make_tests_exhaustive_sweep_gives(pytestconfig: pytest.Config) -> None:
    assert accuracy_rows()[("float32", "torch.cbrt")] == row_of(swept("float32", pytestconfig))


@pytest.mark.slow
def test_float64_torch_cbrt_row_agrees_with_make_tests_sample_of_the_same_inputs(pytestconfig: pytest.Config) -> None:
    """make test sweeps the first 2 * 10^6 of the table's 10^8 random bit patterns, and the same special inputs:
    its worst error cannot exceed the table's, and its share of results not correctly rounded must be the table's
    within 5 standard errors."""
    cells = [c.strip().replace(",", "") for c in accuracy_rows()[("float64", "torch.cbrt")].split("|")[3:7]]
    inputs, max_ulp, wrong, over = int(cells[0]), float(cells[1]), int(cells[2]), int(cells[3])
    sample = swept("float64", pytestconfig)
    assert float(f"{sample.max_ulp:.3g}") <= max_ulp and (sample.over_one_ulp == 0) == (over == 0), sample
    share, sample_share = wrong / inputs, sample.not_correctly_rounded / sample.inputs
    assert abs(sample_share - share) <= 5 * math.sqrt(share * (1 - share) / sample.inputs), (sample, share)


# ---- the README as the front door ---------------------------------------------------------------------------

README = REPO_ROOT / "README.md"
CODE_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
BAD_INPUT_ROW = re.compile(r"^\| `(torch\..*|\(lambda .*)` \| `(\w+)`: (.*) \|$", re.MULTILINE)


def patch_set_operators() -> list[str]:
    return list(dict.fromkeys(op.root for op in native_ops() if op.python_binding and not op.inplace))


def readme_examples() -> list[str]:
    return CODE_BLOCK.findall(README.read_text())


def test_the_readme_is_an_index_of_at_most_150_lines() -> None:
    assert len(README.read_text().splitlines()) <= 150


@pytest.mark.parametrize("op", patch_set_operators())
def test_every_operator_has_a_readme_example_that_runs_as_written(op: str) -> None:
    import doctest

    import torch

    examples = [block for block in readme_examples() if re.search(rf"\b{op}\(", block)]
    assert examples, f"the README has no example of torch.{op}"
    for block in examples:
        test = doctest.DocTestParser().get_doctest(block, {"torch": torch}, op, str(README), 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        assert runner.run(test, out=lambda _: None).failed == 0, block


@pytest.mark.parametrize("op", patch_set_operators())
def test_every_operator_has_its_page_linked_from_the_readme(op: str) -> None:
    page = REPO_ROOT / "docs" / f"{op}.md"
    assert page.is_file(), f"docs/{op}.md is missing"
    assert page.read_text().startswith(f"# torch.{op}\n")
    assert f"(docs/{op}.md)" in README.read_text()


@pytest.mark.parametrize("page", sorted((REPO_ROOT / "docs").glob("*.md")), ids=lambda p: p.name)
def test_every_bad_input_an_operator_page_lists_raises_as_written(page: Path) -> None:
    import torch

    for call, error, message in BAD_INPUT_ROW.findall(page.read_text()):
        with pytest.raises(getattr(builtins, error)) as raised:
            eval(call, {"torch": torch})  # noqa: S307 - the page's own examples
        assert str(raised.value).startswith(message.removesuffix("...")), (call, str(raised.value))


def test_a_bad_input_row_whose_message_changed_fails() -> None:
    # Planted: a row of divmod's page with another message.
    import torch

    row = "| `torch.divmod(torch.tensor([True]), torch.tensor([True]))` | `TypeError`: divmod of bools |"
    ((call, error, message),) = BAD_INPUT_ROW.findall(row)
    with pytest.raises(getattr(builtins, error)) as raised:
        eval(call, {"torch": torch})  # noqa: S307
    assert not str(raised.value).startswith(message)

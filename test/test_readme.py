"""The README's generated tables match the commands that make them: every cheap figure is computed again here,
the float32 and float64 rows of torch.cbrt from the sweeps `make test` runs anyway."""

from __future__ import annotations

import math
import re

import pytest
from accuracy_runs import swept

from scripts.measure.accuracy import Report, markdown_table, run
from scripts.measure.bad_inputs import markdown_table as bad_input_table
from scripts.measure.bench_summary import BENCHMARKS, summary_of
from scripts.measure.bench_summary import parse as parse_benchmarks
from scripts.measure.readme_tables import README, read_section

README_CANDIDATES = ("torch.cbrt", "numpy.cbrt", "copysign(pow(abs(x), 1/3), x)", "sign(x) * abs(x) ** (1/3)")


def accuracy_rows() -> dict[tuple[str, str], str]:
    """The README accuracy table's rows by (dtype, implementation)."""
    lines = read_section(README.read_text(), "accuracy").splitlines()
    rows = [line for line in lines if line.startswith("| ") and not line.startswith("| dtype |")]
    return {tuple(cell.strip() for cell in row.split("|")[1:3]): row for row in rows}


def row_of(report: Report) -> str:
    return markdown_table([report]).splitlines()[2]


def test_performance_figures_are_the_ones_of_docs_benchmarks_md() -> None:
    """Machine, date and every ratio of the README's performance block, made again from docs/BENCHMARKS.md."""
    assert read_section(README.read_text(), "performance") == summary_of(BENCHMARKS), (
        "run `python -m scripts.measure.readme_tables`")


def test_the_readme_names_no_measured_figure_outside_its_generated_blocks() -> None:
    """The performance section's figures live only between the markers; the machine is named only there."""
    text = README.read_text()
    section = text[text.index("## Performance"):text.index("## Bad inputs")]
    outside = re.sub(r"<!-- performance:begin -->.*<!-- performance:end -->", "", section, flags=re.DOTALL)
    assert not re.findall(r"\d+\.\d+x|\d{4}-\d{2}-\d{2}|Gelem/s", outside), outside


def test_the_commit_messages_quote_only_ratios_of_the_generated_performance_block() -> None:
    """Every speed ratio a commit body in topics.toml quotes is one the README's checked block gives."""
    from scripts.patchset.fragments import load_sources

    block = read_section(README.read_text(), "performance")
    quoted = {(t.id, r) for t in load_sources().topics for r in re.findall(r"\d+\.\d+(?:-\d+\.\d+)?x", t.body)}
    assert quoted, "no ratio quoted: drop this test or the figures"
    assert not [(topic, ratio) for topic, ratio in quoted if ratio not in block]


def test_the_readmes_other_claims_from_docs_benchmarks_md_hold_there() -> None:
    """The introduction's "faster than numpy.cbrt" needs both numpy targets met, and the GPU section's "no figures yet"
    needs the report's GPU section to be the unmeasured one."""
    text, report = README.read_text(), BENCHMARKS.read_text()
    if "faster than `numpy.cbrt`" in text[:text.index("## Quick start")]:
        targets = parse_benchmarks(report).targets
        assert all(targets[f"{d} vs numpy.cbrt, 1 thread"].met for d in ("float32", "float64")), "README's introduction"
    unmeasured = "Not measured yet: no run on a GPU so far." in report
    assert ("No GPU figures have been measured yet" in text) == unmeasured, "README's GPU section"


def test_bad_input_table_matches_what_the_operator_raises_today() -> None:
    assert read_section(README.read_text(), "bad-inputs") == bad_input_table(), "run `python -m scripts.measure.readme_tables`"


def test_accuracy_table_has_a_row_per_dtype_and_implementation_of_its_command() -> None:
    command = next(line for line in README.read_text().splitlines() if line.startswith("`python -m scripts.measure.accuracy"))
    assert all(f'"{c}"' in command or f" {c} " in command for c in README_CANDIDATES), command
    dtypes = ("float16", "bfloat16", "float32", "float64")
    assert list(accuracy_rows()) == [(d, c) for d in dtypes for c in README_CANDIDATES]


@pytest.mark.slow
def test_every_half_and_bfloat16_torch_cbrt_row_is_what_the_sweep_gives_today() -> None:
    rows = accuracy_rows()
    for report in run(["float16", "bfloat16"], ("torch.cbrt",), workers=2, float64_count=0, limit=None):
        assert rows[(report.dtype.removeprefix("torch."), report.candidate)] == row_of(report)


def test_the_other_rows_name_the_machine_and_library_versions_that_measured_them() -> None:
    """numpy's cube root and torch.pow take a different SIMD path on each CPU: their rows hold on the machine named
    above the table, with the versions named there, and are never asserted here."""
    (line,) = [line for line in read_section(README.read_text(), "accuracy").splitlines() if line.startswith("Measured")]
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

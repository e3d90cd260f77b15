"""The float32 candidates of the frontier (scripts/measure/cbrt_candidates.cpp) and its report.

The correctly rounded candidate is checked the way a shipped kernel would be: all 2^32 inputs through its vector and
scalar paths scored exactly, its rare exact-path lanes and the special classes bit for bit against the independent
bisection reference, every CPU build of this machine against the others. The report's deterministic figures (the
misrounded counts) are checked against docs/cbrt.md's exhaustive sweep."""

from __future__ import annotations

import math
import re

import pytest
import torch

from scripts.layout import REPO_ROOT
from scripts.measure import bench, exact_float32, frontier
from scripts.measure.candidates import CANDIDATES, load, runnable_capabilities
from scripts.measure.readme_tables import read_section, replace_section

PICKED = frontier.picked_capability(runnable_capabilities())
PERTURBATION = 2.0**-17
# The error bound of docs/CBRT_KERNEL.md ("Why the cheap test is sufficient"), in units of the correction.
CORRECTION_ERROR_BOUND = 2.0**-18.7
SPECIALS = [0.0, -0.0, math.inf, -math.inf, math.nan, 2.0**-149, -(2.0**-149), 2.0**-126, 2.0**-56, -(2.0**-56),
            2.0**-56 * (1 - 2.0**-24), 2.0**-56 * (1 + 2.0**-23), 3.4028234663852886e38, -3.4028234663852886e38,
            1.0, -8.0, 27.0, 2.0**-147 * 3]


def bit_patterns(start: int, count: int) -> torch.Tensor:
    return frontier.chunk(start, count)


def random_inputs(count: int, seed: int) -> torch.Tensor:
    bits = torch.randint(-(2**31), 2**31, (count,), dtype=torch.int64, generator=torch.Generator().manual_seed(seed))
    return bits.to(torch.int32).view(torch.float32)


def run(candidate: str, x: torch.Tensor, capability: str = PICKED, scalar: bool = False) -> torch.Tensor:
    out = torch.empty_like(x)
    load(capability).loop(candidate, scalar)(x, out)
    return out


def same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Bitwise equal, except that any NaN equals any NaN."""
    return bool(((a.view(torch.int32) == b.view(torch.int32)) | (a.isnan() & b.isnan())).all())


def exact_path_inputs(x: torch.Tensor) -> torch.Tensor:
    """The inputs of x whose lanes take the correctly rounded candidate's exact path."""
    mask = torch.empty(x.numel(), dtype=torch.uint8)
    load(PICKED).exact_path_mask(x, mask)
    return x[mask.bool()]


@pytest.mark.slow
def test_correctly_rounded_candidate_rounds_every_float32_correctly_on_its_vector_and_scalar_paths() -> None:
    misrounded = 0
    for start in range(0, 1 << 32, frontier.CHUNK):
        x = bit_patterns(start, frontier.CHUNK)
        score = exact_float32.score(x, [run("correctly_rounded", x), run("correctly_rounded", x, scalar=True)])
        misrounded += score.not_correctly_rounded
        assert score.max_ulp == 0.5, f"inputs from {start:#010x}: worst error {score.max_ulp} ULP"
    assert misrounded == 0


def test_exact_path_lanes_and_special_classes_match_the_bisection_reference() -> None:
    # Three binades of inputs (a period of the exponent) and their negatives, and tiny scaled ones.
    sample = torch.cat([bit_patterns(0x3F800000, 3 << 23), bit_patterns(0xBF800000, 3 << 23),
                        bit_patterns(0x1F000000, 1 << 22), random_inputs(1 << 20, seed=5)])
    rare = exact_path_inputs(sample)
    assert len(rare) > 1000, "too few exact-path lanes to prove anything"
    x = torch.cat([rare, torch.tensor(SPECIALS, dtype=torch.float32), random_inputs(20_000, seed=6)])
    expected = exact_float32.correctly_rounded(x)
    for scalar in (False, True):
        assert same_bits(run("correctly_rounded", x, scalar=scalar), expected)


def test_exact_path_runs_on_about_one_lane_in_tens_of_thousands() -> None:
    x = bit_patterns(0x3F800000, 3 << 23)
    count = load(PICKED).exact_path_count(x)
    assert 0 < count < x.numel() / 10_000


def test_correction_error_stays_below_the_documented_bound_and_the_perturbation() -> None:
    worst = max(load(PICKED).correction_error(bit_patterns(start, 3 << 23)) for start in (0x3F800000, 0x23800000,
                                                                                             0x7E000000))
    assert 0 < worst < CORRECTION_ERROR_BOUND < PERTURBATION


@pytest.mark.parametrize("candidate", CANDIDATES)
def test_every_build_and_the_scalar_path_give_the_same_bits(candidate: str) -> None:
    x = torch.cat([random_inputs(1 << 20, seed=7), bit_patterns(0x00000000, 1 << 16),
                   bit_patterns(0x23000000, 1 << 20), torch.tensor(SPECIALS, dtype=torch.float32)])
    reference = run(candidate, x)
    assert same_bits(run(candidate, x, scalar=True), reference)
    for capability in runnable_capabilities():
        assert same_bits(run(candidate, x, capability), reference), capability


def test_shipped_candidate_is_torch_cbrt() -> None:
    x = torch.cat([random_inputs(1 << 20, seed=8), torch.tensor(SPECIALS, dtype=torch.float32)])
    assert same_bits(run("shipped", x), torch.cbrt(x))


def test_candidates_reject_tensors_they_cannot_read() -> None:
    x = torch.ones(8)
    with pytest.raises(ValueError, match="contiguous float32"):
        load(PICKED).loop("shipped")(x[::2], torch.empty(4))
    with pytest.raises(ValueError, match="8 elements"):
        load(PICKED).loop("shipped")(x, torch.empty(4))


def section_rows(text: str) -> dict[str, list[str]]:
    body = read_section(text, frontier.SECTION)
    rows = [line.strip("|").split("|") for line in body.splitlines() if line.startswith("| `")]
    return {cells[0].strip().strip("`"): [c.strip() for c in cells] for cells in rows}


def test_documented_frontier_counts_match_the_exhaustive_measurements() -> None:
    rows = section_rows((REPO_ROOT / "docs" / "CBRT_KERNEL.md").read_text())
    assert rows["correctly_rounded"][2] == "0" and rows["correctly_rounded"][3] == "0.5"
    # the shipped kernel is torch.cbrt: its count is docs/cbrt.md's, which make test's sweep checks
    readme = (REPO_ROOT / "docs" / "cbrt.md").read_text()
    shipped = re.search(r"\| float32 \| torch\.cbrt \| 4,294,967,296 \| [\d.]+ \| ([\d,]+) \|", readme)
    assert shipped is not None and rows["shipped"][2] == shipped.group(1)
    counts = [int(rows[c][2].replace(",", "")) for c in CANDIDATES]
    assert counts == sorted(counts, reverse=True), "each ingredient should remove misrounded results"


def measurement(kernel: str, size: int, seconds: float) -> bench.Measurement:
    return bench.Measurement(kernel, "float32", size, 1, seconds, (seconds,) * 3, "batch")


def synthetic_results(correctly_rounded_speedup: float) -> list[bench.Measurement]:
    """numpy at 1 s per call; the shipped candidates 1.2x numpy; correctly_rounded at the given ratio to numpy."""
    results = []
    for size in frontier.SIZES:
        results += [measurement(frontier.NUMPY, size, 1.0), measurement(frontier.TORCH, size, 1 / 1.1)]
        for capability in ("DEFAULT", "AVX512"):
            for candidate in CANDIDATES:
                ratio = correctly_rounded_speedup if candidate == "correctly_rounded" else 1.2
                results.append(measurement(frontier.kernel_name(candidate, capability), size, 1 / ratio))
    return results


@pytest.mark.parametrize(("speedup", "met"), [(0.8, "NO"), (1.15, "yes")])
def test_targets_say_whether_the_correctly_rounded_candidate_meets_them(speedup: float, met: str) -> None:
    rows = frontier.target_rows(synthetic_results(speedup), ["DEFAULT", "AVX512"], "AVX512")
    in_cache = next(r for r in rows if "in cache" in r and r.startswith("| `correctly_rounded`"))
    assert in_cache.endswith(f"| {met} |") and f"{speedup:.2f}x" in in_cache
    versus_shipped = [r for r in rows if "÷ shipped" in r]
    assert len(versus_shipped) == 2 and all(r.endswith(f"| {'yes' if speedup / 1.2 >= 0.9 else 'NO'} |")
                                            for r in versus_shipped)


def test_section_is_written_between_its_markers_and_nowhere_else(tmp_path) -> None:  # type: ignore[no-untyped-def]
    accuracy = {c: frontier.Accuracy(10 ** (3 - i), 0.5 + 0.1 * (3 - i)) for i, c in enumerate(CANDIDATES)}
    body = frontier.section(synthetic_results(0.9), accuracy, frontier.ExactPath(1 << 17, 2.0**-20),
                            ["DEFAULT", "AVX512"], "AVX512", 1 << 32, "plot.png")
    document = tmp_path / "doc.md"
    document.write_text("before\n<!-- frontier:begin -->\nold\n<!-- frontier:end -->\nafter\n")
    document.write_text(replace_section(document.read_text(), frontier.SECTION, body))
    text = document.read_text()
    assert text.startswith("before\n") and text.endswith("<!-- frontier:end -->\nafter\n") and "old" not in text
    rows = section_rows(text)
    assert rows["correctly_rounded"][2] == "1" and "1 in 32,768 lanes" in text and "2^-20.0" in text

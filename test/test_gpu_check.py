"""The GPU check's verdicts: accuracy bounds, bitwise equality, the bandwidth target, and the report it fills."""

from __future__ import annotations

import json
import math
import sys

import pytest
import torch

import scripts.gpu.bitwise as bitwise
from scripts.gpu import bench, bounds, install_bundle, report


def accuracy_report(dtype: str, max_ulp: float, wrong: int = 0, over: int = 0) -> dict[str, object]:
    return {"dtype": f"torch.{dtype}", "candidate": "torch.cbrt (cuda)", "inputs": 65536, "max_ulp": max_ulp,
            "not_correctly_rounded": wrong, "over_one_ulp": over, "seconds": 1.0}


@pytest.mark.parametrize(
    ("report_", "missed"),
    [
        (accuracy_report("float32", 0.80, wrong=10), False),
        (accuracy_report("float32", 0.85, wrong=10), True),
        (accuracy_report("float64", math.inf, wrong=1, over=1), True),
        (accuracy_report("float64", math.nan, wrong=1), True),
        (accuracy_report("float16", 0.5), False),
        (accuracy_report("bfloat16", 0.5, wrong=1), True),
    ],
    ids=["float32 within", "float32 above 0.84", "inf error", "NaN error", "half rounded", "bfloat16 misrounded"],
)
def test_accuracy_bounds_catch_every_miss_nan_and_inf_included(report_: dict, missed: bool) -> None:
    assert bool(bounds.misses(report_)) == missed


def test_bitwise_counts_a_one_bit_difference_but_not_nan_payloads(monkeypatch: pytest.MonkeyPatch) -> None:
    def off_by_one_bit(x: torch.Tensor, device: str) -> torch.Tensor:
        result = torch.cbrt(x).clone()
        bits = result.view(torch.int32)
        bits[100] ^= 1
        nans = result.isnan().nonzero().flatten()
        bits[nans] |= 0x1234  # another NaN payload
        return result

    monkeypatch.setattr(bitwise, "on_device", off_by_one_bit)
    result = bitwise.compare(torch.float32, "fake", sample=4096, seed=0)
    assert result["different"] == 1 and len(result["examples"]) == 1


def test_every_half_and_bfloat16_input_is_compared() -> None:
    for dtype in (torch.half, torch.bfloat16):
        patterns = bitwise.inputs(dtype, sample=0, seed=0).view(torch.int16)
        assert len(set(patterns.tolist())) == 1 << 16


def bench_rows(ratio: float) -> list[dict[str, object]]:
    speeds = {"torch.cbrt": 90.0 * ratio, "copy (bandwidth)": 90.0, "copysign(pow(abs, 1/3))": 10.0}
    small = {"dtype": "float32", "exponent": 20, "gelem_per_s": speeds, "cbrt_over_copy": 0.1}
    return [small, {"dtype": "float32", "exponent": 28, "gelem_per_s": speeds, "cbrt_over_copy": ratio}]


@pytest.mark.parametrize(("ratio", "met"), [(0.95, True), (0.90, True), (0.89, False)])
def test_the_bandwidth_target_is_90_percent_of_copy_at_the_largest_float32_size(ratio: float, met: bool) -> None:
    assert bench.verdict(bench_rows(ratio))[0] is met
    assert bench.verdict([])[0] is False


def test_the_report_fills_only_its_own_section(tmp_path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "machine.txt").write_text("gpu: NVIDIA H200\n")
    (out / "summary.txt").write_text("gpu_check: all stages passed\n")
    result = {"device": "cuda", "device_name": "NVIDIA H200", "torch": "2.11.0", "rows": bench_rows(0.95)}
    (out / "bench.json").write_text(json.dumps(result))
    before = "# Benchmarks\n\nCPU tables.\n"
    once = report.filled(before, report.section(out))
    assert once.startswith(before) and "| float32 | 2^28 | 85.5 | 90.0 | 10.0 | 0.95 |" in once
    assert report.filled(once, report.section(out)) == once


def test_the_bundle_installs_only_what_the_interpreter_lacks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(install_bundle, "requirements", lambda: ["pytest==0.1", "no-such-package-here==1.0"])
    assert install_bundle.missing() == ["no-such-package-here"]


def test_a_missing_package_without_wheels_gets_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(install_bundle, "requirements", lambda: ["no-such-package-here==1.0"])
    monkeypatch.setattr(sys, "argv", ["install_bundle", "--wheelhouse", str(tmp_path)])
    assert install_bundle.main() == 1
    assert capsys.readouterr().err == (f"bundle: error: no-such-package-here missing and no wheels in {tmp_path}; run "
                                       "`make gpu-bundle` where pip has a network and carry build/wheelhouse along\n")


def test_a_cpu_benchmark_run_keeps_the_gpu_section(tmp_path) -> None:
    previous = tmp_path / "BENCHMARKS.md"
    previous.write_text(f"# old CPU tables\n\n{report.BEGIN}\n{report.HEADING}\n\n- float32: 0 of 4 differ\n{report.END}\n")
    kept = report.carried_over("# new CPU tables\n", previous)
    assert kept.startswith("# new CPU tables\n") and "old CPU" not in kept
    assert "- float32: 0 of 4 differ\n" in kept and kept.count(report.BEGIN) == 1


def test_a_first_cpu_benchmark_run_says_the_gpu_is_not_measured(tmp_path) -> None:
    kept = report.carried_over("# CPU tables\n", tmp_path / "missing.md")
    assert report.BEGIN in kept and "Not measured yet" in kept

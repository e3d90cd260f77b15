"""The GPU check's verdicts: libdevice's accuracy bounds, compiled against eager bit for bit, the bandwidth target,
and the report it fills."""

from __future__ import annotations

import json
import math
import re
import sys
import tomllib
from pathlib import Path

import pytest
import torch

import scripts.gpu.bitwise as bitwise
from scripts.gpu import bench, bounds, install_bundle, report, stages


def accuracy_report(dtype: str, max_ulp: float, wrong: int = 0, over: int = 0) -> dict[str, object]:
    return {"dtype": f"torch.{dtype}", "candidate": "torch.cbrt (cuda)", "inputs": 65536, "max_ulp": max_ulp,
            "not_correctly_rounded": wrong, "over_one_ulp": over, "seconds": 1.0}


def test_the_bounds_are_libdevices_documented_ones_in_ulps_of_the_exact_root() -> None:
    # cbrtf and cbrt: 1 ULP from the correctly rounded result (CUDA C++ Programming Guide), which is within 0.5 ULP
    # of the exact root; half and bfloat16: computed in float, then rounded once (0.5 ULP of the narrow type) with
    # float's 1.5 ULPs scaled by 2^-13 (half) or 2^-16 (bfloat16).
    assert bounds.DOCUMENTED_ULP == 1.0
    assert bounds.MAX_ULP == {"float32": 1.5, "float64": 1.5, "float16": 0.5 + 1.5 * 2**-13,
                              "bfloat16": 0.5 + 1.5 * 2**-16}
    assert bounds.MAX_ULP["float16"] == 0.50018310546875 and bounds.MAX_ULP["bfloat16"] == 0.5000228881835938


def above(bound: float) -> float:
    return math.nextafter(bound, math.inf)


@pytest.mark.parametrize(
    ("report_", "missed"),
    [
        (accuracy_report("float32", 1.5, wrong=10, over=3), False),
        (accuracy_report("float32", above(1.5), wrong=10, over=3), True),
        (accuracy_report("float64", 1.5, wrong=1, over=1), False),
        (accuracy_report("float64", above(1.5), wrong=1, over=1), True),
        (accuracy_report("float64", math.inf, wrong=1, over=1), True),
        (accuracy_report("float64", math.nan, wrong=1), True),
        (accuracy_report("float16", 0.5 + 1.5 * 2**-13, wrong=20), False),
        (accuracy_report("float16", above(0.5 + 1.5 * 2**-13), wrong=20), True),
        (accuracy_report("bfloat16", 0.5 + 1.5 * 2**-16, wrong=3), False),
        (accuracy_report("bfloat16", above(0.5 + 1.5 * 2**-16), wrong=3), True),
        (accuracy_report("bfloat16", 0.5), False),
    ],
    ids=["float32 at 1.5", "float32 above", "float64 at 1.5", "float64 above", "inf error", "NaN error",
         "half at its bound", "half above", "bfloat16 at its bound", "bfloat16 above", "bfloat16 rounded"],
)
def test_accuracy_bounds_catch_every_miss_nan_and_inf_included(report_: dict, missed: bool) -> None:
    assert bool(bounds.misses(report_)) == missed


def flipped(x: torch.Tensor, device: str) -> tuple[torch.Tensor, str]:
    """A compiled result one bit off at element 100, with other NaN payloads, and code that lowers cbrt."""
    result = torch.cbrt(x).clone()
    bits = result.view(torch.int32)
    bits[100] ^= 1
    nans = result.isnan().nonzero().flatten()
    bits[nans] |= 0x1234  # another NaN payload
    return result, "tmp0 = libdevice.cbrt(tmp0)"


def test_bitwise_counts_a_one_bit_difference_but_not_nan_payloads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bitwise, "eager", lambda x, device: torch.cbrt(x))
    monkeypatch.setattr(bitwise, "compiled", flipped)
    result = bitwise.compare(torch.float32, "cuda", sample=4096, seed=0)
    assert result["different"] == 1 and len(result["examples"]) == 1 and result["lowered"]
    assert bitwise.failed(result)


@pytest.mark.parametrize(
    ("code", "device", "lowered"),
    [
        ("tmp1 = libdevice.cbrt(tmp0)", "cuda", True),
        ("auto tmp1 = tmp0.cbrt();", "cpu", True),
        ("auto tmp1 = at::vec::cbrt_detail::cbrt_scalar(tmp0);", "cpu", True),
        ("buf0 = torch.ops.aten.cbrt.default(arg0_1)", "cuda", False),  # a fallback to the eager kernel
        ("auto tmp1 = tmp0.cbrt(); buf1 = aten.cbrt(buf0)", "cpu", False),
        ("", "cuda", False),  # nothing compiled
    ],
)
def test_a_compiled_result_counts_only_when_the_code_lowers_cbrt(code: str, device: str, lowered: bool,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bitwise, "eager", lambda x, device: torch.cbrt(x))
    monkeypatch.setattr(bitwise, "compiled", lambda x, device: (torch.cbrt(x), code))
    result = bitwise.compare(torch.float64, device, sample=64, seed=0)
    assert result["different"] == 0 and result["lowered"] is lowered and bitwise.failed(result) is not lowered


def test_without_a_lowering_in_this_torch_the_stage_says_not_compared_and_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bitwise, "eager", lambda x, device: torch.cbrt(x))
    monkeypatch.setattr(bitwise, "compiled", lambda x, device: (torch.cbrt(x), "buf0 = aten.cbrt(arg0_1)"))
    monkeypatch.setattr(bitwise, "lowering_available", lambda: False)
    result = bitwise.compare(torch.float32, "cpu", sample=64, seed=0)
    assert not result["lowered"] and not bitwise.failed(result)
    assert "NOT COMPARED: this torch has no inductor lowering of cbrt" in bitwise.verdict(result, "cpu")
    monkeypatch.setattr(bitwise, "compiled", flipped)
    assert bitwise.failed(bitwise.compare(torch.float32, "cpu", sample=4096, seed=0))  # a difference still fails


def test_compiled_code_runs_with_eager_numerics(monkeypatch: pytest.MonkeyPatch) -> None:
    from torch._inductor import config

    monkeypatch.setenv("TRITON_LIBDEVICE_PATH", "")  # restored (unset, if it was) after the test
    monkeypatch.delenv("TRITON_LIBDEVICE_PATH")
    monkeypatch.setattr(bitwise, "toolkit_libdevice", lambda: "/cuda/nvvm/libdevice/libdevice.10.bc")
    with bitwise.eager_numerics("cuda") as settings:
        assert config.eager_numerics.disable_ftz is True and config.fx_graph_cache is False
        assert getattr(config.eager_numerics, "use_pytorch_libdevice", True) is True
    assert settings["eager_numerics.disable_ftz"] is True
    assert settings["TRITON_LIBDEVICE_PATH"] == "/cuda/nvvm/libdevice/libdevice.10.bc"
    assert config.eager_numerics.disable_ftz is False


def test_the_compiled_cpu_code_is_compared_for_real() -> None:
    """The rehearsal's counterpart end to end: inductor's C++ kernel against the CPU kernel, bit for bit."""
    result = bitwise.compare(torch.float64, "cpu", sample=1024, seed=0)
    assert result == {**result, "different": 0, "lowered": True, "lowering_available": True}, result
    assert result["settings"]["eager_numerics.disable_ftz"] is True  # what CUDA needs to match eager


def test_every_half_and_bfloat16_input_is_compared_with_the_special_classes() -> None:
    for dtype in (torch.half, torch.bfloat16):
        patterns = bitwise.inputs(dtype, sample=0, seed=0).view(torch.int16)
        assert len(set(patterns.tolist())) == 1 << 16
    wide = bitwise.inputs(torch.float32, sample=16, seed=0)
    tiny = torch.finfo(torch.float32).tiny
    assert ((wide.abs() < tiny) & (wide != 0)).sum() >= 4  # subnormals, both signs
    assert wide.isinf().sum() == 2 and wide.isnan().sum() == 2 and (wide == 0).sum() == 2


CHECK = Path(__file__).resolve().parent.parent / "scripts" / "gpu" / "check.sh"


def test_both_modes_compare_compiled_with_eager_and_check_the_bounds() -> None:
    lines = {device: stages.main_lines(device) for device in ("cuda", "cpu")}
    for device, found in lines.items():
        by_name = {line.split("\t")[0]: line.split("\t") for line in found}
        assert f"-m scripts.gpu.bitwise --device {device} " in by_name["cbrt-bitwise"][1]
        accuracy = by_name["cbrt-accuracy"][1]
        assert "-m scripts.measure.accuracy " in accuracy and '&& "$python" -m scripts.gpu.bounds "$out/accuracy.json"' in accuracy
        assert ("'torch.cbrt (cuda)'" in accuracy) == (device == "cuda")
        assert by_name["cbrt-bench"][2] == r" model [0-9.]* \(H200"  # the measured share beside the model's
    assert all(line.split("\t")[3] == "" for line in lines["cuda"])  # the counterpart's note: the rehearsal's only


def test_every_stack_with_a_cuda_kernel_declares_gpu_stages_for_both_modes_and_check_sh_names_none() -> None:
    declared = stages.declared_stages(stages.PR_TOML.read_text(), stages.stack_order(stages.TOPICS_TOML.read_text()))
    # a stack whose commits add no CUDA source has nothing to run on the GPU yet
    with_cuda = {topic["stack"] for topic in tomllib.loads(stages.TOPICS_TOML.read_text())["topic"]
                 if any(path.endswith((".cu", ".cuh")) for path in topic.get("files", []))}
    assert with_cuda and {stage.stack for stage in declared} == with_cuda
    assert all(stage.cpu is not None and stage.cpu_note for stage in declared)
    text = CHECK.read_text()
    assert "-m scripts.gpu.stages --device" in text and 'stage "$name" bash -c "$command"' in text
    assert not any(module in text for module in ("scripts.gpu.bitwise", "scripts.gpu.bench", "scripts.measure"))


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('name = "bench"\n', "needs a name and a cuda command"),
        ('name = "bench"\ncuda = "run"\ndevice = "cpu"\n', "unknown: ['device']"),
        ('name = "bench"\ncuda = "run\\tthis"\n', "holds a tab or a newline"),
    ],
    ids=["no cuda command", "unknown field", "a tab"],
)
def test_a_malformed_stage_is_refused_with_what_to_fix(table: str, message: str) -> None:
    with pytest.raises(stages.StageError, match=re.escape(message)):
        for stage in stages.declared_stages(f"[[stack.op.gpu_stage]]\n{table}", ["op"]):
            stage.line("cuda")


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


def test_the_report_states_the_comparison_and_the_bounds(tmp_path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "machine.txt").write_text("gpu: NVIDIA H200\n")
    (out / "summary.txt").write_text("gpu_check: all stages passed\n")
    compared = [{"dtype": "float32", "inputs": 4096, "different": 0, "lowered": True},
                {"dtype": "float16", "inputs": 65558, "different": 2, "lowered": False}]
    (out / "bitwise.json").write_text(json.dumps({"device": "cuda", "results": compared}))
    (out / "accuracy.json").write_text(json.dumps([accuracy_report("float32", 0.52, wrong=7)]))
    text = report.section(out)
    assert "- float32: 0 of 4,096 compiled CUDA results differ from eager's\n" in text
    assert "- float16: 2 of 65,558 compiled CUDA results differ from eager's (the compiled code did not lower cbrt)" in text
    assert "float32 1.5, float64 1.5, float16 0.500183, bfloat16 0.500023" in text
    assert "| float32 | torch.cbrt (cuda) | 65,536 | 0.52 | 7 | 0 |" in text


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

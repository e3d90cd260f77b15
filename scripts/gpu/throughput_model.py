"""What share of device-to-device copy bandwidth the CUDA cube root can reach on an H200, from SASS counts.

A kernel reads and writes each element once, as a copy does, so it runs at the copy's elements/s unless its
instructions take longer. Per SM and clock, an element costs the largest of: its instructions over the issue
rate (4 schedulers, one warp instruction each: 128 thread instructions), and each class's count over that
class's rate. SMs x clock over that cost is the compute-bound rate; the copy moves 2 x sizeof(dtype) bytes per
element at `copy_efficiency` x peak bandwidth. The prediction is the smaller rate over the copy's, at most 1.
Latency and occupancy are not modelled: the compute-bound rate is an upper bound.

    python -m scripts.gpu.throughput_model --write-doc   # docs/CUDA_KERNEL.md's tables from the committed counts
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

from scripts.gpu.sass_model import BYTES, CLASSES, load_counts
from scripts.layout import REPO_ROOT

TARGET = 0.95  # of copy bandwidth: libdevice, upstream's pattern, runs wherever it is predicted at least this
MODEL_ARCH = "sm_90"
CANDIDATES = ("portable", "libdevice")
DOC = REPO_ROOT / "docs" / "CUDA_KERNEL.md"
BEGIN, END = "<!-- throughput_model: begin -->", "<!-- throughput_model: end -->"


@dataclass(frozen=True)
class Machine:
    name: str
    sms: int
    clock_hz: float
    issue_per_clock: int  # thread instructions per SM per clock
    rates: dict[str, int] = field(default_factory=dict)  # class -> thread operations per SM per clock
    peak_bytes_per_s: float = 0.0
    copy_efficiency: float = 1.0  # the share of peak a device-to-device copy reaches

    @property
    def copy_bytes_per_s(self) -> float:
        return self.peak_bytes_per_s * self.copy_efficiency


# CUDA C++ Programming Guide, "Arithmetic Instructions" throughput table, compute capability 9.0 (per SM and
# clock): FP32 add/mul/fma 128, FP64 64, 32-bit integer add/multiply/shift/logic and compare/min/max 64,
# MUFU (rcp, rsqrt, lg2, ex2, sin, cos) 16, type conversions 16. H200 (GH100): 132 SMs, 1.98 GHz boost, HBM3e
# 4.8 TB/s peak (NVIDIA H200 datasheet). A device-to-device copy reaches about 90% of peak: an assumption the GPU
# check's throughput stage measures. Control (branch, sync, exit, uniform datapath) and memory instructions
# take issue slots only.
H200 = Machine(
    name="H200 (sm_90)",
    sms=132,
    clock_hz=1.98e9,
    issue_per_clock=128,
    rates={"fp32": 128, "fp64": 64, "int_logic": 64, "convert": 16, "mufu": 16},
    peak_bytes_per_s=4.8e12,
    copy_efficiency=0.9,
)


def cycles_per_element(counts: dict[str, float], machine: Machine = H200) -> float:
    """SM clocks per element: the busiest of the issue slots and the class pipes."""
    issue = sum(counts[name] for name in CLASSES) / machine.issue_per_clock
    pipes = (counts.get(name, 0.0) / rate for name, rate in machine.rates.items())
    return max(issue, *pipes)


def compute_bound_rate(counts: dict[str, float], machine: Machine = H200) -> float:
    return machine.sms * machine.clock_hz / cycles_per_element(counts, machine)


def copy_rate(dtype: str, machine: Machine = H200) -> float:
    return machine.copy_bytes_per_s / (2 * BYTES[dtype])


def headroom(counts: dict[str, float], dtype: str, machine: Machine = H200) -> float:
    """Compute-bound elements/s over the copy's: above 1, the kernel is bandwidth-bound."""
    return compute_bound_rate(counts, machine) / copy_rate(dtype, machine)


def predicted_fraction(counts: dict[str, float], dtype: str, machine: Machine = H200) -> float:
    return min(1.0, headroom(counts, dtype, machine))


def chosen_kernel(predictions: dict[str, float]) -> str:
    """libdevice (upstream's pattern: gpu_kernel over ::cbrt on the opmath value) unless it misses the target where
    the portable kernel reaches it (`predictions`: candidate -> fraction of copy bandwidth). At equal predictions
    libdevice wins: the portable kernel's own code would have to buy speed, and only a measurement can show that."""
    return "portable" if predictions["libdevice"] < TARGET <= predictions["portable"] else "libdevice"


def model_counts(measured: dict | None = None) -> dict[str, dict[str, dict[str, float]]]:
    return (measured or load_counts())["counts"][MODEL_ARCH]


def predictions(measured: dict | None = None) -> dict[str, dict[str, float]]:
    """dtype -> candidate -> predicted fraction of copy bandwidth on the H200."""
    counts = model_counts(measured)
    return {dtype: {k: predicted_fraction(counts[dtype][k], dtype) for k in CANDIDATES} for dtype in counts}


def prediction_of_shipped(dtype: str) -> tuple[str, float]:
    """The kernel CbrtKernel.cu runs for `dtype` (by the model's choice) and its predicted fraction."""
    by_candidate = predictions()[dtype]
    kernel = chosen_kernel(by_candidate)
    return kernel, by_candidate[kernel]


def counts_table(measured: dict) -> str:
    lines = [
        "| arch | dtype | kernel | total | " + " | ".join(CLASSES) + " |",
        "|---|---|---|---:|" + "---:|" * len(CLASSES),
    ]
    for arch, by_dtype in measured["counts"].items():
        for dtype, by_kernel in by_dtype.items():
            for kernel, counts in by_kernel.items():
                cells = " | ".join(f"{counts[name]:.2f}".rstrip("0").rstrip(".") for name in CLASSES)
                total = sum(counts[name] for name in CLASSES)
                lines.append(f"| {arch} | {dtype} | {kernel} | {total:.2f} | {cells} |")
    return "\n".join(lines)


def prediction_table(measured: dict, machine: Machine = H200) -> str:
    counts = model_counts(measured)
    lines = [
        "| dtype | bytes/element | copy Gelem/s | kernel | clocks/element/SM | compute-bound Gelem/s | "
        "compute / copy | predicted share of copy | in CbrtKernel.cu |",
        "|---|---:|---:|---|---:|---:|---:|---:|---|",
    ]
    chosen = {dtype: chosen_kernel(by_kernel) for dtype, by_kernel in predictions(measured).items()}
    for dtype, by_kernel in counts.items():
        for kernel in CANDIDATES:
            c = by_kernel[kernel]
            lines.append(
                f"| {dtype} | {2 * BYTES[dtype]} | {copy_rate(dtype, machine) / 1e9:.0f} | {kernel} | "
                f"{cycles_per_element(c, machine):.3f} | {compute_bound_rate(c, machine) / 1e9:.0f} | "
                f"{headroom(c, dtype, machine):.2f} | {predicted_fraction(c, dtype, machine):.2f} | "
                + ("yes" if chosen[dtype] == kernel else "no")
                + " |"
            )
    return "\n".join(lines)


def recorded_note(measured: dict) -> str:
    """A sentence per kernel whose counts are recorded data rather than measured by this run."""
    return "".join(f" The {kernel} rows are recorded: {source}." for kernel, source in measured.get("recorded", {}).items())


def generated_section(measured: dict) -> str:
    return (
        f"{BEGIN}\n<!-- generated by `python -m scripts.gpu.sass_model --write-doc`; do not edit -->\n\n"
        f"Counts: nvcc {measured['nvcc']}, instructions per element on the hot path.{recorded_note(measured)}\n\n"
        f"{counts_table(measured)}\n\n"
        f"Model: {H200.name}, {H200.sms} SMs at {H200.clock_hz / 1e9:.2f} GHz, copy at "
        f"{H200.copy_efficiency:.0%} of {H200.peak_bytes_per_s / 1e12:.1f} TB/s, target {TARGET:.0%}.\n\n"
        f"{prediction_table(measured)}\n{END}"
    )


def filled(doc: str, section: str) -> str:
    """`doc` with the text between the markers replaced by `section`."""
    start, end = doc.index(BEGIN), doc.index(END) + len(END)
    return doc[:start] + section + doc[end:]


def write_doc(measured: dict, doc: Path = DOC) -> None:
    doc.write_text(filled(doc.read_text(), generated_section(measured)))
    print(f"throughput_model: tables written to {doc.relative_to(REPO_ROOT)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write-doc", action="store_true", help="regenerate docs/CUDA_KERNEL.md's tables")
    args = parser.parse_args()
    measured = load_counts()
    if args.write_doc:
        write_doc(measured)
    else:
        print(prediction_table(measured))
    return 0


if __name__ == "__main__":
    sys.exit(main())

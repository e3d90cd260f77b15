"""Fill docs/BENCHMARKS.md's GPU section from a `scripts/gpu/check.sh OUT_DIR` run.

Reads OUT_DIR/machine.txt, summary.txt, bitwise.json, accuracy.json and bench.json; replaces what lies
between the section's markers, or appends the section when they are missing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from scripts.gpu.bench import markdown
from scripts.gpu.bounds import MAX_ULP
from scripts.layout import REPO_ROOT
from scripts.measure.accuracy import Report, markdown_table

BEGIN, END = "<!-- gpu:begin -->", "<!-- gpu:end -->"
BENCHMARKS = REPO_ROOT / "docs" / "BENCHMARKS.md"
HEADING = "## GPU (made by `bash scripts/gpu/check.sh OUT_DIR` and `python3 -m scripts.gpu.report OUT_DIR`)"


def read_json(path: Path) -> object | None:
    return json.loads(path.read_text()) if path.is_file() else None


def compared(r: dict) -> str:
    if not r.get("lowering_available", True):
        return " (not compared: this torch has no inductor lowering of cbrt, so the compiled code runs the eager kernel)"
    return "" if r.get("lowered", True) else " (the compiled code did not lower cbrt)"


def bitwise_lines(result: dict) -> str:
    device = "CUDA" if result["device"] == "cuda" else "CPU"
    return "".join(f"- {r['dtype']}: {r['different']:,} of {r['inputs']:,} compiled {device} results differ from "
                   f"eager's{compared(r)}\n" for r in result["results"])


def section(out: Path) -> str:
    parts = [HEADING, "", "```", (out / "machine.txt").read_text().strip(), "", (out / "summary.txt").read_text().strip(),
             "```", ""]
    bitwise, accuracy, bench = (read_json(out / n) for n in ("bitwise.json", "accuracy.json", "bench.json"))
    if bitwise:
        parts += ["torch.compile'd torch.cbrt against eager on the same device, bit for bit (NaN payloads aside; "
                  "on CUDA the compiled code is a Triton kernel calling libdevice.cbrt):", "", bitwise_lines(bitwise)]
    if accuracy:
        bound = ", ".join(f"{dtype} {ulp:.6g}" for dtype, ulp in MAX_ULP.items())
        parts += ["Accuracy of the CUDA kernel against the correctly rounded cube root (every float32, float16 and "
                  f"bfloat16 input; float64 sampled); libdevice's documented bounds, in ULPs of the exact root: {bound}:",
                  "", markdown_table([Report(**r) for r in accuracy])]
    if bench:
        parts += ["Throughput against a device-to-device copy (median of torch.utils.benchmark):", "", markdown(bench)]
    return "\n".join(parts).rstrip() + "\n"


def filled(text: str, body: str) -> str:
    block = f"{BEGIN}\n{body}{END}\n"
    if BEGIN in text and END in text:
        return text[: text.index(BEGIN)] + block + text[text.index(END) + len(END):].lstrip("\n")
    return text.rstrip("\n") + "\n\n" + block


NOT_MEASURED = f"""{HEADING}

Not measured yet: no run on a GPU so far. docs/cbrt.md's GPU section gives the two commands that fill
this section.
"""


def carried_over(new_report: str, previous: Path) -> str:
    """new_report (a CPU run of scripts.measure.bench) with the GPU section that `previous` holds, so a CPU
    benchmark run never drops GPU figures."""
    text = previous.read_text() if previous.is_file() else ""
    if BEGIN in text and END in text:
        body = text[text.index(BEGIN) + len(BEGIN):text.index(END)].lstrip("\n")
    else:
        body = NOT_MEASURED
    return filled(new_report, body)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--benchmarks", type=Path, default=BENCHMARKS)
    args = parser.parse_args()
    for needed in ("machine.txt", "summary.txt"):
        if not (args.out_dir / needed).is_file():
            print(f"report: error: {args.out_dir / needed} missing: run bash scripts/gpu/check.sh {args.out_dir} first",
                  file=sys.stderr)
            return 1
    args.benchmarks.write_text(filled(args.benchmarks.read_text(), section(args.out_dir)))
    print(f"report: GPU section of {args.benchmarks} filled from {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

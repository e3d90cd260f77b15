"""Check a `scripts.measure.accuracy --json` file against the documented bounds; exit 1 on any miss.

Half and bfloat16: every result correctly rounded. float32 and float64: at most 0.84 ULP. All: none over 1 ULP.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

CORRECTLY_ROUNDED = ("float16", "bfloat16")
MAX_ULP = 0.84


def misses(report: dict[str, object]) -> list[str]:
    dtype = str(report["dtype"]).removeprefix("torch.")
    found = []
    if report["over_one_ulp"] or not report["max_ulp"] <= 1:
        found.append(f"{report['over_one_ulp']:,} results over 1 ULP (max {report['max_ulp']:.3g})")
    if dtype in CORRECTLY_ROUNDED and report["not_correctly_rounded"]:
        found.append(f"{report['not_correctly_rounded']:,} results not correctly rounded")
    if dtype not in CORRECTLY_ROUNDED and not report["max_ulp"] <= MAX_ULP:
        found.append(f"max error {report['max_ulp']:.3g} ULP above the {MAX_ULP} bound")
    return [f"{dtype} {report['candidate']}: {m}" for m in found]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("reports", type=Path)
    reports = json.loads(parser.parse_args().reports.read_text())
    failed = [m for r in reports for m in misses(r)]
    for report in reports:
        print(f"bounds: {str(report['dtype']).removeprefix('torch.')} {report['candidate']}: "
              f"{report['inputs']:,} inputs, max {report['max_ulp']:.3g} ULP")
    for miss in failed:
        print(f"bounds: MISSED: {miss}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

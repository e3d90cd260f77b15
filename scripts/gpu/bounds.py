"""Check a `scripts.measure.accuracy --json` file against the CUDA kernel's documented bounds; exit 1 on any miss.

CbrtKernel.cu runs libdevice: cbrtf for float (and for half and bfloat16, computed in float and rounded once),
cbrt for double. The CUDA C++ Programming Guide (appendix "Mathematical Functions") gives both a maximum error
of 1 ULP, stated as the largest observed difference in ULPs between the function's result and the correctly
rounded result of its precision, from extensive but not exhaustive tests. The accuracy sweep measures the error
against the exact cube root instead, so each bound below is the documented one in that measure:

- float32, float64: 1 ULP from the correctly rounded result, itself within 0.5 ULP of the exact root: 1.5 ULP.
  (Where the correctly rounded result is a power of two above the exact root, one step up is two ULPs of the
  exact root's binade, which this bound does not allow: there it is stricter than the documented one.)
- float16, bfloat16: the float result r is within 1.5 float ULPs of the exact root e, and rounding it to the
  narrow type moves it by at most 0.5 of that type's ULP, so the result is within 0.5 + 1.5 * 2^-(23 - p) of
  the narrow type's ULPs of e, p its stored mantissa bits (10 for half, 7 for bfloat16): every cube root is
  normal in float and in the narrow type (the smallest, of the smallest subnormal input, is 2^-8 for half and
  about 2^-44 for bfloat16), where float's ULP is 2^-(23 - p) of the narrow type's. Rounding twice makes some
  results not the correctly rounded ones (a float result just past a midpoint), none further off than that.

NaN or infinity where the cube root is finite counts as an infinite error: a miss. The rehearsal (check.sh
--rehearse) holds the CPU kernel to these bounds, which it meets with room; its own are checked elsewhere.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

DOCUMENTED_ULP = 1.0  # cbrtf and cbrt, from the correctly rounded result (CUDA C++ Programming Guide)
CORRECTLY_ROUNDED = 0.5  # the correctly rounded result's own error, in ULPs of the exact root
FLOAT_MANTISSA_BITS = 23
NARROW_MANTISSA_BITS = {"float16": 10, "bfloat16": 7}  # computed in float, rounded once
WIDE = DOCUMENTED_ULP + CORRECTLY_ROUNDED
MAX_ULP = {
    "float32": WIDE,
    "float64": WIDE,
    **{dtype: CORRECTLY_ROUNDED + WIDE * 2.0 ** -(FLOAT_MANTISSA_BITS - p) for dtype, p in NARROW_MANTISSA_BITS.items()},
}


def misses(report: dict[str, object]) -> list[str]:
    dtype = str(report["dtype"]).removeprefix("torch.")
    bound = MAX_ULP[dtype]
    if report["max_ulp"] <= bound:  # False for NaN
        return []
    return [f"{dtype} {report['candidate']}: max error {report['max_ulp']:.6g} ULP above libdevice's bound of "
            f"{bound:.6g} ({report['not_correctly_rounded']:,} results not correctly rounded, "
            f"{report['over_one_ulp']:,} over 1 ULP)"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("reports", type=Path)
    reports = json.loads(parser.parse_args().reports.read_text())
    failed = [m for r in reports for m in misses(r)]
    for report in reports:
        dtype = str(report["dtype"]).removeprefix("torch.")
        print(f"bounds: {dtype} {report['candidate']}: {report['inputs']:,} inputs, max {report['max_ulp']:.6g} ULP "
              f"(bound {MAX_ULP[dtype]:.6g}), {report['not_correctly_rounded']:,} not correctly rounded")
    for miss in failed:
        print(f"bounds: MISSED: {miss}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

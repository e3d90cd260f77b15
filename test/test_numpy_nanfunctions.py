"""numpy's own tests of nanvar and nanstd (numpy/lib/tests/test_nanfunctions.py, from the numpy wheel) run through
torch._numpy.nanvar and torch._numpy.nanstd (test/numpy_nanfunctions_plugin.py): every test passes but those whose
failure is one of the listed things torch._numpy cannot express, each named by the test and its error."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import numpy as np

NUMPY_TESTS = Path(np.__file__).parent / "lib" / "tests" / "test_nanfunctions.py"
SELECTED = "nanvar or nanstd or MeanVarStd"

# (test, error): what torch._numpy cannot express, or where numpy's result is the less precise one; the test
# pattern matches the start of the test's name (its function, then its parameters)
CANNOT_EXPRESS: dict[tuple[str, str], str] = {
    (r".*", r"can't convert np.ndarray of type numpy\.(longdouble|clongdouble|ulonglong|object_)"):
        "numpy dtypes torch has no counterpart of: long double, complex long double, unsigned long long, object",
    (r".*", r"got an unexpected keyword argument 'correction'"):
        "numpy 2's correction= spelling of ddof (torch._numpy's var and std lack it too)",
    (r".*", r"got an unexpected keyword argument 'mean'"): "mean= (a precomputed mean)",
    (r"test_where", r"truth value of an array with more than one element is ambiguous"): "where=",
    (r"test_allnans|test_empty|test_ddof_too_big", r"DID NOT WARN|AssertionError"):
        "numpy's RuntimeWarning for a slice without degrees of freedom",
    (r"test_subclass", r".*"): "ndarray subclasses: torch._numpy returns its own ndarray",
    (r"test_dtype_error|test_out_dtype_error", r"TypeError not raised|AssertionError|has no attribute '_scalar_type'"):
        "refusing an integer or bool dtype= or out= (torch._numpy casts to it)",
    (r"test_dtype_from_dtype|test_dtype_from_char", r"data type .* not understood"):
        "numpy dtype objects and the character codes of dtypes torch lacks in dtype=",
    (r"test_nanfunc(_ddof)?\[nan(var|std)-1d-f\]", r"not almost equal to 7 decimals"):
        "numpy reduces float32 in float32, nanvar in float64: 7 decimals at 34 is below float32's spacing, and "
        "torch's result is the correctly rounded one",
}


def explanation(test: str, message: str) -> str | None:
    for (test_pattern, error_pattern), reason in CANNOT_EXPRESS.items():
        if re.match(rf"(?:{test_pattern})(?:\[|$)", test) and re.search(error_pattern, message):
            return reason
    return None


def test_numpys_nanvar_and_nanstd_tests_pass_through_torch_numpy_but_for_what_it_cannot_express(
        tmp_path: Path) -> None:
    report = tmp_path / "report.xml"
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent),
                                                               os.environ.get("PYTHONPATH", "")])}
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "numpy_nanfunctions_plugin", "-p",
                          "no:cacheprovider", "--rootdir", str(tmp_path), f"--junitxml={report}", "-k", SELECTED,
                          str(NUMPY_TESTS)], capture_output=True, text=True, env=environment, cwd=tmp_path,
                         timeout=600)
    assert report.is_file(), ran.stdout[-3000:] + ran.stderr[-3000:]
    passed, unexplained, reasons = 0, [], set()
    for case in ElementTree.parse(report).iter("testcase"):
        failure = case.find("failure")
        if failure is None:
            passed += case.find("skipped") is None
            continue
        reason = explanation(case.get("name", ""), failure.get("message", "") + (failure.text or "")[:2000])
        if reason is None:
            unexplained.append(f"{case.get('name')}: {failure.get('message', '')[:300]}")
        reasons.add(reason)
    assert not unexplained, "\n".join(unexplained)
    assert passed >= 100, ran.stdout[-2000:]

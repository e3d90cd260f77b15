"""The names of the tests an upstream suite runs for an operator, for checking that a Test Plan line selects some.

Imports torch (the overlay's venv): the OpInfo collections and the override list are those of the patched
torch.testing and torch.overrides, where each operator of the patch set is entered.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from scripts.patchset.native_ops import root_name
from scripts.upstream.suites import Suite

TEST_DEFINITION = re.compile(r"^\s*def (test_\w+)\(", re.MULTILINE)


@functools.cache
def opinfo_tests(suite: Suite) -> list[tuple[str, str]]:
    """(operator, `<test>_<formatted_name>_<device>`) for every OpInfo of the suite's collections: the operator is
    the OpInfo's name, or that of the aten operator its _refs entry stands for; the test and the dtype are left
    out."""
    import torch.testing._internal.common_methods_invocations as opinfos

    tests = []
    for collection in suite.opinfos:
        for info in eval(collection, vars(opinfos)):  # noqa: S307 - an expression of suites.py, not of any input
            tests.append((info.name.rsplit(".", 1)[-1], f"<test>_{info.formatted_name}_<device>"))
    return list(dict.fromkeys(tests))


@functools.cache
def override_tests() -> list[tuple[str, str]]:
    """(the function's root name, test_overrides.py's `test_<module>_<name>`) for each function and Tensor method it tests."""
    from torch.overrides import get_testing_overrides

    tests = []
    for function in get_testing_overrides():
        name = getattr(function, "__name__", None)
        if name is None:
            continue
        owner = getattr(function, "__qualname__", "").split(".")[0]
        module = "Tensor" if owner in ("Tensor", "TensorBase") else getattr(function, "__module__", None) or ""
        tests.append((root_name(name), f"test_{module.replace('.', '_')}_{name}"))  # op_ and __iop__ are op's
    return tests


def generated_tests(suite: Suite) -> list[tuple[str, str]]:
    """(operator, test name) of every test the suite generates per operator."""
    return [*(opinfo_tests(suite) if suite.opinfos else []), *(override_tests() if suite.overrides else [])]


def op_test_names(suite: Suite, op: str, added: Mapping[str, str]) -> list[str]:
    """The names of the tests `suite` runs for the operator `op` (a root name); `added` holds, per upstream path,
    the lines a commit adds there (testplan.added_by), whose `def test_...` are the tests it adds to a file."""
    names = [name for owner, name in generated_tests(suite) if owner == op]
    for path in suite.sources:
        if path == f"test/{suite.path}":
            names += [name for name in TEST_DEFINITION.findall(added.get(path, "")) if op in name]
    return names


def other_operators_test_names(suite: Suite, ops: tuple[str, ...]) -> list[str]:
    """The names of the tests `suite` generates for operators other than `ops`."""
    return [name for owner, name in generated_tests(suite) if owner not in ops]

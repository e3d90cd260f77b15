"""The names of the tests an upstream suite runs for an operator, for checking that a Test Plan line selects some.

Imports torch (the overlay's venv): the OpInfo collections and the override list are those of the patched
torch.testing and torch.overrides, where each operator of the patch set is entered.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from scripts.upstream.suites import Suite

TEST_DEFINITION = re.compile(r"^\s*def (test_\w+)\(", re.MULTILINE)


def opinfo_test_names(suite: Suite, op: str) -> list[str]:
    """`<test>_<formatted_name>` of every OpInfo of the suite's collections that is the operator's (its name, or
    the name of its _refs entry); the device and dtype the suite appends are left off."""
    import torch.testing._internal.common_methods_invocations as opinfos

    names = []
    for collection in suite.opinfos:
        for info in eval(collection, vars(opinfos)):  # noqa: S307 - an expression of suites.py, not of any input
            if info.name.rsplit(".", 1)[-1] == op:
                names.append(f"<test>_{info.formatted_name}")
    return list(dict.fromkeys(names))


def override_test_names(op: str) -> list[str]:
    """test_overrides.py's `test_<module>_<name>` for the operator's functions and Tensor methods."""
    from torch.overrides import get_testing_overrides

    names = []
    for function in get_testing_overrides():
        if getattr(function, "__name__", None) == op:
            owner = getattr(function, "__qualname__", "").split(".")[0]
            module = "Tensor" if owner in ("Tensor", "TensorBase") else function.__module__ or ""
            names.append(f"test_{module.replace('.', '_')}_{op}")
    return names


def op_test_names(suite: Suite, op: str, added: Mapping[str, str]) -> list[str]:
    """The names of the tests `suite` runs for the operator `op` (a root name); `added` holds, per upstream path,
    the lines a commit adds there (testplan.added_by), whose `def test_...` are the tests it adds to a file."""
    names = opinfo_test_names(suite, op) if suite.opinfos else []
    if suite.overrides:
        names += override_test_names(op)
    for path in suite.sources:
        if path == f"test/{suite.path}":
            names += [name for name in TEST_DEFINITION.findall(added.get(path, "")) if op in name]
    return names

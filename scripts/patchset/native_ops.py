"""The operators the patch set adds, read from its sources: every `- func:` a native_functions.yaml fragment adds.

No tool names an operator: the overlay's torchgen run, the upstream lane's test filters and the series checks all
take the operators from here, so a new operator is added by its sources alone (a `- func:` fragment, its kernel
files, its topic in topics.toml).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from scripts.patchset.fragments import Sources, load_sources

NATIVE_FUNCTIONS = "aten/src/ATen/native/native_functions.yaml"
FUNC_LINE = re.compile(r"^- func:\s*([A-Za-z0-9_]+)(?:\.([A-Za-z0-9_]+))?\s*\(")
# Names torchgen gives no Python binding (tools/autograd/gen_python_functions.py's SKIP_PYTHON_BINDINGS; the
# patterns of it that name derivative helpers, test/test_series.py checks they are torchgen's): such an operator
# is not public API, so test_doc, the docs listings, test_overrides and dynamo's trace rules never see it.
NO_PYTHON_BINDING = (re.compile(r".*_backward"), re.compile(r".*_forward"), re.compile(r".*_jvp"))


@dataclass(frozen=True)
class NativeOp:
    """One `- func:` entry: `op`, `op_`, `op.out`, ..."""

    base: str  # the operator name without its overload: "op_" of "op_", "op" of "op.out"
    overload: str  # "" or "out", ...
    topic: str  # the topic (commit) whose fragment adds it
    schema: str  # the full `- func:` value
    variants: tuple[str, ...] = ("function",)  # its `variants:` (torchgen's default: function)
    # Its kernels come from `dispatch:` or `structured_delegate:`; without either it is CompositeImplicitAutograd,
    # which the dispatcher decomposes (HasDecompTest lists it in neither expect file).
    has_kernels: bool = True

    @property
    def name(self) -> str:
        """As torchgen and the dispatcher spell it: `op.out`."""
        return f"{self.base}.{self.overload}" if self.overload else self.base

    @property
    def qualified(self) -> str:
        return f"aten::{self.name}"

    @property
    def inplace(self) -> bool:
        return is_inplace(self.base)

    @property
    def functional(self) -> bool:
        """Neither in-place nor out=: it writes none of its arguments (no `(a!)` in the schema)."""
        return not self.inplace and "!" not in self.schema

    @property
    def python_binding(self) -> bool:
        """Whether torchgen binds it in Python (torch.<name>, Tensor.<name>)."""
        return not any(pattern.fullmatch(self.base) for pattern in NO_PYTHON_BINDING)

    @property
    def root(self) -> str:
        """torchgen's root_name: the base name without the in-place `_` (what groups op, op_ and op.out)."""
        return root_name(self.base)


def is_inplace(base: str) -> bool:
    """As torchgen.model.BaseOperatorName.parse: a trailing `_` marks in-place, dunder methods aside."""
    if base.startswith("__") and base.endswith("__"):
        return base.startswith("__i")
    return base.endswith("_")


def root_name(base: str) -> str:
    if base.startswith("__") and base.endswith("__"):
        inner = base[2:-2]
        return inner[1:] if base.startswith("__i") else inner
    name = base[:-1] if base.endswith("_") else base
    return name.removesuffix("_functional")


def native_ops(sources: Sources | None = None, topics: Iterable[str] | None = None) -> tuple[NativeOp, ...]:
    """Every operator the fragments of native_functions.yaml add, in file order; only `topics`' when given."""
    sources = load_sources() if sources is None else sources
    wanted = None if topics is None else set(topics)
    ops: list[NativeOp] = []
    for fragment_file in sources.fragment_files:
        if fragment_file.upstream_path != NATIVE_FUNCTIONS:
            continue
        for fragment in fragment_file.fragments:
            if wanted is not None and fragment.topic not in wanted:
                continue
            for at, line in enumerate(fragment.text):
                match = FUNC_LINE.match(line)
                if match:
                    schema = line.split(":", 1)[1].strip()
                    following = fragment.text[at + 1 :]
                    ops.append(NativeOp(match.group(1), match.group(2) or "", fragment.topic, schema,
                                        entry_variants(following), entry_has_kernels(following)))
    return tuple(ops)


def entry_variants(following: Iterable[str]) -> tuple[str, ...]:
    """The `variants:` of the entry whose lines follow its `- func:` line."""
    value = entry_keys(following).get("variants", "")
    return tuple(v.strip() for v in value.split(",") if v.strip()) or ("function",)


def entry_keys(following: Iterable[str]) -> dict[str, str]:
    """The top-level keys of the entry whose lines follow its `- func:` line, with their values."""
    keys: dict[str, str] = {}
    for line in following:
        if line.startswith("- "):
            break
        if line.startswith("  ") and not line.startswith("   ") and ":" in line:
            key, _, value = line.strip().partition(":")
            keys[key] = value.split("#")[0].strip()
    return keys


def entry_has_kernels(following: Iterable[str]) -> bool:
    keys = entry_keys(following)
    return "dispatch" in keys or "structured_delegate" in keys


def root_names(ops: Iterable[NativeOp]) -> tuple[str, ...]:
    """The operators' root names (`op` for op, op_ and op.out), each once, in order."""
    return tuple(dict.fromkeys(op.root for op in ops))


def base_names(ops: Iterable[NativeOp]) -> tuple[str, ...]:
    """The operators' names without overload (`op`, `op_`), each once, in order."""
    return tuple(dict.fromkeys(op.base for op in ops))


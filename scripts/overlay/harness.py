"""The overlay's harnesses: for each upstream C++ file the wheel does not ship that fragments edit, the template
(scripts/overlay/templates) that compiles those fragments' added lines, whatever operators they name.

One harness per upstream file (a family of kernels: unary ops, sparse unary ops, ...), chosen by the fragment file's
upstream path; a fragment on a C++ file with no harness stops codegen with how to add one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from scripts.patchset.fragments import Fragment


@dataclass(frozen=True)
class Harness:
    """The overlay's stand-in for one upstream C++ file the wheel lacks: the added lines of that file's fragments,
    whatever operators they name, compile inside `template` (scripts/overlay/templates), which supplies the
    file-local macros they use. One harness per upstream file (family of kernels), never per operator."""

    template: str
    env: Callable[[Sequence[Fragment]], dict[str, list[str]]]
    subdir: str = "aten"  # the folder of the generated tree it is written to


def harness_env(fragments: Sequence[Fragment]) -> dict[str, list[str]]:
    """The fragments' lines by place: includes at the top, meta functions in at::meta, the rest in at::native.

    A meta function is the block from its TORCH_META_FUNC line to its closing brace, with the comment lines right
    above it and the blank lines right below; a fragment may hold meta functions and other lines together.
    """
    env: dict[str, list[str]] = {"includes": [], "meta_definitions": [], "native_definitions": []}
    for fragment in fragments:
        env["includes"] += [line for line in fragment.text if line.startswith("#include ")]
        body = [line for line in fragment.text if not line.startswith("#include ")]
        for is_meta, block in split_meta(body):
            env["meta_definitions" if is_meta else "native_definitions"] += block
    return env


def split_meta(lines: Sequence[str]) -> list[tuple[bool, list[str]]]:
    """`lines` as consecutive (is a meta function, lines) blocks."""
    blocks: list[tuple[bool, list[str]]] = []
    rest: list[str] = []
    at = 0
    while at < len(lines):
        if "TORCH_META_FUNC" not in lines[at]:
            rest.append(lines[at])
            at += 1
            continue
        comments = 0
        while comments < len(rest) and rest[len(rest) - 1 - comments].lstrip().startswith("//"):
            comments += 1
        before, meta = (rest[:-comments], rest[-comments:]) if comments else (rest, [])
        if before:
            blocks.append((False, before))
        depth, opened = 0, False
        while at < len(lines):
            depth += lines[at].count("{") - lines[at].count("}")
            opened = opened or "{" in lines[at]
            meta.append(lines[at])
            at += 1
            if opened and depth <= 0:
                break
        while at < len(lines) and not lines[at].strip():
            meta.append(lines[at])
            at += 1
        blocks.append((True, meta))
        rest = []
    if rest:
        blocks.append((False, rest))
    return blocks


def batch_rules_env(fragments: Sequence[Fragment]) -> dict[str, list[str]]:
    """The inserted lines of functorch's registration block (UNARY_POINTWISE_ALL(op); ...)."""
    return {"batch_rule_registrations": ["\n".join(fragment.text).rstrip("\n") for fragment in fragments]}


def binary_batch_rules_env(fragments: Sequence[Fragment]) -> dict[str, list[str]]:
    """BatchRulesBinaryOps.cpp's fragments by place: registrations (VMAP_SUPPORT...) in the FuncTorchBatched
    block, everything else (the batch rules) at namespace scope."""
    env: dict[str, list[str]] = {"batch_rule_definitions": [], "batch_rule_registrations": []}
    for fragment in fragments:
        text = "\n".join(fragment.text).rstrip("\n")
        registers = any(line.lstrip().startswith(("VMAP_SUPPORT", "POINTWISE_BOXED")) for line in fragment.text)
        env["batch_rule_registrations" if registers else "batch_rule_definitions"].append(text)
    return env


# Upstream file -> its harness. A fragment on another C++ file the wheel lacks stops the build (needs_harness).
HARNESSES: dict[str, Harness] = {
    "aten/src/ATen/native/UnaryOps.cpp": Harness("UnaryOpsOverlay.cpp", harness_env),
    "aten/src/ATen/native/BinaryOps.cpp": Harness("BinaryOpsOverlay.cpp", harness_env),
    "aten/src/ATen/native/ReduceOps.cpp": Harness("ReduceOpsOverlay.cpp", harness_env),
    "aten/src/ATen/native/sparse/SparseUnaryOps.cpp": Harness("SparseUnaryOpsOverlay.cpp", harness_env),
    "aten/src/ATen/native/sparse/SparseCsrTensorMath.cpp": Harness("SparseCsrTensorMathOverlay.cpp", harness_env),
    "aten/src/ATen/functorch/BatchRulesUnaryOps.cpp": Harness("BatchRulesOverlay.cpp", batch_rules_env, "functorch"),
    "aten/src/ATen/functorch/BatchRulesBinaryOps.cpp": Harness(
        "BatchRulesBinaryOpsOverlay.cpp", binary_batch_rules_env, "functorch"
    ),
    "aten/src/ATen/functorch/BatchRulesReduceOps.cpp": Harness(
        "BatchRulesReduceOpsOverlay.cpp", batch_rules_env, "functorch"
    ),
    "aten/src/ATen/functorch/BatchRulesDecompositions.cpp": Harness(
        "BatchRulesDecompositionsOverlay.cpp", batch_rules_env, "functorch"
    ),
}
COMPILED_SUFFIXES = (".cpp", ".cc", ".cxx", ".c", ".cu", ".mm")


def needs_harness(upstream_path: str) -> bool:
    """A translation unit of the library (not a test, not a build file) whose fragments the overlay must compile:
    the wheel ships no C++ sources, so every such fragment file needs a harness."""
    parts = upstream_path.split("/")
    return upstream_path.endswith(COMPILED_SUFFIXES) and "test" not in parts and parts[0] != "test"


class MissingHarness(SystemExit):
    """A fragment edits a C++ file the wheel lacks that no harness compiles."""


def harness_of(upstream_path: str, source: str) -> Harness:
    harness = HARNESSES.get(upstream_path)
    if harness is None:
        raise MissingHarness(
            f"overlay_codegen: {source} edits {upstream_path}, a C++ file the wheel does not ship, and the overlay "
            f"has no harness for it. Add one: a template in scripts/overlay/templates that supplies the file-local "
            f"macros and includes {upstream_path} gives its added lines (see UnaryOpsOverlay.cpp), and a row "
            f'\'"{upstream_path}": Harness("<template>", harness_env)\' in HARNESSES in scripts/overlay/harness.py.'
        )
    return harness

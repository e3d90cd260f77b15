"""A new native operator is added by its sources alone: no tool names an operator.

In a scratch copy of the sources, a throwaway unary operator `cube_plus_one` gets what an upstream author writes: its
`native_functions.yaml` entries (a structured out= kernel and the functional form), its stub in UnaryOps.h, its meta
function, structured impl and stub definition in UnaryOps.cpp, its CPU kernel file in native/cpu/, and a topic in
topics.toml. The tools, unchanged, must see it: the operator list, the overlay's torchgen run (schema, CPU and Meta
registrations, per-operator headers, Python bindings) and the harness that compiles the UnaryOps.cpp lines. A fragment
on a C++ file the overlay has no harness for stops codegen, naming the file and how to add one.
"""

from __future__ import annotations

import argparse
import shutil
import sysconfig
from pathlib import Path

import pytest

from scripts.layout import REPO_ROOT, SOURCE_FOLDERS, wheel_member_of
from scripts.patchset.fragments import apply_fragments_to_text, load_sources
from scripts.patchset.native_ops import NATIVE_FUNCTIONS, native_ops, root_names
from scripts.upstream.apply_checkout import default_branch
from scripts.upstream.suites import SUITES, stack_ops

pytest.importorskip("yaml")  # torchgen needs PyYAML
overlay_codegen = pytest.importorskip("scripts.overlay.codegen")
from scripts.overlay.harness import MissingHarness  # noqa: E402
from scripts.overlay.record import STATE_DIR_NAME  # noqa: E402

OP = "cube_plus_one"
TOPIC = f'''
[[topic]]
id = "{OP}"
stack = "{OP}"
subject = "[ATen] Add torch.{OP}"
body = \'\'\'
A throwaway operator of test/test_any_op.py: x * x * x + 1.
\'\'\'
tests = ["test_ops.py"]
files = ["aten/src/ATen/native/cpu/CubePlusOneKernel.cpp"]
'''
NATIVE_FUNCTIONS_FRAGMENT = f"""
[[fragment]]
topic = "{OP}"
where = "before"
anchor = '''
- func: square(Tensor self) -> Tensor
'''
text = '''
- func: {OP}(Tensor self) -> Tensor
  device_check: NoCheck   # TensorIterator
  structured_delegate: {OP}.out
  variants: function, method
  tags: pointwise

- func: {OP}.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  device_check: NoCheck   # TensorIterator
  structured: True
  structured_inherits: TensorIteratorBase
  dispatch:
    CPU: {OP}_out
  tags: pointwise

'''
"""
UNARY_OPS_CPP_FRAGMENT = f"""
[[fragment]]
topic = "{OP}"
where = "after"
anchor = '''
#include <ATen/ops/cbrt_native.h>
'''
text = '''
#include <ATen/ops/{OP}_native.h>
'''

[[fragment]]
topic = "{OP}"
where = "after"
anchor = '''
CREATE_UNARY_TORCH_IMPL_FUNC(cbrt_out, cbrt_stub)
'''
text = '''
TORCH_META_FUNC({OP}) (const Tensor& self) {{
  build_borrowing_unary_float_op(maybe_get_output(), self);
}}
CREATE_UNARY_TORCH_IMPL_FUNC({OP}_out, {OP}_stub)
DEFINE_DISPATCH({OP}_stub); // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)
'''
"""
UNARY_OPS_H_FRAGMENT = f"""
[[fragment]]
topic = "{OP}"
where = "after"
anchor = '''
DECLARE_DISPATCH(unary_fn, cbrt_stub)
'''
text = '''
DECLARE_DISPATCH(unary_fn, {OP}_stub)
'''
"""
KERNEL = f"""#define TORCH_ASSERT_NO_OPERATORS
#include <ATen/Dispatch.h>
#include <ATen/native/TensorIterator.h>
#include <ATen/native/UnaryOps.h>
#include <ATen/native/cpu/Loops.h>

namespace at::native {{
namespace {{

void {OP}_kernel(TensorIteratorBase& iter) {{
  AT_DISPATCH_FLOATING_TYPES(iter.common_dtype(), "{OP}_cpu", [&]() {{
    cpu_kernel(iter, [](scalar_t a) -> scalar_t {{ return a * a * a + scalar_t(1); }});
  }});
}}

}} // namespace

REGISTER_DISPATCH({OP}_stub, &{OP}_kernel)

}} // namespace at::native
"""
NATIVE = "aten_native/aten/src/ATen/native"


def append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


def copy_sources(scratch: Path) -> Path:
    for folder in SOURCE_FOLDERS:
        shutil.copytree(REPO_ROOT / folder, scratch / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(REPO_ROOT / "topics.toml", scratch / "topics.toml")
    return scratch


def add_the_operator(scratch: Path) -> None:
    append(scratch / "topics.toml", TOPIC)
    append(scratch / NATIVE / "native_functions.yaml.fragments.toml", NATIVE_FUNCTIONS_FRAGMENT)
    append(scratch / NATIVE / "UnaryOps.cpp.fragments.toml", UNARY_OPS_CPP_FRAGMENT)
    append(scratch / NATIVE / "UnaryOps.h.fragments.toml", UNARY_OPS_H_FRAGMENT)
    (scratch / NATIVE / "cpu" / "CubePlusOneKernel.cpp").write_text(KERNEL)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_sources(tmp_path_factory.mktemp("any-op"))
    add_the_operator(root)
    return root


def shipped(member: str) -> str:
    """The install's file as the wheel shipped it (the overlay keeps a pristine copy of what it patched)."""
    site = Path(sysconfig.get_paths()["purelib"])
    pristine = site / STATE_DIR_NAME / "pristine" / member
    return (pristine if pristine.is_file() else site / member).read_text()


def patched_yaml(scratch: Path, upstream_path: str, out: Path) -> Path:
    """The wheel's yaml with the scratch sources' fragments applied, as the overlay's venv patch would."""
    sources = load_sources(scratch)
    (fragment_file,) = [f for f in sources.fragment_files if f.upstream_path == upstream_path]
    ordered = tuple(f for t in sources.topics for f in fragment_file.fragments if f.topic == t.id)
    text, _ = apply_fragments_to_text(shipped(wheel_member_of(upstream_path)), ordered, upstream_path)
    out.write_text(text)
    return out


def test_the_operators_come_from_the_sources(scratch: Path) -> None:
    ops = native_ops(load_sources(scratch))
    assert [op.name for op in ops if op.root == OP] == [OP, f"{OP}.out"]
    assert root_names(ops) == (*root_names(native_ops()), OP)
    assert [op.name for op in native_ops(load_sources(scratch), [OP])] == [OP, f"{OP}.out"]


def test_the_upstream_lane_filters_on_the_operators_of_each_commits_stack(scratch: Path) -> None:
    """The new operator's topic opens a stack of its own: its filters, series, PR and branch hold it alone, and the
    existing stacks do not change."""
    sources, before = load_sources(scratch), load_sources()
    assert sources.stacks == (*before.stacks, OP)
    assert stack_ops(sources, OP) == (OP,)
    assert default_branch(sources, OP) == OP
    assert [t.id for t in sources.of_stack(OP).topics] == [OP]
    for stack in before.stacks:
        assert stack_ops(sources.of_stack(stack)) == stack_ops(before.of_stack(stack))
    first_with_op = next(t.id for t in sources.topics if stack_ops(sources, t.id))
    assert OP not in stack_ops(sources, first_with_op)
    test_ops = next(s for s in SUITES if s.path == "test_ops.py")
    assert test_ops.keyword(stack_ops(sources, OP)) == f"_{OP}_"


@pytest.fixture(scope="module")
def generated(scratch: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("any-op-gen")
    packaged = overlay_codegen.PACKAGED
    args = argparse.Namespace(
        out=work / "gen",
        native_functions=patched_yaml(scratch, NATIVE_FUNCTIONS, work / "native_functions.yaml"),
        tags=packaged / "ATen/native/tags.yaml",
        derivatives=patched_yaml(scratch, "tools/autograd/derivatives.yaml", work / "derivatives.yaml"),
        deprecated=packaged / "autograd/deprecated.yaml",
        torch_include=overlay_codegen.installed_torch_include(),
        ops=None,  # as `make overlay` runs it: every operator of the sources
        sources_root=scratch,
    )
    if args.torch_include is None:
        pytest.skip("torch/include not found")
    overlay_codegen.generate(args)
    return args.out


def test_torchgen_registers_the_new_operator(generated: Path) -> None:
    schema = (generated / "aten" / "RegisterSchema.cpp").read_text()
    assert f'"{OP}(Tensor self) -> Tensor"' in schema
    assert f'"{OP}.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"' in schema
    cpu = (generated / "aten" / "RegisterCPU.cpp").read_text()
    assert f'm.impl("{OP}.out"' in cpu and f'm.impl("{OP}"' in cpu
    assert f"at::meta::structured_{OP}" in (generated / "aten" / "RegisterMeta.cpp").read_text()
    for header in (f"{OP}.h", f"{OP}_native.h", f"{OP}_meta.h", f"{OP}_cpu_dispatch.h"):
        assert (generated / "include" / "ATen" / "ops" / header).is_file(), header
    assert f"static PyObject * THPVariable_{OP}(" in (generated / "python" / "python_torch_functions.cpp").read_text()
    assert f"THPVariable_{OP}" in (generated / "python" / "python_variable_methods.cpp").read_text()


def test_its_unary_ops_lines_compile_in_the_unary_ops_harness(generated: Path) -> None:
    harness = (generated / "aten" / "UnaryOpsOverlay.cpp").read_text()
    meta, native = harness.index("namespace at::meta {"), harness.index("namespace at::native {")
    assert harness.index(f"#include <ATen/ops/{OP}_native.h>") < meta
    assert meta < harness.index(f"TORCH_META_FUNC({OP})") < native
    assert native < harness.index(f"CREATE_UNARY_TORCH_IMPL_FUNC({OP}_out, {OP}_stub)")
    assert native < harness.index(f"DEFINE_DISPATCH({OP}_stub);")
    # The operators that were there before are still generated beside it (every stack's: the overlay builds all).
    # (a kernel's out= in RegisterCPU.cpp, a composite's, such as a Scalar overload's redispatch, in its own file)
    outs = [op.name for op in native_ops() if op.overload.endswith("out")]
    registrations = "".join((generated / "aten" / f"Register{key}.cpp").read_text()
                            for key in ("CPU", "CompositeExplicitAutograd"))
    assert outs and all(f'm.impl("{name}"' in registrations for name in outs), outs


def test_a_fragment_on_a_cpp_file_without_harness_stops_codegen_naming_it(scratch: Path, tmp_path: Path) -> None:
    other = copy_sources(tmp_path / "sources")
    add_the_operator(other)
    # PointwiseOps.cpp: a C++ file the wheel lacks and scripts/overlay/harness.py has no harness for.
    pointwise_ops = other / NATIVE / "PointwiseOps.cpp.fragments.toml"
    pointwise_ops.write_text(f"""
[[fragment]]
topic = "{OP}"
where = "after"
anchor = '''
DEFINE_DISPATCH(add_stub);
'''
text = '''
// nothing the overlay can compile without a harness
'''
""")
    out = overlay_codegen.Output(tmp_path / "gen", None, set(), {"CPU": [], "CUDA": [], "PYTHON": []})
    with pytest.raises(MissingHarness) as error:
        overlay_codegen.gen_harnesses(load_sources(other), out)
    message = str(error.value)
    assert "aten/src/ATen/native/PointwiseOps.cpp" in message and "PointwiseOps.cpp.fragments.toml" in message
    assert "scripts/overlay/templates" in message and "HARNESSES" in message


def test_no_tool_and_no_make_default_names_an_operator() -> None:
    """Stacks, branches, filters and PR prose come from topics.toml, the fragments and pr.toml: an operator's name in
    scripts/patchset, scripts/upstream or a Makefile line (such as a `BRANCH ?= <op>` default) would go stale with
    the next stack. A call of Python's builtin of the same name (`divmod(a, b)`) is not a name of the operator."""
    import builtins
    import re

    files = [*sorted((REPO_ROOT / "scripts").glob("patchset/*.py")), *sorted((REPO_ROOT / "scripts").glob("upstream/*.py"))]
    found = []
    for root in root_names(native_ops()):
        word = re.compile(rf"\b{re.escape(root)}\b")
        builtin_call = re.compile(rf"\b{re.escape(root)}\(") if hasattr(builtins, root) else None
        for path in [*files, REPO_ROOT / "Makefile"]:
            for number, line in enumerate(path.read_text().splitlines(), 1):
                code = builtin_call.sub("", line) if builtin_call else line
                if word.search(code) and not (path.name == "Makefile" and line.lstrip().startswith("#")):
                    found.append(f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)

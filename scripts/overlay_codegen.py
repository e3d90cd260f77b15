#!/usr/bin/env python3
"""Run the installed wheel's torchgen for a few new ATen operators only.

The output tree is what an in-tree PyTorch build would have generated for
those operators, laid out for an out-of-tree "overlay" library:

  include/   headers; must come FIRST on the include path.  New per-operator
             headers (ATen/ops/<op>*.h) plus regenerated aggregate headers
             (TensorBody.h, Functions.h, autograd's Functions.h, ...) whose
             installed copy lacks the new operators.  An aggregate header is
             only written when it differs from the installed one, and then it
             must be the installed one plus inserted lines (checked), so the
             wheel's torchgen and headers cannot silently disagree.
  aten/      dispatcher registrations, schema (TORCH_LIBRARY_FRAGMENT),
             at::_ops definitions, functionalization.
  autograd/  VariableType, ADInplaceOrView, TraceType and the Node classes.
  python/    CPython bindings (torch.<op>, Tensor.<op>) and the Python
             classes of the autograd Nodes.
  sources.cmake  the generated translation units, by group, for CMake.

Files are rewritten only when their content changes; files a previous run
generated that this run does not are deleted.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torchgen
import torchgen.gen as gen
from torchgen import dest
from torchgen.api import cpp
from torchgen.api.autograd import (
    DifferentiabilityInfo,
    NativeFunctionWithDifferentiabilityInfo,
    match_differentiability_info,
)
from torchgen.code_template import CodeTemplate
from torchgen.gen_functionalization_type import (
    gen_functionalization_definition,
    gen_functionalization_registration,
    gen_functionalization_view_inverse_declaration,
    gen_functionalization_view_meta_classes_decl,
)
from torchgen.gen_vmap_plumbing import gen_all_vmap_plumbing
from torchgen.model import (
    BackendIndex,
    DispatchKey,
    FunctionSchema,
    NativeFunction,
    NativeFunctionsGroup,
    NativeFunctionsViewGroup,
    is_cuda_dispatch_key,
)
from torchgen.model import (
    dispatch_keys as ALL_DISPATCH_KEYS,
)
from torchgen.packaged.autograd import gen_python_functions as gpf
from torchgen.packaged.autograd.gen_autograd_functions import (
    FUNCTION_DECLARATION,
    FUNCTION_DEFINITION,
    PY_FUNCTION_DEFINITION,
    PY_FUNCTION_PROPS_AND_GETTERS,
    get_infos_with_derivatives_list,
    process_function,
)
from torchgen.packaged.autograd.gen_inplace_or_view_type import (
    gen_inplace_or_view_type_env,
    use_derived,
)
from torchgen.packaged.autograd.gen_trace_type import MANUAL_TRACER, gen_trace_type_func
from torchgen.packaged.autograd.gen_variable_type import gen_variable_type_func
from torchgen.packaged.autograd.load_derivatives import load_derivatives
from torchgen.selective_build.selector import SelectiveBuilder
from torchgen.utils import FileManager, mapMaybe, Target

PACKAGED = Path(torchgen.__file__).resolve().parent / "packaged"
ATEN_TEMPLATES = PACKAGED / "ATen" / "templates"
AUTOGRAD_TEMPLATES = PACKAGED / "autograd" / "templates"
OVERLAY_TEMPLATES = Path(__file__).resolve().parent / "overlay" / "templates"
GENERATOR = "scripts/overlay_codegen.py"

# The wheel's build step wraps every installed header in this guard.
STABLE_GUARD_OPEN = "#if !defined(TORCH_STABLE_ONLY) && !defined(TORCH_TARGET_VERSION)\n"
STABLE_GUARD_CLOSE = (
    "\n#else\n"
    '#error "This file should not be included when either TORCH_STABLE_ONLY or '
    'TORCH_TARGET_VERSION is defined."\n'
    "#endif  // !defined(TORCH_STABLE_ONLY) && !defined(TORCH_TARGET_VERSION)\n"
)

# As torchgen.gen.main does for a CUDA (non-ROCm, non-XPU, non-MPS, non-MTIA) build.
IGNORED_KEYS = frozenset(
    {
        DispatchKey.MPS,
        DispatchKey.SparseMPS,
        DispatchKey.SparseCsrMPS,
        DispatchKey.XPU,
        DispatchKey.SparseXPU,
        DispatchKey.SparseCsrXPU,
        DispatchKey.NestedTensorXPU,
        DispatchKey.MTIA,
    }
)
FUNCTIONS_KEYS = frozenset(
    {
        DispatchKey.CPU,
        DispatchKey.CUDA,
        DispatchKey.CompositeImplicitAutograd,
        DispatchKey.CompositeImplicitAutogradNestedTensor,
        DispatchKey.CompositeExplicitAutograd,
        DispatchKey.CompositeExplicitAutogradNonFunctional,
        DispatchKey.Meta,
    }
)
SOURCE_GROUPS = ("CPU", "CUDA", "PYTHON")


class ShadowMismatch(RuntimeError):
    pass


class OverlayFileManager(FileManager):
    """FileManager that guards headers like the wheel does and shadows with care.

    When `installed_root` has a file at the same relative path, the generated
    file is a shadow: skipped if equal to it, and otherwise required to be it
    plus inserted lines.
    """

    def __init__(
        self,
        install_dir: Path,
        template_dir: Path,
        relpath: str,
        installed_root: Path | None,
        emitted: set[Path],
    ) -> None:
        super().__init__(install_dir=install_dir, template_dir=template_dir, dry_run=False)
        self.installed = installed_root / relpath if installed_root else None
        self.emitted = emitted

    def substitute_with_template(
        self, template_fn: str | Path, env_callable: Callable[[], str | dict[str, Any]]
    ) -> str:
        def env_with_comment() -> str | dict[str, Any]:
            env = env_callable()
            if isinstance(env, dict) and "generated_comment" not in env:
                env = {**env, "generated_comment": f"@generated by {GENERATOR} from {template_fn}"}
            return env

        return super().substitute_with_template(template_fn, env_with_comment)

    def _write_if_changed(self, filename: str | Path, contents: str) -> None:
        file = Path(filename)
        if file.suffix == ".h":
            contents = STABLE_GUARD_OPEN + contents + STABLE_GUARD_CLOSE
        installed = self.installed / file.relative_to(self.install_dir) if self.installed else None
        if installed is not None and installed.is_file():
            if not is_shadow_needed(contents, installed):
                return
        self.emitted.add(file)
        super()._write_if_changed(file, contents)


def significant_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "@generated" not in line]


def is_shadow_needed(generated: str, installed: Path) -> bool:
    """False when equal to the installed header; raises unless only lines were added."""
    new = significant_lines(generated)
    old = significant_lines(installed.read_text(encoding="utf-8"))
    if new == old:
        return False
    it = iter(new)
    missing = [line for line in old if not any(line == cand for cand in it)]
    if missing:
        raise ShadowMismatch(
            f"{installed}: regenerated header is not the installed one plus additions "
            f"(first missing line: {missing[0]!r}); torchgen and torch/include disagree"
        )
    return True


@dataclass
class Model:
    native_functions: list[NativeFunction]
    backend_indices: dict[DispatchKey, BackendIndex]
    grouped: list[NativeFunction | NativeFunctionsGroup]
    view_groups: list[NativeFunctionsViewGroup]

    @staticmethod
    def parse(native_yaml: Path, tags_yaml: Path) -> Model:
        parsed = gen.parse_native_yaml(str(native_yaml), str(tags_yaml), set(IGNORED_KEYS))
        fns = list(parsed.native_functions)
        views = [
            g
            for g in gen.get_grouped_by_view_native_functions(fns)
            if isinstance(g, NativeFunctionsViewGroup)
        ]
        return Model(fns, parsed.backend_indices, list(gen.get_grouped_native_functions(fns)), views)

    def restricted(self, ops: frozenset[str]) -> Model:
        def keep(x: NativeFunction | NativeFunctionsGroup | NativeFunctionsViewGroup) -> bool:
            return x.root_name in ops

        fns = [f for f in self.native_functions if keep(f)]
        missing = ops - {f.root_name for f in fns}
        if missing:
            raise SystemExit(f"operators not in native_functions.yaml: {sorted(missing)}")
        return Model(
            fns,
            self.backend_indices,
            [g for g in self.grouped if keep(g)],
            [g for g in self.view_groups if keep(g)],
        )


@dataclass
class Output:
    root: Path
    installed_include: Path | None
    emitted: set[Path]
    sources: dict[str, list[Path]]

    def fm(self, subdir: str, templates: Path, shadows: bool = False) -> OverlayFileManager:
        installed = self.installed_include if shadows else None
        relpath = subdir.removeprefix("include/").removeprefix("include")
        return OverlayFileManager(self.root / subdir, templates, relpath, installed, self.emitted)

    def add_source(self, group: str, fm: FileManager, name: str) -> None:
        self.sources[group].append(fm.install_dir / name)


def dispatch_keys(model: Model) -> list[DispatchKey]:
    return [k for k in ALL_DISPATCH_KEYS if k not in IGNORED_KEYS and k in model.backend_indices]


def merged_env(
    items: Iterable[Any], env_fn: Callable[[Any], dict[str, list[str]]], keys: Iterable[str]
) -> dict[str, list[str]]:
    env: dict[str, list[str]] = {k: [] for k in keys}
    for item in items:
        for k, v in env_fn(item).items():
            env.setdefault(k, []).extend(v)
    return env


# ---------------------------------------------------------------- headers


def gen_aggregate_headers(full: Model, out: Output) -> None:
    """Headers listing every operator: regenerated so they include ours."""
    aten = out.fm("include/ATen", ATEN_TEMPLATES, shadows=True)
    nop = FileManager(install_dir=out.root / "unused", template_dir=ATEN_TEMPLATES, dry_run=True)
    gen.gen_per_operator_headers(
        native_functions=full.native_functions,
        grouped_native_functions=full.grouped,
        static_dispatch_idx=[],
        selector=SelectiveBuilder.get_nop_selector(),
        backend_indices=full.backend_indices,
        cpu_fm=aten,
        device_fms={"cuda": aten},
        ops_fm=nop,
        functions_keys=set(FUNCTIONS_KEYS),
        dispatch_keys=dispatch_keys(full),
        rocm=False,
    )
    core = out.fm("include/ATen/core", ATEN_TEMPLATES, shadows=True)
    core.write("TensorBody.h", lambda: tensor_body_env(full.native_functions))
    aten.write(
        "RedispatchFunctions.h",
        lambda: {
            "function_redispatch_definitions": list(
                mapMaybe(gen.ComputeRedispatchFunction(), full.native_functions)
            )
        },
    )
    aten.write("VmapGeneratedPlumbing.h", lambda: gen_all_vmap_plumbing(full.native_functions))


def tensor_body_env(fns: Sequence[NativeFunction]) -> dict[str, list[str]]:
    def methods(target: Any) -> list[str]:
        return list(mapMaybe(gen.ComputeTensorMethod(target=target, static_dispatch_backend_indices=[]), fns))

    return {
        "tensor_method_declarations": methods(Target.DECLARATION),
        "tensor_method_definitions": methods(Target.DEFINITION),
    }


def gen_operator_headers(ours: Model, out: Output) -> None:
    """ATen/ops/<op>{,_ops,_native,_meta,_<key>_dispatch}.h for our operators."""
    nop = FileManager(install_dir=out.root / "unused", template_dir=ATEN_TEMPLATES, dry_run=True)
    gen.gen_per_operator_headers(
        native_functions=ours.native_functions,
        grouped_native_functions=ours.grouped,
        static_dispatch_idx=[],
        selector=SelectiveBuilder.get_nop_selector(),
        backend_indices=ours.backend_indices,
        cpu_fm=nop,
        device_fms={"cuda": nop},
        ops_fm=out.fm("include/ATen/ops", ATEN_TEMPLATES, shadows=True),
        functions_keys=set(FUNCTIONS_KEYS),
        dispatch_keys=dispatch_keys(ours),
        rocm=False,
    )


def gen_functionalization_headers(ours: Model, out: Output) -> None:
    """Not installed by the wheel, but included by the templates we compile."""
    aten = out.fm("include/ATen", ATEN_TEMPLATES, shadows=True)
    selector = SelectiveBuilder.get_nop_selector()
    aten.write(
        "FunctionalInverses.h",
        lambda: {
            "view_inverse_declarations": list(
                mapMaybe(
                    lambda g: gen_functionalization_view_inverse_declaration(selector, g),
                    ours.view_groups,
                )
            )
        },
    )
    aten.write(
        "ViewMetaClasses.h",
        lambda: {
            "view_meta_declarations": [
                d for g in ours.view_groups for d in gen_functionalization_view_meta_classes_decl(selector, g)
            ]
        },
    )


# ---------------------------------------------------------------- ATen sources


def registration_ops_headers(
    grouped: Sequence[NativeFunction | NativeFunctionsGroup], key: DispatchKey, index: BackendIndex
) -> list[str]:
    """As torchgen.gen.gen_source_files' operator_headers() for per-operator headers."""
    headers: set[str] = set()
    structured_keys = (DispatchKey.Meta, DispatchKey.CompositeExplicitAutogradNonFunctional)
    for g in grouped:
        registered = (
            index.has_kernel(g)
            or (isinstance(g, NativeFunctionsGroup) and any(index.has_kernel(f) for f in g.functions()))
            or (g.structured and key in structured_keys)
        )
        if not registered:
            continue
        headers.add(f"#include <ATen/ops/{g.root_name}_native.h>")
        if key == DispatchKey.CompositeExplicitAutogradNonFunctional:
            headers.add(f"#include <ATen/ops/{g.root_name}.h>")
        if key in FUNCTIONS_KEYS:
            headers.add(f"#include <ATen/ops/{g.root_name}_{str(key).lower()}_dispatch.h>")
    return sorted(headers)


def gen_dispatch_registrations(ours: Model, out: Output) -> None:
    for key in dispatch_keys(ours):
        gen_dispatch_registration(ours, out, key)


def gen_dispatch_registration(ours: Model, out: Output, key: DispatchKey) -> None:
    for g in ours.grouped:
        if isinstance(g, NativeFunctionsGroup) and g.out.ufunc_inner_loop:
            raise SystemExit(f"ufunc kernels are not supported by the overlay: {g.root_name}")
    fm = out.fm("aten", ATEN_TEMPLATES)
    index = ours.backend_indices[key]
    definitions = gen.get_native_function_definitions(
        fm=fm,
        grouped_native_functions=ours.grouped,
        dispatch_key=key,
        backend_idx=index,
        selector=SelectiveBuilder.get_nop_selector(),
        rocm=False,
        symint=True,
        skip_dispatcher_op_registration=False,
        gen_dispatch_helpers=key != DispatchKey.CompositeImplicitAutogradNestedTensor,
    )
    if not any(d.strip() for d in definitions):
        return
    name = f"Register{key}.cpp"
    fm.write_with_template(name, "RegisterDispatchKey.cpp", lambda: registration_env(ours, key, index, definitions))
    out.add_source("CUDA" if is_cuda_dispatch_key(key) else "CPU", fm, name)


def registration_env(
    ours: Model, key: DispatchKey, index: BackendIndex, definitions: list[str]
) -> dict[str, Any]:
    cuda_headers = (
        "#include <c10/cuda/CUDAGuard.h>\n#include <ATen/cuda/ATenCUDAGeneral.h>\n"
        "#include <ATen/cuda/CUDADevice.h>\n#include <ATen/cuda/CUDAContext.h>"
    )
    return {
        "extra_cuda_headers": cuda_headers if is_cuda_dispatch_key(key) else "",
        "external_backend_headers": "",
        "dispatch_headers": dest.gen_registration_headers(index, True, False),
        "ops_headers": registration_ops_headers(ours.grouped, key, index),
        "dispatch_helpers": (
            dest.gen_registration_helpers(index)
            if key != DispatchKey.CompositeImplicitAutogradNestedTensor
            else []
        ),
        "dispatch_definitions": definitions,
    }


def gen_schema_and_operators(ours: Model, out: Output) -> None:
    aten_regs, other_regs = gen.get_native_function_schema_registrations(
        native_functions=ours.native_functions, schema_selector=SelectiveBuilder.get_nop_selector()
    )
    schema = out.fm("aten", OVERLAY_TEMPLATES)
    schema.write("RegisterSchema.cpp", lambda: {"aten_schema_registrations": aten_regs, "schema_registrations": other_regs})
    out.add_source("CPU", schema, "RegisterSchema.cpp")

    ops = out.fm("aten", ATEN_TEMPLATES)
    ops.write(
        "Operators.cpp",
        lambda: {
            "operator_headers": sorted({f"#include <ATen/ops/{f.root_name}.h>" for f in ours.native_functions}),
            "definitions": [
                gen.ComputeOperators(Target.DEFINITION, static_dispatch_backend_indices=[])(f)
                for f in ours.native_functions
            ],
            "static_dispatch_extra_headers": [],
        },
    )
    out.add_source("CPU", ops, "Operators.cpp")


def functionalization_ops_headers(g: NativeFunction | NativeFunctionsGroup | NativeFunctionsViewGroup) -> list[str]:
    fns = list(g.functions()) if not isinstance(g, NativeFunction) else [g]
    return sorted(
        {f"#include <ATen/ops/{f.root_name}{suffix}.h>" for f in fns for suffix in ("_native", "_ops")}
    )


def gen_functionalization(ours: Model, out: Output) -> None:
    selector = SelectiveBuilder.get_nop_selector()
    cia = ours.backend_indices[DispatchKey.CompositeImplicitAutograd]
    grouped_names = {f.func.name for g in ours.grouped if isinstance(g, NativeFunctionsGroup) for f in g.functions()}
    viewed_names = {f.func.name for g in ours.view_groups for f in g.functions()}
    groups: list[NativeFunction | NativeFunctionsGroup | NativeFunctionsViewGroup] = [
        g for g in ours.grouped if isinstance(g, NativeFunctionsGroup)
    ]
    groups += ours.view_groups
    groups += [f for f in ours.native_functions if f.func.name not in grouped_names | viewed_names]

    def env(g: NativeFunction | NativeFunctionsGroup | NativeFunctionsViewGroup) -> dict[str, list[str]]:
        return {
            "ops_headers": functionalization_ops_headers(g),
            "func_definitions": gen_functionalization_definition(selector, g),
            "func_registrations": gen_functionalization_registration(selector, g, cia),
        }

    merged = merged_env(groups, env, ("ops_headers", "func_definitions", "func_registrations"))
    if not any(s.strip() for s in merged["func_registrations"]):
        return
    merged["ops_headers"] = sorted(set(merged["ops_headers"]))
    fm = out.fm("aten", ATEN_TEMPLATES)
    fm.write("RegisterFunctionalization.cpp", lambda: merged)
    out.add_source("CPU", fm, "RegisterFunctionalization.cpp")


# ---------------------------------------------------------------- autograd


@dataclass
class Autograd:
    infos: dict[FunctionSchema, dict[str, DifferentiabilityInfo]]
    ours: list[NativeFunctionWithDifferentiabilityInfo]

    @staticmethod
    def load(derivatives: Path, native_yaml: Path, tags_yaml: Path, full: Model, ours: Model) -> Autograd:
        infos, _ = load_derivatives(str(derivatives), str(native_yaml), str(tags_yaml))
        # As gen_autograd: matching every function also adds the derived infos
        # (e.g. _foreach_*) that the installed autograd Functions.h declares.
        by_name = sorted(full.native_functions, key=lambda f: cpp.name(f.func))
        matched = match_differentiability_info(by_name, infos)
        our_names = {f.func.name for f in ours.native_functions}
        return Autograd(infos, [fn for fn in matched if fn.func.func.name in our_names])

    def all_nodes(self) -> list[DifferentiabilityInfo]:
        return get_infos_with_derivatives_list(self.infos)

    def our_nodes(self) -> list[DifferentiabilityInfo]:
        names = {info.name for fn in self.ours if fn.info for info in fn.info.values()}
        return [info for info in self.all_nodes() if info.name in names]


def gen_autograd_nodes(ag: Autograd, out: Output) -> None:
    headers = out.fm("include/torch/csrc/autograd/generated", AUTOGRAD_TEMPLATES, shadows=True)
    headers.write(
        "Functions.h",
        lambda: {"autograd_function_declarations": [process_function(i, FUNCTION_DECLARATION) for i in ag.all_nodes()]},
    )
    nodes = ag.our_nodes()
    if not nodes:
        return
    fm = out.fm("autograd", AUTOGRAD_TEMPLATES)
    fm.write(
        "Functions.cpp",
        lambda: {"autograd_function_definitions": [process_function(i, FUNCTION_DEFINITION) for i in nodes]},
    )
    out.add_source("CPU", fm, "Functions.cpp")


def gen_variable_type(ag: Autograd, out: Output) -> None:
    fns = [fn for fn in ag.ours if use_derived(fn)]
    if not fns:
        return
    env = merged_env(fns, gen_variable_type_func, ())
    used_keys = sorted(k.removeprefix("wrapper_registrations_") for k in env if k.startswith("wrapper_registrations_"))
    template = variable_type_template(used_keys)
    fm = out.fm("autograd", AUTOGRAD_TEMPLATES)
    comment = f"@generated by {GENERATOR} from VariableType.cpp"
    fm.write_with_template(
        "VariableType.cpp", "VariableType.cpp", lambda: template.substitute({**env, "generated_comment": comment})
    )
    out.add_source("CPU", fm, "VariableType.cpp")


def variable_type_template(used_keys: Sequence[str]) -> CodeTemplate:
    """The two-stage template of gen_variable_type: one TORCH_LIBRARY_IMPL per autograd key."""
    stage1 = CodeTemplate.from_file(str(AUTOGRAD_TEMPLATES / "VariableType.cpp"))
    registrations = "\n\n".join(
        f"TORCH_LIBRARY_IMPL(aten, {'Autograd' if k == 'Default' else k}, m) {{\n${{wrapper_registrations_{k}}}\n}}"
        for k in used_keys
    )
    text = stage1.substitute(
        type_derived_method_definitions="\n\n".join(f"${{type_derived_method_definitions_{k}}}" for k in used_keys),
        wrapper_registrations=registrations,
        generated_comment="${generated_comment}",
    )
    return CodeTemplate(text)


def gen_inplace_or_view(ag: Autograd, out: Output) -> None:
    keys = ("ops_headers", "inplace_or_view_method_definitions", "inplace_or_view_wrapper_registrations")
    env = merged_env([fn for fn in ag.ours if use_derived(fn)], gen_inplace_or_view_type_env, keys)
    if not env["inplace_or_view_wrapper_registrations"]:
        return
    fm = out.fm("autograd", AUTOGRAD_TEMPLATES)
    fm.write("ADInplaceOrViewType.cpp", lambda: env)
    out.add_source("CPU", fm, "ADInplaceOrViewType.cpp")


def gen_trace_type(ours: Model, out: Output) -> None:
    keys = ("ops_headers", "trace_method_definitions", "trace_wrapper_registrations")
    fns = [f for f in ours.native_functions if cpp.name(f.func) not in MANUAL_TRACER]
    env = merged_env(fns, gen_trace_type_func, keys)
    if not env["trace_wrapper_registrations"]:
        return
    fm = out.fm("autograd", AUTOGRAD_TEMPLATES)
    fm.write("TraceType.cpp", lambda: env)
    out.add_source("CPU", fm, "TraceType.cpp")


# ---------------------------------------------------------------- Python


@contextlib.contextmanager
def bindings_via_arg_parser() -> Iterator[None]:
    """Bind no-argument methods through PythonArgParser, like those with arguments.

    The METH_NOARGS form calls torch::has_torch_function(PyObject*), which
    libtorch_python does not export; the parser path only needs exported
    symbols and honours __torch_function__ the same way.
    """
    saved = gpf.is_noarg
    gpf.is_noarg = lambda overloads: False
    try:
        yield
    finally:
        gpf.is_noarg = saved


def binding_pairs(
    full: Model, ours: Model, deprecated: Path, *, method: bool
) -> list[gpf.PythonSignatureNativeFunctionPair]:
    # deprecated.yaml refers to operators outside ours, so load against all.
    bound = [f for f in full.native_functions if gpf.should_generate_py_binding(f)]
    our_names = {f.func.name for f in ours.native_functions}
    pairs = gpf.load_signatures(bound, str(deprecated), method=method)
    return [p for p in pairs if p.function.func.name in our_names]


def bindings_env(
    pairs: Sequence[gpf.PythonSignatureNativeFunctionPair],
    pred: Callable[[NativeFunction], bool],
    module: str | None,
    method: bool,
) -> dict[str, list[str]]:
    env: dict[str, list[str]] = {"ops_headers": [], "py_forwards": [], "py_methods": [], "py_method_defs": []}
    grouped = gpf.group_filter_overloads(pairs, pred)
    with bindings_via_arg_parser():
        for name in sorted(grouped, key=str):
            overloads = grouped[name]
            impl = gpf.method_impl(name, module, overloads, method=method, symint=True)
            # torch::handle_torch_function is not exported; see overlay_python.h.
            env["py_methods"].append(impl.replace("handle_torch_function(", "overlay_handle_torch_function("))
            env["py_method_defs"].append(gpf.method_def(name, module, overloads, method=method))
            env["py_forwards"].extend(gpf.forward_decls(name, overloads, method=method))
            env["ops_headers"].append(f"#include <ATen/ops/{name.base}.h>")
    env["ops_headers"] = sorted(set(env["ops_headers"]))
    return env


def gen_python(full: Model, ours: Model, ag: Autograd, deprecated: Path, out: Output) -> None:
    for f in ours.native_functions:
        if f.python_module is not None:
            raise SystemExit(f"python_module {f.python_module!r} bindings are not supported: {f.func.name}")
    fm = out.fm("python", OVERLAY_TEMPLATES)
    functions = bindings_env(binding_pairs(full, ours, deprecated, method=False), gpf.is_py_torch_function, "torch", False)
    methods = bindings_env(binding_pairs(full, ours, deprecated, method=True), gpf.is_py_variable_method, None, True)
    fm.write("python_torch_functions.cpp", lambda: functions)
    fm.write("python_variable_methods.cpp", lambda: methods)
    nodes = ag.our_nodes()
    fm.write(
        "python_functions.cpp",
        lambda: {
            "py_function_initializers": [process_function(i, PY_FUNCTION_DEFINITION) for i in nodes],
            "py_function_props_and_getters": [process_function(i, PY_FUNCTION_PROPS_AND_GETTERS) for i in nodes],
        },
    )
    for name in ("python_torch_functions.cpp", "python_variable_methods.cpp", "python_functions.cpp"):
        out.add_source("PYTHON", fm, name)


# ---------------------------------------------------------------- manifest


def write_sources_cmake(out: Output) -> None:
    lines = ["# @generated by scripts/overlay_codegen.py"]
    for group in SOURCE_GROUPS:
        files = sorted(p.relative_to(out.root).as_posix() for p in out.sources[group])
        body = "".join(f'\n  "${{OVERLAY_GEN_DIR}}/{f}"' for f in files)
        lines.append(f"set(OVERLAY_GEN_{group}_SOURCES{body}\n)")
    manifest = out.root / "sources.cmake"
    text = "\n".join(lines) + "\n"
    if not manifest.is_file() or manifest.read_text(encoding="utf-8") != text:
        manifest.write_text(text, encoding="utf-8")
    out.emitted.add(manifest)


def remove_stale(out: Output) -> list[Path]:
    stale = [p for p in out.root.rglob("*") if p.is_file() and p not in out.emitted]
    for p in stale:
        p.unlink()
    for d in sorted((d for d in out.root.rglob("*") if d.is_dir()), key=lambda d: -len(d.parts)):
        if not any(d.iterdir()):
            d.rmdir()
    return stale


# ---------------------------------------------------------------- main


def installed_torch_include() -> Path | None:
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return None
    include = Path(next(iter(spec.submodule_search_locations))) / "include"
    return include if include.is_dir() else None


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, required=True, help="output directory (owned by this script)")
    p.add_argument("--native-functions", type=Path, default=PACKAGED / "ATen/native/native_functions.yaml")
    p.add_argument("--tags", type=Path, default=PACKAGED / "ATen/native/tags.yaml")
    p.add_argument("--derivatives", type=Path, default=PACKAGED / "autograd/derivatives.yaml")
    p.add_argument("--deprecated", type=Path, default=PACKAGED / "autograd/deprecated.yaml")
    p.add_argument("--torch-include", type=Path, default=installed_torch_include(),
                   help="installed torch/include, to shadow only changed aggregate headers")
    p.add_argument("--ops", nargs="+", default=["cbrt"], help="operator base names to generate")
    return p.parse_args(argv)


def generate(args: argparse.Namespace) -> Output:
    if args.torch_include is None:
        raise SystemExit("torch/include not found; pass --torch-include")
    out = Output(args.out.resolve(), args.torch_include.resolve(), set(), defaultdict(list))
    full = Model.parse(args.native_functions, args.tags)
    ours = full.restricted(frozenset(args.ops))
    ag = Autograd.load(args.derivatives, args.native_functions, args.tags, full, ours)
    gen_aggregate_headers(full, out)
    gen_operator_headers(ours, out)
    gen_functionalization_headers(ours, out)
    gen_dispatch_registrations(ours, out)
    gen_schema_and_operators(ours, out)
    gen_functionalization(ours, out)
    gen_autograd_nodes(ag, out)
    gen_variable_type(ag, out)
    gen_inplace_or_view(ag, out)
    gen_trace_type(ours, out)
    gen_python(full, ours, ag, args.deprecated, out)
    write_sources_cmake(out)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    start = time.monotonic()
    try:
        out = generate(args)
    except ShadowMismatch as e:
        print(f"overlay_codegen: {e}", file=sys.stderr)
        return 1
    stale = remove_stale(out)
    print(
        f"overlay_codegen: {len(out.emitted)} files in {out.root}"
        + (f", {len(stale)} stale removed" if stale else "")
        + f" ({time.monotonic() - start:.1f}s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

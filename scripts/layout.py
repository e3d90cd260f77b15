"""Where things live: the source folders of this repo and the wheel-to-upstream path table."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

# Folders whose contents land in PyTorch, each mirroring upstream paths below it.
SOURCE_FOLDERS: tuple[str, ...] = (
    "aten_native",
    "derivatives",
    "frontend",
    "docs/upstream",
    "test/upstream",
)

FRAGMENT_SUFFIX = ".fragments.toml"


@dataclass(frozen=True)
class PathRule:
    """Files under `wheel_prefix` in the wheel are upstream files under `upstream_prefix`."""

    wheel_prefix: str
    upstream_prefix: str
    suffixes: tuple[str, ...]
    excluded_prefixes: tuple[str, ...] = ()

    def upstream_path(self, wheel_member: str) -> str | None:
        if not wheel_member.startswith(self.wheel_prefix):
            return None
        if not wheel_member.endswith(self.suffixes):
            return None
        if wheel_member.startswith(self.excluded_prefixes):
            return None
        return self.upstream_prefix + wheel_member[len(self.wheel_prefix) :]

    def wheel_member(self, upstream_path: str) -> str | None:
        if not upstream_path.startswith(self.upstream_prefix):
            return None
        member = self.wheel_prefix + upstream_path[len(self.upstream_prefix) :]
        return member if self.upstream_path(member) == upstream_path else None


# The one table of how the torch wheel maps onto the upstream source tree.
WHEEL_PATH_RULES: tuple[PathRule, ...] = (
    PathRule("torchgen/packaged/ATen/native/", "aten/src/ATen/native/", (".yaml",)),
    # tools/autograd as the build packages it: derivatives.yaml and the autograd codegen itself (gen_variable_type.py
    # holds the set of operators whose gradient is implemented for complex inputs).
    PathRule("torchgen/packaged/autograd/", "tools/autograd/", (".yaml", ".py")),
    PathRule("torch/include/ATen/", "aten/src/ATen/", (".h", ".cuh", ".hpp")),
    PathRule("torch/include/c10/", "c10/", (".h", ".cuh", ".hpp")),
    # The header every Inductor C++ kernel starts from.
    PathRule("torch/include/torch/csrc/inductor/", "torch/csrc/inductor/", (".h",)),
    PathRule("torch/", "torch/", (".py", ".pyi"), excluded_prefixes=("torch/include/",)),
)


# Files the wheel ships under those prefixes that PyTorch's source tree does not have: the build
# generates them (torchgen from native_functions.yaml, tools/pyi, tools/generate_torch_version.py)
# or configures them from a `.in` template with this build's settings (CUDA version, BLAS, git
# hash). They have no upstream text to diff against, so they are no upstream path.
TORCHGEN_DISPATCH_KEYS = (
    "CPU",
    "CUDA",
    "Meta",
    "CompositeExplicitAutograd",
    "CompositeExplicitAutogradNonFunctional",
    "CompositeImplicitAutograd",
    "CompositeImplicitAutogradNestedTensor",
)
INSTALL_GENERATED: frozenset[str] = frozenset(
    {
        # torchgen (aten/src/ATen/templates/*.h), written into build/aten/src/ATen
        *(
            f"aten/src/ATen/{name}.h"
            for name in (
                "Functions",
                "NativeFunctions",
                "NativeMetaFunctions",
                "MethodOperators",
                "Operators",
                "RedispatchFunctions",
                "RegistrationDeclarations",
                "VmapGeneratedPlumbing",
                *(f"{key}Functions" for key in TORCHGEN_DISPATCH_KEYS),
                *(f"{key}Functions_inl" for key in TORCHGEN_DISPATCH_KEYS),
            )
        ),
        "aten/src/ATen/core/TensorBody.h",
        "aten/src/ATen/core/aten_interned_strings.h",
        "aten/src/ATen/core/enum_tag.h",
        # configured from Config.h.in, CUDAConfig.h.in, cuda_cmake_macros.h.in
        "aten/src/ATen/Config.h",
        "aten/src/ATen/cuda/CUDAConfig.h",
        "c10/cuda/impl/cuda_cmake_macros.h",
        # version, CUDA version and git hash of this build
        "torch/version.py",
        # tools/pyi from *.pyi.in templates and native_functions.yaml
        "torch/_C/__init__.pyi",
        "torch/_C/_VariableFunctions.pyi",
        "torch/_C/_nn.pyi",
        "torch/_VF.pyi",
        "torch/return_types.pyi",
        "torch/nn/functional.pyi",
        "torch/utils/data/datapipes/datapipe.pyi",
        # tools/autograd's annotated_fn_args.py.in; the CUPTI stubs from the build's cupti_activity.h
        "torch/testing/_internal/generated/__init__.py",
        "torch/testing/_internal/generated/annotated_fn_args.py",
        "torch/profiler/_cupti/_cupti_stubs.py",
    }
)
# torchgen's per-operator headers; the two hand-written ones beside them are source.
TORCHGEN_OPS_PREFIX = "aten/src/ATen/ops/"
OPS_SOURCE_HEADERS = frozenset({"aten/src/ATen/ops/from_blob.h", "aten/src/ATen/ops/tensor.h"})


def is_install_generated(upstream_path: str) -> bool:
    """True for a file the build writes into the wheel that PyTorch's source tree does not have."""
    if upstream_path.startswith(TORCHGEN_OPS_PREFIX):
        return upstream_path not in OPS_SOURCE_HEADERS
    return upstream_path in INSTALL_GENERATED


def upstream_path_of(wheel_member: str) -> str | None:
    for rule in WHEEL_PATH_RULES:
        path = rule.upstream_path(wheel_member)
        if path is not None:
            return None if is_install_generated(path) else path
    return None


def wheel_member_of(upstream_path: str) -> str | None:
    if is_install_generated(upstream_path):
        return None
    for rule in WHEEL_PATH_RULES:
        member = rule.wheel_member(upstream_path)
        if member is not None:
            return member
    return None

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
    PathRule("torchgen/packaged/autograd/", "tools/autograd/", (".yaml",)),
    PathRule("torch/include/ATen/", "aten/src/ATen/", (".h", ".cuh", ".hpp")),
    PathRule("torch/include/c10/", "c10/", (".h", ".cuh", ".hpp")),
    PathRule("torch/", "torch/", (".py", ".pyi"), excluded_prefixes=("torch/include/",)),
)


def upstream_path_of(wheel_member: str) -> str | None:
    for rule in WHEEL_PATH_RULES:
        path = rule.upstream_path(wheel_member)
        if path is not None:
            return path
    return None


def wheel_member_of(upstream_path: str) -> str | None:
    for rule in WHEEL_PATH_RULES:
        member = rule.wheel_member(upstream_path)
        if member is not None:
            return member
    return None

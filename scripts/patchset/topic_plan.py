"""What applying one topic, or the whole series, does to an upstream-shaped tree, computed before anything is written."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from scripts.patchset.fragments import FragmentError, FragmentFile, Sources, apply_fragments_to_text


@dataclass
class TopicPlan:
    topic: str
    writes: dict[str, bytes] = field(default_factory=dict)
    absent_targets: list[str] = field(default_factory=list)

    @property
    def is_empty(self) -> bool:
        return not self.writes


@dataclass(frozen=True)
class TreeView:
    """`tree` as it would be after the earlier topics' writes (`pending`), without touching it."""

    tree: Path
    pending: Mapping[str, bytes] = field(default_factory=dict)

    def read(self, path: str) -> bytes | None:
        if path in self.pending:
            return self.pending[path]
        file = self.tree / path
        return file.read_bytes() if file.is_file() else None

    def target_of(self, fragment_file: FragmentFile) -> str | None:
        """The first of the upstream path and its alternatives that exists."""
        candidates = (fragment_file.upstream_path, *fragment_file.alternatives)
        return next((c for c in candidates if c in self.pending or (self.tree / c).is_file()), None)


def plan_topic(
    tree: Path, sources: Sources, topic: str, missing_ok: bool, pending: Mapping[str, bytes] | None = None
) -> TopicPlan:
    """Check every anchor of `topic` against `tree` (plus `pending` writes) and compute the new file contents.

    `missing_ok` skips fragments whose target file is absent (the wheel-derived base
    lacks docs, test data and build files); a real checkout must have them all.
    """
    view = TreeView(tree, pending or {})
    plan = TopicPlan(topic)
    for new_file in sources.new_files_of(topic):
        content = new_file.source.read_bytes()
        existing = view.read(new_file.upstream_path)
        if existing is not None and existing != content:
            raise FragmentError(
                f"{new_file.upstream_path} already exists in {tree} with other content; "
                "this patch set adds it as a new file"
            )
        if existing is None:
            plan.writes[new_file.upstream_path] = content
    for fragment_file, fragments in sources.fragments_of(topic):
        target = view.target_of(fragment_file)
        if target is None:
            if not missing_ok:
                names = " or ".join((fragment_file.upstream_path, *fragment_file.alternatives))
                raise FragmentError(f"{names} not found in {tree}; {fragments[0].label} edits it")
            plan.absent_targets.append(fragment_file.upstream_path)
            continue
        current = view.read(target) or b""
        text, changed = apply_fragments_to_text(current.decode(), fragments, target)
        if changed:
            plan.writes[target] = text.encode()
    return plan


def plan_series(tree: Path, sources: Sources, missing_ok: bool) -> list[TopicPlan]:
    """Every topic in order, each planned on the tree as the earlier ones leave it; nothing is written.

    A later topic may take back lines an earlier one added (an expect-file entry that is true
    only until the later commit), so topics cannot be planned against the tree independently.
    """
    pending: dict[str, bytes] = {}
    plans = []
    for topic in sources.topics:
        plan = plan_topic(tree, sources, topic.id, missing_ok, pending)
        pending.update(plan.writes)
        plans.append(plan)
    return plans


def net_changes(tree: Path, plans: list[TopicPlan]) -> dict[str, bytes]:
    """The files the whole series would leave different from `tree`: empty when it is already applied."""
    final: dict[str, bytes] = {}
    for plan in plans:
        final.update(plan.writes)
    view = TreeView(tree)
    return {path: content for path, content in final.items() if view.read(path) != content}


def write_plan(tree: Path, plan: TopicPlan) -> None:
    for upstream_path, content in plan.writes.items():
        destination = tree / upstream_path
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(content)

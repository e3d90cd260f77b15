"""What applying one topic does to an upstream-shaped tree, computed before anything is written."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from scripts.fragments import FragmentError, Sources, apply_fragments_to_text


@dataclass
class TopicPlan:
    topic: str
    writes: dict[str, bytes] = field(default_factory=dict)
    absent_targets: list[str] = field(default_factory=list)

    @property
    def is_empty(self) -> bool:
        return not self.writes


def plan_topic(tree: Path, sources: Sources, topic: str, missing_ok: bool) -> TopicPlan:
    """Check every anchor of `topic` against `tree` and compute the new file contents.

    `missing_ok` skips fragments whose target file is absent (the wheel-derived base
    lacks docs, test data and build files); a real checkout must have them all.
    """
    plan = TopicPlan(topic)
    for new_file in sources.new_files_of(topic):
        content = new_file.source.read_bytes()
        existing = tree / new_file.upstream_path
        if existing.is_file() and existing.read_bytes() != content:
            raise FragmentError(
                f"{new_file.upstream_path} already exists in {tree} with other content; "
                "this patch set adds it as a new file"
            )
        if not existing.is_file():
            plan.writes[new_file.upstream_path] = content
    for fragment_file, fragments in sources.fragments_of(topic):
        target = fragment_file.target_in(tree)
        if target is None:
            if not missing_ok:
                names = " or ".join((fragment_file.upstream_path, *fragment_file.alternatives))
                raise FragmentError(f"{names} not found in {tree}; {fragments[0].label} edits it")
            plan.absent_targets.append(fragment_file.upstream_path)
            continue
        text, changed = apply_fragments_to_text((tree / target).read_text(), fragments, target)
        if changed:
            plan.writes[target] = text.encode()
    return plan


def write_plan(tree: Path, plan: TopicPlan) -> None:
    for upstream_path, content in plan.writes.items():
        destination = tree / upstream_path
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(content)

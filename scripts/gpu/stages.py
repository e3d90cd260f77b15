"""The GPU check's per-operator stages (scripts/gpu/check.sh), as each stack declares them in pr.toml.

A stack's `[[stack.<name>.gpu_stage]]` tables: `name`, `cuda` (the command on a CUDA machine), `cpu` (its counterpart
in the rehearsal on the CPU; absent: the stage does not run there), `cpu_note` (what the counterpart is, said in the
summary first), and `summary` (an extended regular expression: the log lines that go into the summary). Commands run
under bash with `$python`, `$out` (the output folder) and `$jobs` set. Prints one stage a line for check.sh, fields
joined by tabs: stage name (`<stack>-<name>`), command, summary pattern, note. No operator is named here.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from scripts.layout import REPO_ROOT
from scripts.tomlcompat import loads

PR_TOML = REPO_ROOT / "pr.toml"
TOPICS_TOML = REPO_ROOT / "topics.toml"
FIELDS = ("name", "cuda", "cpu", "cpu_note", "summary")


class StageError(ValueError):
    pass


@dataclass(frozen=True)
class Stage:
    stack: str
    name: str
    cuda: str
    cpu: str | None
    cpu_note: str
    summary: str

    def line(self, device: str) -> str | None:
        """check.sh's line for this stage on `device` ("cuda" or "cpu"); None where it does not run there."""
        command = self.cuda if device == "cuda" else self.cpu
        if command is None:
            return None
        note = self.cpu_note if device == "cpu" else ""
        fields = (f"{self.stack}-{self.name}", command, self.summary, note)
        if any("\t" in field or "\n" in field for field in fields):
            raise StageError(f"pr.toml: [[stack.{self.stack}.gpu_stage]] {self.name!r}: a field holds a tab or a newline")
        return "\t".join(fields)


def stack_order(topics_text: str) -> list[str]:
    """The stacks in the order their first topic appears in topics.toml."""
    return list(dict.fromkeys(topic["stack"] for topic in loads(topics_text).get("topic", [])))


def declared_stages(pr_text: str, stacks: list[str]) -> list[Stage]:
    tables = loads(pr_text).get("stack", {})
    stages = []
    for stack in stacks:
        for index, table in enumerate(tables.get(stack, {}).get("gpu_stage", [])):
            unknown = sorted(set(table) - set(FIELDS))
            if unknown or not isinstance(table.get("name"), str) or not isinstance(table.get("cuda"), str):
                raise StageError(f"pr.toml: [[stack.{stack}.gpu_stage]] #{index + 1} needs a name and a cuda command "
                                 f"(fields: {', '.join(FIELDS)}); unknown: {unknown}")
            stages.append(Stage(stack, table["name"], table["cuda"], table.get("cpu"), table.get("cpu_note", ""),
                                table.get("summary", "")))
    return stages


def main_lines(device: str) -> list[str]:
    """check.sh's lines for `device`, from this repo's pr.toml and topics.toml."""
    stages = declared_stages(PR_TOML.read_text(), stack_order(TOPICS_TOML.read_text()))
    return [line for stage in stages if (line := stage.line(device)) is not None]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--device", choices=("cuda", "cpu"), required=True)
    args = parser.parse_args(argv)
    try:
        lines = main_lines(args.device)
    except StageError as error:
        raise SystemExit(f"gpu stages: {error}") from error
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

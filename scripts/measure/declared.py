"""`make bench`: the benchmark of every stack, each the command pr.toml declares for its figures
(`[stack.<name>].benchmarks.made_by`), in the order of topics.toml's stacks; no tool names an operator."""

from __future__ import annotations

import shlex
import subprocess
import sys

from scripts.layout import REPO_ROOT
from scripts.patchset.fragments import FragmentError, load_sources
from scripts.upstream.pr import texts


def benchmark_commands() -> list[tuple[str, list[str]]]:
    """(stack, argv) for every stack that declares its benchmarks; `python -m <module>` runs with this
    interpreter (the one `make bench` passes: the overlay's)."""
    commands = []
    for stack in load_sources().stacks:
        figures = texts(stack).benchmarks
        if figures is None:
            continue
        argv = shlex.split(figures.made_by)
        if argv[:2] != ["python", "-m"] or len(argv) < 3:
            raise FragmentError(f"pr.toml: [stack.{stack}].benchmarks.made_by is {figures.made_by!r}; "
                                "make bench runs `python -m <module> [arguments]`")
        commands.append((stack, [sys.executable, *argv[1:]]))
    return commands


def main() -> None:
    for stack, argv in benchmark_commands():
        print(f"bench: {stack}: {shlex.join(argv[1:])}", flush=True)
        if subprocess.run(argv, cwd=REPO_ROOT).returncode != 0:
            sys.exit(f"bench: the benchmark of stack {stack} failed: {shlex.join(argv[1:])}")


if __name__ == "__main__":
    main()

"""`make pytorch [STACK=...]`: apply one stack of the patch set to a real PyTorch checkout, build it in development
mode, run the upstream suites filtered to that stack's operators with JUnit XML output, and summarize them.

The lane is a plan: a list of steps (data) computed up front from the options and the
machine. A run executes the steps in order; `--dry-run` prints them instead, so what a
dry run shows is exactly what a run executes. Building the plan runs nothing and needs
no network.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from scripts.gitutil import GitError, is_git_repo
from scripts.layout import REPO_ROOT
from scripts.patchset.fragments import FragmentError, Sources, load_sources
from scripts.patchset.pin import load_pin
from scripts.upstream.apply_checkout import ApplyError, apply_to_checkout, check_checkout, default_branch
from scripts.upstream.suites import Suite, results_dir_of, stack_ops, suites_of_stack

UPSTREAM_URL = "https://github.com/pytorch/pytorch.git"
CLONE_DIR = REPO_ROOT / "build" / "pytorch"
VENV_DIR = REPO_ROOT / "build" / "pytorch-venv"
CLONE_JOBS = 8
# A PyTorch translation unit (CUDA ones especially) can take ~2 GiB to compile.
GIB_PER_COMPILE_JOB = 2


@dataclass(frozen=True)
class Toolchain:
    """What this machine has, as far as the build cares."""

    cpus: int
    memory_gib: float | None
    ccache: str | None
    nvcc: str | None
    gpu: bool


def find_nvcc() -> str | None:
    found = shutil.which("nvcc")
    if found:
        return found
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home and (Path(home) / "bin" / "nvcc").is_file():
            return str(Path(home) / "bin" / "nvcc")
    return None


def has_nvidia_gpu() -> bool:
    gpus = Path("/proc/driver/nvidia/gpus")
    return (gpus.is_dir() and any(gpus.iterdir())) or Path("/dev/nvidia0").exists()


def memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 2**20
    except OSError:
        pass
    return None


def detect_toolchain() -> Toolchain:
    return Toolchain(
        cpus=os.cpu_count() or 1,
        memory_gib=memory_gib(),
        ccache=shutil.which("ccache"),
        nvcc=find_nvcc(),
        gpu=has_nvidia_gpu(),
    )


@dataclass(frozen=True)
class LaneOptions:
    """What the user asked for; None means "decide from the machine"."""

    src: Path | None = None  # PYTORCH_SRC; None clones the pinned tag into clone_dir
    stack: str | None = None  # STACK: the stack of topics.toml to apply and test; None: the first
    branch: str | None = None  # None: the stack's name
    max_jobs: int | None = None
    use_cuda: bool | None = None
    ccache: bool | None = None
    python: Path | None = None  # an interpreter whose environment gets the editable torch
    install_deps: bool = True
    clone_dir: Path = CLONE_DIR
    venv_dir: Path = VENV_DIR
    results_dir: Path | None = None  # None: build/pytorch-results/<stack>, where `make pr STACK=` looks


@dataclass(frozen=True)
class BuildConfig:
    max_jobs: int
    use_cuda: bool
    ccache: str | None
    reasons: tuple[str, ...]


def default_max_jobs(toolchain: Toolchain) -> int:
    if toolchain.memory_gib is None:
        return toolchain.cpus
    return max(1, min(toolchain.cpus, int(toolchain.memory_gib // GIB_PER_COMPILE_JOB)))


def resolve_config(options: LaneOptions, toolchain: Toolchain) -> BuildConfig:
    reasons: list[str] = []
    if options.max_jobs is not None:
        max_jobs = options.max_jobs
        reasons.append(f"MAX_JOBS={max_jobs} (given)")
    else:
        max_jobs = default_max_jobs(toolchain)
        memory = f", {toolchain.memory_gib:.0f} GiB" if toolchain.memory_gib is not None else ""
        reasons.append(f"MAX_JOBS={max_jobs} ({toolchain.cpus} CPUs{memory})")
    if options.use_cuda is not None:
        use_cuda = options.use_cuda
        reasons.append(f"USE_CUDA={int(use_cuda)} (given)")
    else:
        use_cuda = toolchain.nvcc is not None and toolchain.gpu
        found = f"nvcc {'at ' + toolchain.nvcc if toolchain.nvcc else 'not found'}, GPU {'present' if toolchain.gpu else 'absent'}"
        reasons.append(f"USE_CUDA={int(use_cuda)} ({found})")
    wants_ccache = options.ccache if options.ccache is not None else toolchain.ccache is not None
    ccache = (toolchain.ccache or "ccache") if wants_ccache else None
    missing = " (given, but not on PATH: the build will fail to find it)" if ccache and not toolchain.ccache else ""
    reasons.append(f"ccache: {ccache}{missing}" if ccache else "ccache: off")
    return BuildConfig(max_jobs, use_cuda, ccache, tuple(reasons))


@dataclass(frozen=True)
class Command:
    """One process: argv run in cwd, with env added to the caller's and PATH extended in front."""

    title: str
    argv: tuple[str, ...]
    cwd: Path
    env: tuple[tuple[str, str], ...] = ()
    path_prepend: tuple[Path, ...] = ()
    check: bool = True  # False: a non-zero exit is reported and the lane goes on (a failing test suite)

    def shell_line(self) -> str:
        assignments = [shlex.quote(f"{name}={value}") for name, value in self.env]
        if self.path_prepend:
            prefix = os.pathsep.join(str(p) for p in self.path_prepend)
            assignments.append(f'PATH={shlex.quote(prefix)}:"$PATH"')
        command = shlex.join(self.argv)
        return f"cd {shlex.quote(str(self.cwd))} && " + (f"env {' '.join(assignments)} " if assignments else "") + command

    def full_env(self) -> dict[str, str]:
        env = {**os.environ, **dict(self.env)}
        if self.path_prepend:
            env["PATH"] = os.pathsep.join([*(str(p) for p in self.path_prepend), env.get("PATH", "")])
        return env


@dataclass(frozen=True)
class ApplyPatchSet:
    """scripts.upstream.apply_checkout.apply_to_checkout, run in this process; shown as its command line."""

    checkout: Path
    branch: str
    stack: str | None = None  # None: the first stack of the sources
    title: str = "apply the patch set (one commit per topic; already applied is fine)"
    check: bool = True

    def shell_line(self) -> str:
        argv = [sys.executable, "-m", "scripts.upstream.apply_checkout", str(self.checkout), "--branch", self.branch]
        argv += ["--stack", self.stack] if self.stack else []
        return f"cd {shlex.quote(str(REPO_ROOT))} && {shlex.join(argv)}"


Step = Command | ApplyPatchSet


@dataclass(frozen=True)
class Plan:
    checkout: Path
    python: Path
    config: BuildConfig
    results_dir: Path
    steps: tuple[Step, ...]
    notes: tuple[str, ...] = ()


def checkout_steps(options: LaneOptions) -> tuple[Path, list[Step], str]:
    """Clone the pinned tag when there is no checkout yet; else check the existing one (dirty: refused)."""
    if options.src is not None:
        checkout = options.src
    else:
        checkout = options.clone_dir
        if checkout.exists() and not is_git_repo(checkout):
            raise ApplyError(f"{checkout} exists but is not a git checkout (an interrupted clone?); remove it and rerun")
        if not checkout.exists():
            tag = f"v{load_pin().version}"
            clone = Command(
                f"clone PyTorch {tag} with submodules (shallow)",
                ("git", "clone", "--depth", "1", "--branch", tag, "--recurse-submodules", "--shallow-submodules",
                 "--jobs", str(CLONE_JOBS), UPSTREAM_URL, str(checkout)),
                cwd=REPO_ROOT,
            )
            return checkout, [clone], f"fresh shallow clone of {tag} into {checkout}"
    check_checkout(checkout)
    update = Command(
        "update submodules to the checkout's recorded commits",
        ("git", "submodule", "update", "--init", "--recursive"),
        cwd=checkout,
    )
    return checkout, [update], f"existing checkout {checkout}"


def python_steps(options: LaneOptions, checkout: Path, config: BuildConfig) -> tuple[Path, list[Step]]:
    """A dedicated venv by default: the repo's .venv holds the torch wheel plus the overlay and must stay so."""
    steps: list[Step] = []
    if options.python is not None:
        python = options.python
    else:
        python = options.venv_dir / "bin" / "python"
        if not python.exists():
            steps.append(Command("create the build venv", (sys.executable, "-m", "venv", str(options.venv_dir)), cwd=REPO_ROOT))
    if options.install_deps:
        bin_dir = (python.parent,)
        steps.append(Command("upgrade pip", (str(python), "-m", "pip", "install", "--upgrade", "pip"), cwd=checkout))
        steps.append(Command(
            "install PyTorch's build and test requirements",
            (str(python), "-m", "pip", "install", "-r", "requirements.txt", "pytest"),
            cwd=checkout, path_prepend=bin_dir,
        ))
        if config.use_cuda:
            steps.append(Command(
                "install the Triton wheel pinned by this checkout",
                ("bash", "scripts/install_triton_wheel.sh"),
                cwd=checkout, path_prepend=bin_dir,
            ))
    return python, steps


def build_env(config: BuildConfig) -> tuple[tuple[str, str], ...]:
    env = [("MAX_JOBS", str(config.max_jobs)), ("USE_CUDA", str(int(config.use_cuda)))]
    # The upstream Python suites need no C++ test binaries; skipping them saves a large part of the build.
    env.append(("BUILD_TEST", "0"))
    if config.ccache:
        env += [("CMAKE_C_COMPILER_LAUNCHER", config.ccache), ("CMAKE_CXX_COMPILER_LAUNCHER", config.ccache)]
        if config.use_cuda:
            env.append(("CMAKE_CUDA_COMPILER_LAUNCHER", config.ccache))
    else:
        # PyTorch's CMake wraps the compiler in any ccache it finds unless told not to.
        env.append(("USE_CCACHE", "0"))
    return tuple(env)


def build_step(python: Path, checkout: Path, config: BuildConfig) -> Command:
    # No clean and no CMAKE_FRESH: the second run reuses checkout/build and ninja rebuilds only what changed.
    return Command(
        "build PyTorch in development mode (incremental)",
        (str(python), "-m", "pip", "install", "--no-build-isolation", "-v", "-e", "."),
        cwd=checkout, env=build_env(config), path_prepend=(python.parent,),
    )


def suite_step(suite: Suite, python: Path, checkout: Path, results_dir: Path, ops: tuple[str, ...]) -> Command:
    # Upstream CI runs the suites from test/, so do the same.
    keyword = suite.keyword(ops)
    return Command(
        f"test {suite.path} -k {keyword!r}",
        (str(python), "-m", "pytest", suite.path, "-k", keyword, "-q", "-rfE",
         f"--junitxml={results_dir / suite.junit_file}", "-o", f"junit_suite_name={suite.path}"),
        cwd=checkout / "test", path_prepend=(python.parent,), check=False,
    )


def clear_results_step(results_dir: Path) -> Command:
    # Before the build: results of an earlier build must not survive a failed one (make pr reads them).
    return Command("clear earlier JUnit results", ("rm", "-rf", str(results_dir)), cwd=REPO_ROOT)


def test_steps(python: Path, checkout: Path, results_dir: Path, stack: str | None) -> list[Step]:
    sources = load_sources().of_stack(stack)
    ops = stack_ops(sources)  # the operators of the applied stack only
    suites = [suite_step(suite, python, checkout, results_dir, ops) for suite in suites_of_stack(sources)]
    summary = Command(
        "summarize the suites from their JUnit XML",
        (sys.executable, "-m", "scripts.upstream.junit_summary", str(results_dir)),
        cwd=REPO_ROOT, check=False,
    )
    return [*suites, summary]


def plan_lane(options: LaneOptions, toolchain: Toolchain) -> Plan:
    """Every step of the lane, in order. Raises ApplyError for a checkout that must not be touched."""
    config = resolve_config(options, toolchain)
    try:
        stack = load_sources().of_stack(options.stack).stacks[0]
    except FragmentError as error:
        raise ApplyError(str(error)) from error
    results_dir = options.results_dir or results_dir_of(stack)
    checkout, steps, origin = checkout_steps(options)
    steps.append(ApplyPatchSet(checkout, options.branch or default_branch(stack=stack), options.stack))
    python, setup = python_steps(options, checkout, config)
    steps += setup
    steps.append(clear_results_step(results_dir))
    steps.append(build_step(python, checkout, config))
    steps += test_steps(python, checkout, results_dir, stack)
    notes = (f"stack: {stack}", f"checkout: {origin}", f"python: {python}", *config.reasons)
    return Plan(checkout, python, config, results_dir, tuple(steps), notes)


def dry_run_text(plan: Plan) -> str:
    lines = [f"# make pytorch DRY_RUN=1: the {len(plan.steps)} steps a run executes, in order; nothing was run"]
    lines += [f"# {note}" for note in plan.notes]
    for index, step in enumerate(plan.steps, 1):
        lines += [f"# [{index}/{len(plan.steps)}] {step.title}", step.shell_line()]
    return "\n".join(lines) + "\n"


def run_command(command: Command) -> int:
    return subprocess.run(command.argv, cwd=command.cwd, env=command.full_env()).returncode


def format_seconds(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m{rest:02d}s" if minutes else f"{seconds:.1f}s"


@dataclass
class Runner:
    """Executes a plan in order. `sources` and `execute` are swapped out by the tests."""

    sources: Sources | None = None
    execute: Callable[[Command], int] = run_command
    failed: list[str] = field(default_factory=list)

    def apply(self, step: ApplyPatchSet) -> int:
        try:
            print(apply_to_checkout(step.checkout, step.branch, self.sources, step.stack), flush=True)
        except (ApplyError, FragmentError, GitError) as error:
            print(f"error: {error}", file=sys.stderr, flush=True)
            return 1
        return 0

    def run_step(self, step: Step) -> int:
        if isinstance(step, ApplyPatchSet):
            return self.apply(step)
        try:
            return self.execute(step)
        except OSError as error:
            print(f"error: {step.argv[0]}: {error}", file=sys.stderr, flush=True)
            return 127

    def run(self, plan: Plan) -> int:
        """0 when every step succeeded; a required step that fails stops the lane."""
        total = len(plan.steps)
        for note in plan.notes:
            print(f"pytorch: {note}", flush=True)
        for index, step in enumerate(plan.steps, 1):
            print(f"==> [{index}/{total}] {step.title}\n    $ {step.shell_line()}", flush=True)
            started = time.monotonic()
            code = self.run_step(step)
            verdict = "ok" if code == 0 else f"exit {code}"
            print(f"<== [{index}/{total}] {step.title}: {verdict} in {format_seconds(time.monotonic() - started)}", flush=True)
            if code != 0:
                self.failed.append(step.title)
                if step.check:
                    print(f"pytorch: stopped at step {index}/{total} ({step.title})", file=sys.stderr)
                    return code
        if self.failed:
            print("pytorch: finished with failures in: " + "; ".join(self.failed), file=sys.stderr)
            return 1
        print(f"pytorch: all {total} steps passed; JUnit XML in {plan.results_dir}")
        return 0


def flag(value: str) -> bool:
    if value.lower() in ("1", "yes", "true", "on"):
        return True
    if value.lower() in ("0", "no", "false", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected 1 or 0, got {value!r}")


def parse_options(argv: list[str] | None = None) -> tuple[LaneOptions, bool]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--src", type=Path, help="an existing PyTorch checkout (PYTORCH_SRC); default: clone into build/pytorch")
    parser.add_argument("--stack", help="the stack of topics.toml to apply and test (default: the first)")
    parser.add_argument("--branch", help="branch the stack is committed on (default: the stack's name)")
    parser.add_argument("--max-jobs", type=int, help="parallel compile jobs (default: from CPUs and memory)")
    parser.add_argument("--use-cuda", type=flag, help="1 or 0 (default: 1 when nvcc and a GPU are present)")
    parser.add_argument("--ccache", type=flag, help="1 or 0 (default: 1 when ccache is on PATH)")
    parser.add_argument("--python", type=Path, help="build into this interpreter's environment (default: build/pytorch-venv)")
    parser.add_argument("--skip-deps", action="store_true", help="do not pip install requirements (offline reruns)")
    parser.add_argument("--dry-run", action="store_true", help="print every command in order and run nothing")
    args = parser.parse_args(argv)
    options = LaneOptions(
        src=args.src.resolve() if args.src else None,
        stack=args.stack or None,
        branch=args.branch or None,
        max_jobs=args.max_jobs,
        use_cuda=args.use_cuda,
        ccache=args.ccache,
        python=args.python.absolute() if args.python else None,
        install_deps=not args.skip_deps,
    )
    return options, args.dry_run


def main(argv: list[str] | None = None) -> None:
    options, dry_run = parse_options(argv)
    try:
        plan = plan_lane(options, detect_toolchain())
    except (ApplyError, GitError) as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)
    if dry_run:
        print(dry_run_text(plan), end="")
        return
    sys.exit(Runner().run(plan))


if __name__ == "__main__":
    main()

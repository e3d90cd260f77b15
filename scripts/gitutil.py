"""Small, explicit wrappers around the git command line."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

# Only for the drift-checked patches/ (and test fixtures): a fixed author and date make every
# regeneration byte-identical. Commits meant for upstream (`make apply`, `make pr PYTORCH_SRC=`)
# carry the user's own git identity.
FIXED_IDENTITY = {
    "GIT_AUTHOR_NAME": "native-op patch set",
    "GIT_AUTHOR_EMAIL": "native-op-patches@users.noreply.github.com",
    "GIT_COMMITTER_NAME": "native-op patch set",
    "GIT_COMMITTER_EMAIL": "native-op-patches@users.noreply.github.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+00:00",
}


class GitError(RuntimeError):
    pass


def git(
    repo: Path, *args: str, env: dict[str, str] | None = None, check: bool = True, stdin: str | None = None
) -> str:
    full_env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", **(env or {})}
    command = ["git", "-C", str(repo), *args]
    result = subprocess.run(command, capture_output=True, text=True, env=full_env, input=stdin)
    if check and result.returncode != 0:
        raise GitError(f"git {' '.join(args)} failed in {repo}:\n{result.stderr.strip()}")
    return result.stdout


def is_git_repo(path: Path) -> bool:
    return path.is_dir() and git(path, "rev-parse", "--is-inside-work-tree", check=False).strip() == "true"


def porcelain_status(repo: Path) -> list[str]:
    return [line for line in git(repo, "status", "--porcelain").splitlines() if line]


def head_commit(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").strip()


def current_branch(repo: Path) -> str | None:
    name = git(repo, "symbolic-ref", "--quiet", "--short", "HEAD", check=False).strip()
    return name or None


def branch_exists(repo: Path, name: str) -> bool:
    return bool(git(repo, "branch", "--list", name).strip())


def commit_all(repo: Path, paths: list[str], message: str, env: dict[str, str] | None = None) -> None:
    git(repo, "add", "--", *paths)
    git(repo, "commit", "-q", "--no-verify", "--no-gpg-sign", "-F", "-", env=env, stdin=message)

"""The identity digests test_cpu_capabilities.py compares: one process per CPU capability build (two for DEFAULT,
the slowest build), started as soon as pytest has collected that file so that they run beside the other tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import torch

from scripts.layout import REPO_ROOT

AVAILABLE = ["DEFAULT"] + [c for c in ("AVX2", "AVX512") if torch.backends.cpu.get_cpu_capability() in (c, "AVX512")]
# The DEFAULT build runs about three times slower than the others: its float32 chunks are split in two processes.
SHARES = {"DEFAULT": 2, "AVX2": 1, "AVX512": 1}
FLOAT32_CHUNK_STEP = os.environ.get("CBRT_FLOAT32_CHUNK_STEP", "1")

_running: dict[tuple[str, int], subprocess.Popen[str]] = {}
_reports: dict[str, dict] = {}


def start() -> None:
    """Start every digest process not started yet (idempotent)."""
    for capability in AVAILABLE:
        for share in range(SHARES[capability]):
            if (capability, share) not in _running:
                command = [sys.executable, str(REPO_ROOT / "test" / "capability_digest.py"),
                           "--float32-step", FLOAT32_CHUNK_STEP, "--share", str(share), str(SHARES[capability])]
                _running[capability, share] = subprocess.Popen(
                    command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT,
                    env={**os.environ, "ATEN_CPU_CAPABILITY": capability.lower(), "PYTHONPATH": str(REPO_ROOT)})


def finished(process: subprocess.Popen[str]) -> dict:
    stdout, stderr = process.communicate()
    assert process.returncode == 0, stderr[-3000:]
    return json.loads(stdout.strip().splitlines()[-1])


def digests() -> dict[str, dict]:
    """The digest report of every available capability: its shares' float32 digests in order, joined."""
    if not _reports:
        start()
        for capability in AVAILABLE:
            shares = [finished(_running[capability, share]) for share in range(SHARES[capability])]
            report = shares[0]
            for later in shares[1:]:
                assert later["capability"] == report["capability"], later
                report["float32"] += later["float32"]
                report["violations"] += later["violations"]
            _reports[capability] = report
    return _reports

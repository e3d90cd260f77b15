"""What a measurement ran on, named the same way in every report: the figures of other libraries depend on it."""

from __future__ import annotations

import platform
from pathlib import Path

import torch


def cpu_model() -> str:
    """The CPU's model name as the kernel reports it (/proc/cpuinfo), else what Python's platform module knows."""
    cpuinfo = Path("/proc/cpuinfo")
    lines = cpuinfo.read_text().splitlines() if cpuinfo.is_file() else []
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")),
                platform.processor() or platform.machine())


def described(device: str) -> str:
    """The machine as a benchmark report names it: the GPU's name on CUDA, else the CPU model and architecture."""
    return torch.cuda.get_device_name() if device == "cuda" else f"{cpu_model()}, {platform.machine()}"

"""What every benchmark prints about the machine it ran on (shared by bench/*.py)."""

from __future__ import annotations

import platform
from importlib import metadata
from pathlib import Path


def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo on Linux)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def version(dist: str) -> str:
    """An installed distribution's version, or 'not installed'."""
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"

"""The machine a benchmark ran on, recorded beside its figures (benchmarks/*.py)."""

from __future__ import annotations

import os
import platform
from datetime import datetime, timezone
from pathlib import Path


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines() if Path("/proc/cpuinfo").exists() else []:
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def machine(**extra) -> dict:
    """CPU, cores, Python and xDSL versions, the date and the load average now, plus `extra`."""
    import xdsl

    return {
        "cpu": cpu_model(), "cores": os.cpu_count(), "python": platform.python_version(),
        "xdsl": str(getattr(xdsl, "__version__", "?")), **extra,
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "load_average": os.getloadavg(),
    }

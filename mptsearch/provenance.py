"""Where a result came from: the source tree's git commit and the machine, recorded first in
every result file (annealing records, experiment folders)."""

from __future__ import annotations

import os
import platform
import subprocess

__all__ = ["git_commit", "environment"]


def git_commit() -> str | None:
    """The git commit of the checkout holding this package, ``+dirty`` when a tracked file has
    local changes; None outside a git checkout."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True,
                             text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return (sha + ("+dirty" if dirty else "")) if sha else None


def environment() -> dict:
    """Version, commit, library versions, machine and load."""
    from . import __version__
    import numba
    import numpy

    return {"version": __version__, "git_commit": git_commit(), "python": platform.python_version(),
            "numba": numba.__version__, "numpy": numpy.__version__, "machine": platform.machine(),
            "processor": platform.processor(), "cpus": os.cpu_count(),
            "load_average": [round(v, 2) for v in os.getloadavg()]}

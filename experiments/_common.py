"""What every experiment shares: its output folder, written provenance first, then data.

``results/<name>/meta.json`` records the config, seed, package version, git commit, machine
and start time before any data; ``summary.json`` is written last with the timings and the
claim's row for ``results/README.md`` (built by :mod:`experiments.report` from these files
only).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import platform
import sys
import time
from fractions import Fraction
from pathlib import Path

import mptsearch
from mptsearch.provenance import git_commit

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"


def machine() -> dict:
    return {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(), "python": sys.version.split()[0]}


def parser(description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--full", action="store_true", help="the paper's sizes (slow)")
    p.add_argument("--seed", type=int, default=20261129)
    p.add_argument("--out", type=Path, default=None, help="output folder (default results/<name>)")
    return p


class Run:
    """One experiment's output folder."""

    def __init__(self, name: str, config: dict, seed: int, out: Path | None = None):
        self.name = name
        self.dir = Path(out) if out else RESULTS / name
        self.dir.mkdir(parents=True, exist_ok=True)
        self.t0 = time.perf_counter()
        self.timings: dict[str, float] = {}
        self.meta = {"experiment": name, "config": config, "seed": seed,
                     "version": mptsearch.__version__, "git_commit": git_commit() or "unknown",
                     "machine": machine(), "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                     "command": _command(name)}
        self.write_json("meta.json", self.meta)

    def write_json(self, fname: str, data) -> Path:
        path = self.dir / fname
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps(data, indent=1, default=_jsonable) + "\n")
        tmp.replace(path)
        return path

    def write_csv(self, fname: str, rows: list[dict]) -> Path:
        path = self.dir / fname
        with open(path, "w", newline="") as fh:
            if rows:
                fields = list(dict.fromkeys(k for r in rows for k in r))
                w = csv.DictWriter(fh, fieldnames=fields)
                w.writeheader()
                w.writerows(rows)
        return path

    def timed(self, label: str):
        run = self

        class _T:
            def __enter__(self):
                self.t = time.perf_counter()

            def __exit__(self, *exc):
                run.timings[label] = round(time.perf_counter() - self.t, 3)

        return _T()

    def finish(self, claims: list[dict]) -> None:
        """Write summary.json: one row per claim {claim, paper, ours, agree, detail}."""
        for c in claims:
            c.setdefault("command", self.meta["command"].strip())
        self.write_json("summary.json", {"experiment": self.name, "claims": claims,
                                         "seconds_total": round(time.perf_counter() - self.t0, 3),
                                         "timings": self.timings})


def decimals(x, places: int, up: bool | None = True) -> str:
    """``x`` (a Fraction, an int, or a float read exactly) with ``places`` decimals, rounded up
    (``up`` True: a gap, a width, an interval's upper end), down (False: an interval's lower end)
    or, for a point value (None), to the nearest: a printed bracket still holds the value."""
    k = Fraction(x) * 10 ** places
    k = math.ceil(k) if up else math.floor(k) if up is False else round(k)
    return f"{'-' if k < 0 else ''}{abs(k) // 10 ** places}.{abs(k) % 10 ** places:0{places}d}"


def save_figure(fig, path: Path, dpi: int = 120) -> Path:
    """Write a matplotlib figure to ``path`` whole or not at all (a temporary file, then a
    rename), and close it."""
    path = Path(path)
    tmp = path.with_name(path.stem + ".tmp" + path.suffix)
    fig.savefig(tmp, dpi=dpi)
    import matplotlib.pyplot as plt

    plt.close(fig)
    tmp.replace(path)
    return path


def _command(name: str) -> str:
    """How this run was started: the script's own module (not the result folder's name)."""
    script = Path(sys.argv[0]).stem if sys.argv and sys.argv[0].endswith(".py") else name
    if script == "__main__":
        script = name
    return " ".join(["python -m experiments." + script] + sys.argv[1:]).strip()


def _jsonable(obj):
    import numpy as np
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")

"""Cross-check campaigns: random instances through every exact method.

Trial t draws its instance from ``numpy.random.default_rng([seed, t])``, so a campaign gives
the same instances and the same verdicts whatever the number of workers, and a single trial
can be replayed alone. Each trial runs :func:`~mptsearch.verify.verify.verify`; a trial whose
report is not ok (methods disagree, a witness does not recheck, OPT_glob < OPT_free, a method
fails) is saved as an instance file with its certificate. With an output directory, finished
trials are appended to ``trials.jsonl`` and a rerun resumes after them.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections import Counter
from contextlib import nullcontext
from dataclasses import dataclass, field

import numpy as np

from .._atomic import atomic_open
from .._signals import local_workers_shielded, stop_local_workers, worker_ignores_signals
from ..families import random_instance
from ..instance import Instance
from .verify import verify

__all__ = ["CampaignSummary", "trial_instance", "run_trial", "crosscheck", "CROSSCHECK_LIMITS"]

# Smaller than verify's defaults so that a trial takes a fraction of a second.
CROSSCHECK_LIMITS = {
    "brute-layouts": {"max_layouts": 5_000},
    "brute-orders": {"max_n": 7},
    "trie-search": {"max_m": 10, "max_states": 300_000},
    "cpsat-glob": {"max_n": 10},
    # SAT descent with proof checking is seconds per weighted trial: it has its own campaign
    # (experiments/certificates.py, tests/test_certificates.py); raise these to include it.
    "sat-free": {"max_m": 0},
    "sat-glob": {"max_m": 0},
    # a CP-SAT model per trial: only the smallest trials (tests/test_orders_cpsat.py has its own)
    "cpsat-orders": {"max_orders": 60},
}


@dataclass
class CampaignSummary:
    trials: int
    seed: int
    disagreements: list
    runs: dict            # method -> number of trials in which it proved its value
    method_seconds: dict  # method -> total seconds
    wall_seconds: float
    resumed: int = 0
    config: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return dict(self.__dict__)


def trial_instance(seed: int, t: int, *, m_max: int = 8, n_max: int = 9,
                   weights: tuple[int, int] = (1, 9)) -> Instance:
    """The instance of trial t: m in [2, m_max], mixed request sizes (fixed k in 1..4 or a
    range), n in [k_hi + 1, n_max] chunks, weights uniform in ``weights`` (unit in 1/5 of trials)."""
    rng = np.random.default_rng([seed, t])
    mode = int(rng.integers(0, 6))
    lo, hi = [(1, 2), (2, 2), (3, 3), (4, 4), (1, 4), (2, 5)][mode]
    n = int(rng.integers(min(hi + 1, n_max), n_max + 1))
    hi = min(hi, n)
    lo = min(lo, hi)
    cap = sum(math.comb(n, s) for s in range(lo, hi + 1))
    m = min(int(rng.integers(2, m_max + 1)), cap)
    w = (1, 1) if rng.random() < 0.2 else weights
    return random_instance(n, m, (lo, hi), weights=w, seed=rng)


def run_trial(seed: int, t: int, *, m_max: int, n_max: int, time_limit: float, limits=None) -> dict:
    """One trial: its instance, which methods proved what, and the certificate if not ok."""
    inst = trial_instance(seed, t, m_max=m_max, n_max=n_max)
    lim = {k: dict(v) for k, v in CROSSCHECK_LIMITS.items()}
    for k, v in (limits or {}).items():
        lim.setdefault(k, {}).update(v)
    rep = verify(inst, methods="auto", limits=lim, time_limit=time_limit, workers=1, seed=0,
                 keep_witnesses=False)
    out = {"trial": t, "n": inst.n, "m": inst.m, "k": max(len(o) for o in inst.orders),
           "free": rep.values["free"], "glob": rep.values["glob"], "ok": rep.ok,
           "proved": [r.method for r in rep.rows if r.status == "optimal"],
           "seconds": {r.method: round(r.seconds, 4) for r in rep.rows if r.status != "skipped"}}
    if not rep.ok:
        rep_full = verify(inst, methods="auto", limits=lim, time_limit=time_limit, workers=1, seed=0)
        out["problems"] = rep_full.problems
        out["certificate"] = rep_full.to_json()
    return out


def crosscheck(trials: int, seed: int = 0, *, m_max: int = 8, n_max: int = 9, time_limit: float = 20.0,
               jobs: int = 1, out_dir: str | None = None, batch: int = 50, limits=None,
               progress: bool = False) -> CampaignSummary:
    """Run a campaign of ``trials`` random instances; see the module docstring.

    Parameters
    ----------
    trials, seed : int
        Trials 0..trials-1 of this seed.
    m_max, n_max : int
        Largest number of requests and chunks.
    time_limit : float
        CP-SAT time limit per solve (one worker each, so results do not depend on ``jobs``).
    jobs : int
        Parallel processes (joblib).
    out_dir : str, optional
        Where ``trials.jsonl`` (checkpoint), ``disagreements/trial_<t>.json`` (an instance
        file plus its certificate) and ``summary.json`` go.
    batch : int
        Trials per checkpoint write.

    Returns
    -------
    CampaignSummary
    """
    from joblib import Parallel, delayed

    done: dict[int, dict] = {}
    log = None
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
        log = os.path.join(out_dir, "trials.jsonl")
        if os.path.exists(log):
            with open(log, encoding="utf-8") as fh:
                for line in fh:
                    line = line.strip()
                    if line:
                        try:
                            rec = json.loads(line)
                        except json.JSONDecodeError:  # a line cut short by an interrupt
                            continue
                        if rec.get("seed") == seed:
                            done[rec["trial"]] = rec
    resumed = sum(1 for t in done if t < trials)
    todo = [t for t in range(trials) if t not in done]
    t0 = time.perf_counter()
    kw = dict(m_max=m_max, n_max=n_max, time_limit=time_limit, limits=limits)
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=len(todo), unit="trial")
    # local workers start shielded from the terminal's Ctrl-C (the driver takes it and saves
    # the log; a worker's traceback would be noise), and end with the campaign
    shield = local_workers_shielded() if jobs != 1 else nullcontext()
    try:
        with shield, Parallel(n_jobs=jobs, initializer=worker_ignores_signals if jobs != 1 else None) as par:
            for start in range(0, len(todo), batch):
                chunk = todo[start:start + batch]
                if jobs == 1:
                    recs = [run_trial(seed, t, **kw) for t in chunk]
                else:
                    recs = par(delayed(run_trial)(seed, t, **kw) for t in chunk)
                for rec in recs:
                    rec["seed"] = seed
                    done[rec["trial"]] = rec
                    if not rec["ok"] and out_dir:
                        ddir = os.path.join(out_dir, "disagreements")
                        os.makedirs(ddir, exist_ok=True)
                        cert = rec["certificate"]
                        with atomic_open(os.path.join(ddir, f"trial_{seed}_{rec['trial']}.json")) as fh:
                            json.dump({**cert["instance"], "note": "; ".join(rec["problems"])}, fh, indent=1)
                        with atomic_open(os.path.join(ddir, f"trial_{seed}_{rec['trial']}.certificate.json")) as fh:
                            json.dump(cert, fh, indent=1)
                if log:
                    with open(log, "a", encoding="utf-8") as fh:
                        for rec in recs:
                            fh.write(json.dumps({k: v for k, v in rec.items() if k != "certificate"}) + "\n")
                if bar is not None:
                    bar.update(len(chunk))
    finally:
        if jobs != 1:
            stop_local_workers()
    if bar is not None:
        bar.close()
    wall = time.perf_counter() - t0
    recs = [done[t] for t in range(trials)]
    runs: Counter = Counter()
    secs: Counter = Counter()
    for rec in recs:
        runs.update(rec["proved"])
        for k, v in rec["seconds"].items():
            secs[k] += v
    bad = [{"trial": r["trial"], "problems": r.get("problems", [])} for r in recs if not r["ok"]]
    summary = CampaignSummary(trials, seed, bad, dict(sorted(runs.items())),
                              {k: round(v, 2) for k, v in sorted(secs.items())}, round(wall, 2), resumed,
                              {"m_max": m_max, "n_max": n_max, "time_limit": time_limit, "jobs": jobs})
    if out_dir:
        with atomic_open(os.path.join(out_dir, "summary.json")) as fh:
            json.dump(summary.to_json(), fh, indent=1)
    return summary

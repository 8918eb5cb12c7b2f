"""Independent annealing restarts across local cores (joblib) or a Dask cluster.

Restart r of run ``seed`` draws its random numbers from a state derived from (seed, r) alone
(:func:`~mptsearch.search.anneal.restart_seed`) and its temperature from its own step index,
so with a step budget the set of trajectories, hence the best instance, is the same whatever
the number of workers. Restarts advance in *rounds*: each active restart runs one piece of
steps in a worker, then the driver checks the time limit and Ctrl-C, so an interrupted run
keeps everything up to the last finished round. The best instance overall is the best over
restarts by exact objective (a fraction), ties to the lowest restart index.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from .anneal import (I_BDEN, I_BEST_M, I_BNUM, I_EVALS, I_VIOL, AnnealConfig, RestartState,
                     new_restart, restart_instance, run_restart)

__all__ = ["AnnealRun", "anneal"]


@dataclass
class AnnealRun:
    """The outcome of :func:`anneal`.

    ``instance`` is the best family in the kernel's request order (for ``shortfall`` that
    order decides the "first" tie-breaking), ``num/den`` its exact objective.
    """

    config: AnnealConfig
    seed: int
    instance: object
    num: int
    den: int
    restart: int
    evaluations: int
    restarts_started: int
    restarts_finished: int
    steps: int
    seconds: float
    stopped: str             # "steps", "time limit" or "interrupted"
    violations: int
    violation_instances: list = field(default_factory=list)
    history: list = field(default_factory=list)  # (seconds, best value) at each improvement

    @property
    def value(self) -> float:
        return math.inf if self.den == 0 else self.num / self.den


def _run_piece(config: AnnealConfig, state: RestartState, nsteps: int) -> RestartState:
    return run_restart(config, state, nsteps)


def _better(a: RestartState, b: RestartState | None) -> bool:
    if b is None:
        return True
    an, ad, bn, bd = (int(a.ints[I_BNUM]), int(a.ints[I_BDEN]), int(b.ints[I_BNUM]), int(b.ints[I_BDEN]))
    if ad == 0 or bd == 0:
        return ad == 0 and (bd != 0 or a.index < b.index)
    return an * bd > bn * ad or (an * bd == bn * ad and a.index < b.index)


def anneal(config: AnnealConfig, *, seed: int = 0, steps: int | None = None,
           time_limit: float | None = 60.0, jobs: int | None = None, scheduler: str | None = None,
           piece_seconds: float = 1.0, progress=None) -> AnnealRun:
    """Anneal with independent restarts in parallel; return the best instance found.

    Parameters
    ----------
    config : AnnealConfig
    seed : int
        Run seed; restart r uses a state derived from (seed, r).
    steps : int, optional
        Total step budget over all restarts (restart r gets ``config.restart_steps`` steps, the
        last one the remainder). With it, the result does not depend on ``jobs``. Without it
        restarts keep coming until ``time_limit``.
    time_limit : float, optional
        Seconds; the run stops after the round that crosses it. None: no limit.
    jobs : int, optional
        Restarts run at once (default: all local cores, or the cluster's threads).
    scheduler : str, optional
        Address of a Dask scheduler: the pieces go to its workers through joblib's Dask
        backend (needs ``dask[distributed]``).
    piece_seconds : float
        Target wall time of one round; it sets how often the time limit and Ctrl-C are seen.
    progress : callable, optional
        Called after each round with the current :class:`AnnealRun`.

    Notes
    -----
    Each step costs O(3^m + 2^n (n + m)) (both exact DPs); see ``benchmarks/bench_anneal.py``.
    Ctrl-C (KeyboardInterrupt) ends the run after keeping the best of the finished rounds.
    """
    import joblib

    config.validate()
    if steps is None and time_limit is None:
        raise ValueError("give a step budget, a time limit or both")
    n_restarts = math.inf if steps is None else max(1, math.ceil(steps / config.restart_steps))

    def length(r):
        if steps is None:
            return config.restart_steps
        return min(config.restart_steps, steps - r * config.restart_steps)

    client = None
    if scheduler is not None:
        from distributed import Client  # noqa: F401 - registers joblib's dask backend

        client = Client(scheduler)
        if jobs is None:
            jobs = max(1, sum(client.nthreads().values()))
    if jobs is None:
        jobs = joblib.cpu_count()
    jobs = max(1, int(jobs))

    start = time.perf_counter()
    run = AnnealRun(config, seed, None, 0, 1, -1, 0, 0, 0, 0, 0.0, "steps", 0)
    best: RestartState | None = None
    active: list[RestartState] = []
    next_index = 0
    finished_evals = 0
    finished_steps = 0
    piece = 2000  # steps per restart per round, adapted to piece_seconds

    def refill():
        nonlocal next_index
        while len(active) < jobs and next_index < n_restarts:
            active.append(new_restart(config, seed, next_index, length(next_index)))
            next_index += 1

    def absorb(states):
        nonlocal best, finished_evals, finished_steps
        active.clear()
        for st in states:
            if st.ints[I_EVALS] > 0 and _better(st, best):
                improved = best is None or st.best_value > best.best_value
                best = RestartState(st.index, st.req.copy(), st.wts.copy(), st.best_req.copy(),
                                    st.best_wts.copy(), st.ints.copy(), st.rng.copy(),
                                    st.viol_req.copy(), st.viol_wts.copy())
                if improved:
                    run.history.append((time.perf_counter() - start, best.best_value))
            if st.ints[I_VIOL] and len(run.violation_instances) < 10:
                inst = restart_instance(config, st.viol_req, int((st.viol_req != 0).sum()), st.viol_wts)
                if all(v.orders != inst.orders for v in run.violation_instances):
                    run.violation_instances.append(inst)
            if st.done:
                finished_evals += int(st.ints[I_EVALS])
                finished_steps += int(st.ints[2])
                run.violations += int(st.ints[I_VIOL])
                run.restarts_finished += 1
            else:
                active.append(st)

    def summarise():
        run.seconds = time.perf_counter() - start
        run.restarts_started = next_index
        run.evaluations = finished_evals + sum(int(s.ints[I_EVALS]) for s in active)
        run.steps = finished_steps + sum(int(s.ints[2]) for s in active)
        run.violations_active = sum(int(s.ints[I_VIOL]) for s in active)
        if best is not None:
            run.num, run.den, run.restart = int(best.ints[I_BNUM]), int(best.ints[I_BDEN]), best.index
            run.instance = restart_instance(config, best.best_req, int(best.ints[I_BEST_M]), best.best_wts)

    backend = joblib.parallel_config(backend="dask") if client is not None else None
    try:
        if backend is not None:
            backend.__enter__()
        with joblib.Parallel(n_jobs=jobs if client is None else -1, prefer=None) as par:
            refill()
            while active:
                if time_limit is not None and time.perf_counter() - start >= time_limit:
                    run.stopped = "time limit"
                    break
                t = time.perf_counter()
                todo = [(st, piece) for st in active]
                if jobs == 1 and client is None:
                    states = [_run_piece(config, st, k) for st, k in todo]
                else:
                    states = par(joblib.delayed(_run_piece)(config, st, k) for st, k in todo)
                dt = time.perf_counter() - t
                absorb(states)
                refill()
                summarise()
                if progress is not None:
                    progress(run)
                # adapt the piece so a round takes about piece_seconds (and fits the limit)
                piece = int(min(max(piece * piece_seconds / max(dt, 1e-3), 200), piece * 4, 10**7))
                if time_limit is not None:
                    left = time_limit - (time.perf_counter() - start)
                    piece = max(200, min(piece, int(piece * left / max(dt, 1e-3))))
    except KeyboardInterrupt:
        run.stopped = "interrupted"
    finally:
        if backend is not None:
            backend.__exit__(None, None, None)
        if client is not None:
            client.close()
    summarise()
    run.violations += run.violations_active
    return run

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
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Callable


from .._signals import local_workers_shielded, stop_local_workers, worker_ignores_signals
from .anneal import AnnealConfig, RestartState, new_restart, restart_instance, run_restart

__all__ = ["AnnealRun", "anneal"]

MAX_VIOLATION_INSTANCES = 10  # distinct violating instances kept for the record
ROUND_SECONDS_MAX = 4.0  # a round's deadline, in units of piece_seconds


@dataclass
class AnnealRun:
    """The outcome of :func:`anneal`.

    ``instance`` is the best family in the kernel's request order (for ``shortfall`` that
    order decides the "first" tie-breaking), ``num/den`` its exact objective.
    """

    config: AnnealConfig
    seed: int
    instance: object = None
    num: int = 0
    den: int = 1
    restart: int = -1
    evaluations: int = 0
    restarts_started: int = 0
    restarts_finished: int = 0
    steps: int = 0
    seconds: float = 0.0
    stopped: str = "steps"   # "steps", "time limit" or "interrupted"
    violations: int = 0      # over finished and running restarts
    violation_instances: list = field(default_factory=list)
    history: list = field(default_factory=list)  # (seconds, best value) at each improvement

    @property
    def value(self) -> float:
        return math.inf if self.den == 0 else self.num / self.den


def _run_piece(config: AnnealConfig, state: RestartState, nsteps: int, deadline: float = math.inf,
               cutoff: float = math.inf) -> RestartState:
    return run_restart(config, state, nsteps, deadline=deadline, cutoff=cutoff)


def _load(config: AnnealConfig, seed: int) -> int:
    """One step of a throwaway restart, at most about 2 s: a worker loads the compiled kernels
    from numba's cache (seconds on a loaded machine) before the clock of the time limit starts."""
    st = new_restart(config, seed, 0, 1)
    run_restart(config, st, 1, deadline=time.time() + 2.0, cutoff=time.time() + 2.0)
    return st.evaluations


def _better(a: RestartState, b: RestartState | None) -> bool:
    """a's best beats b's (exact fractions; ties to the lower restart index)."""
    if b is None:
        return True
    an, ad, bn, bd = a.best_num, a.best_den, b.best_num, b.best_den
    if ad == 0 or bd == 0:
        return ad == 0 and (bd != 0 or a.index < b.index)
    return an * bd > bn * ad or (an * bd == bn * ad and a.index < b.index)


class _Rounds:
    """The driver's bookkeeping: active restarts, the best so far, finished totals."""

    def __init__(self, config: AnnealConfig, seed: int, steps: int | None, jobs: int):
        self.config, self.seed, self.steps, self.jobs = config, seed, steps, jobs
        self.n_restarts = math.inf if steps is None else max(1, math.ceil(steps / config.restart_steps))
        self.run = AnnealRun(config, seed)
        self.start = time.perf_counter()
        self.best: RestartState | None = None
        self.active: list[RestartState] = []
        self.next_index = 0
        self.finished = {"evaluations": 0, "steps": 0, "violations": 0}

    def length(self, r: int) -> int:
        """Steps of restart r: restart_steps, the last one of a budget the remainder."""
        per = self.config.restart_steps
        return per if self.steps is None else min(per, self.steps - r * per)

    def refill(self) -> None:
        while len(self.active) < self.jobs and self.next_index < self.n_restarts:
            self.active.append(new_restart(self.config, self.seed, self.next_index,
                                           self.length(self.next_index)))
            self.next_index += 1

    def absorb(self, states) -> None:
        """Take back the states of a round: best, violations, finished restarts."""
        self.active.clear()
        for st in states:
            if st.evaluations > 0 and _better(st, self.best):
                improved = self.best is None or st.best_value > self.best.best_value
                self.best = st.copy()
                if improved:
                    self.run.history.append((time.perf_counter() - self.start, st.best_value))
            if st.violations:
                self._keep_violation(st)
            if st.done:
                for key in self.finished:
                    self.finished[key] += getattr(st, key if key != "steps" else "step")
                self.run.restarts_finished += 1
            else:
                self.active.append(st)

    def _keep_violation(self, st: RestartState) -> None:
        found = self.run.violation_instances
        if len(found) < MAX_VIOLATION_INSTANCES:
            inst = restart_instance(self.config, st.viol_req, int((st.viol_req != 0).sum()), st.viol_wts)
            if all(v.orders != inst.orders for v in found):
                found.append(inst)

    def summarise(self) -> AnnealRun:
        run = self.run
        run.seconds = time.perf_counter() - self.start
        run.restarts_started = self.next_index
        run.evaluations = self.finished["evaluations"] + sum(s.evaluations for s in self.active)
        run.steps = self.finished["steps"] + sum(s.step for s in self.active)
        run.violations = self.finished["violations"] + sum(s.violations for s in self.active)
        if self.best is not None:
            b = self.best
            run.num, run.den, run.restart = b.best_num, b.best_den, b.index
            run.instance = restart_instance(self.config, b.best_req, b.best_m, b.best_wts)
        return run


def _next_piece(piece: int, done: int, dt: float, piece_seconds: float, left: float | None) -> int:
    """Steps per restart in the next round (the last asked for ``piece`` and ran ``done`` in
    ``dt`` seconds), so that a round takes about piece_seconds (and fits the time left)."""
    rate = done / max(dt, 1e-3)  # steps per second of one restart in the last round
    nxt = int(min(max(rate * piece_seconds, 200), piece * 4, 10**7))
    if left is not None:
        # what fits in the time left at that rate, down to one step: a floor of 200 steps (a
        # second or more at m = 16) made -t 60 stop at 63 s
        nxt = max(1, min(nxt, int(rate * left)))
    return nxt


def _connect(scheduler: str | None, jobs: int | None):
    """(Dask client or None, number of restarts run at once)."""
    import joblib

    client = None
    if scheduler is not None:
        from distributed import Client  # noqa: F401 - registers joblib's dask backend

        client = Client(scheduler)
        if jobs is None:
            jobs = max(1, sum(client.nthreads().values()))
    if jobs is None:
        jobs = joblib.cpu_count()
    return client, max(1, int(jobs))


def _loop(rounds: _Rounds, par, local: bool, time_limit: float | None, piece_seconds: float,
          progress: Callable | None) -> None:
    """Run rounds until every restart is done or the time limit is crossed."""
    import joblib

    piece = 2000  # steps per restart per round, adapted to piece_seconds
    rounds.refill()
    if progress is not None:
        # once before the first round too: a Ctrl-C that landed while the restarts were set up
        # (numba loading a kernel can swallow its KeyboardInterrupt; the CLI's progress raises
        # it again) is seen now, not after a first round that takes seconds on a busy machine
        progress(rounds.summarise())
    while rounds.active:
        if time_limit is not None and time.perf_counter() - rounds.start >= time_limit:
            rounds.run.stopped = "time limit"
            return
        t = time.perf_counter()
        # a round ends after its piece of steps or at its deadline, whichever comes first: a
        # piece sized from the last round's rate can be far too long once a restart walks into
        # slow steps (dense families, large m), and the time limit and Ctrl-C are seen only
        # between rounds
        budget = ROUND_SECONDS_MAX * piece_seconds
        # the time limit also reaches inside an evaluation (a dense family's prefix-set search
        # on 8-10 chunks takes seconds to minutes): the step it cuts is not taken; without a
        # time limit every evaluation finishes, and the trajectories do not depend on the clock
        cutoff = math.inf
        if time_limit is not None:
            left = max(0.0, time_limit - (t - rounds.start))
            budget = min(budget, left)
            cutoff = time.time() + left
        deadline = time.time() + budget
        before = {st.index: st.step for st in rounds.active}
        if local:
            states = [_run_piece(rounds.config, st, piece, deadline, cutoff) for st in rounds.active]
        else:
            states = par(joblib.delayed(_run_piece)(rounds.config, st, piece, deadline, cutoff)
                         for st in rounds.active)
        dt = time.perf_counter() - t
        done = max((st.step - before.get(st.index, 0) for st in states), default=0)
        rounds.absorb(states)
        rounds.refill()
        run = rounds.summarise()
        if progress is not None:
            progress(run)
        left = None if time_limit is None else time_limit - (time.perf_counter() - rounds.start)
        piece = _next_piece(piece, max(done, 1), dt, piece_seconds, left)


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
    client, jobs = _connect(scheduler, jobs)
    rounds = _Rounds(config, seed, steps, jobs)
    backend = joblib.parallel_config(backend="dask") if client is not None else None
    try:
        if backend is not None:
            backend.__enter__()
        # Not joblib's managed ``with Parallel(...)``: on Ctrl-C it would kill the local workers
        # and start fresh ones, which the interpreter then waits for at exit (10-19 s). A plain Parallel called once per round kills them and starts none.
        kw = {} if client is not None else {"initializer": worker_ignores_signals}
        par = joblib.Parallel(n_jobs=jobs if client is None else -1, prefer=None, **kw)
        with local_workers_shielded() if client is None else nullcontext():
            if time_limit is not None and client is None and jobs > 1:
                # the workers load the kernels before the clock starts: with -t 10 -j 2 on 8
                # chunks the first round otherwise spent the whole limit loading them
                par(joblib.delayed(_load)(config, seed) for _ in range(jobs))
                rounds.start = time.perf_counter()
            _loop(rounds, par, jobs == 1 and client is None, time_limit, piece_seconds, progress)
    except KeyboardInterrupt:
        rounds.run.stopped = "interrupted"
    finally:
        if backend is not None:
            backend.__exit__(None, None, None)
        if client is not None:
            client.close()
        elif jobs != 1:
            stop_local_workers()
    return rounds.summarise()


"""The one way mptsearch makes and runs an OR-tools CP-SAT solver.

Every encoding (:mod:`.glob_cpsat`, :mod:`.orders_cpsat`, :mod:`.vertex_cover`) gets its
``CpSolver`` from :func:`cpsat_solver` and solves through :func:`cpsat_solve`, so that all of
them treat signals alike: CP-SAT's own SIGINT catching is off (``catch_sigint_signal``: on by
default, it turns Ctrl-C into a silent early stop that looks like the time limit, and leaves
SIGINT at the default action, so that the next Ctrl-C kills the process), and a
Ctrl-C or SIGTERM during a solve stops it at once and reaches the command
(:func:`mptsearch._signals.run_interruptibly`).
"""

from __future__ import annotations

import math

from .._signals import run_interruptibly

__all__ = ["cpsat_solver", "cpsat_solve"]


def cpsat_solver(time_limit: float, workers: int = 1, seed: int = 0, **params):
    """A ``CpSolver`` with ``max_time_in_seconds``, ``num_workers``, ``random_seed`` and any
    further ``params`` (fields of ``CpSolver.parameters``) set, and SIGINT left to Python.

    ``time_limit`` must be a positive finite number of seconds: CP-SAT reads NaN as "no
    limit", and a verdict must not come from a broken limit.
    """
    from ortools.sat.python import cp_model

    time_limit = float(time_limit)
    if not (math.isfinite(time_limit) and time_limit > 0):
        raise ValueError(f"a CP-SAT time limit must be a positive number of seconds, not {time_limit}")
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = time_limit
    solver.parameters.num_workers = int(workers)
    solver.parameters.random_seed = int(seed)
    solver.parameters.catch_sigint_signal = False
    for key, val in params.items():
        setattr(solver.parameters, key, val)
    return solver


def cpsat_solve(solver, model) -> int:
    """``solver.Solve(model)``, its status; Ctrl-C or SIGTERM meanwhile stops the search and
    raises in the caller (KeyboardInterrupt, or what the SIGTERM handler raises)."""
    return run_interruptibly(lambda: solver.Solve(model), solver.StopSearch, name="cpsat")

"""OPT_glob as a CP-SAT model (OR-tools), for any request size k.

Independent of the subset DP of :mod:`mptsearch.exact.glob`. The variables are a chunk order,
as precedence booleans ``before[a, c]`` ("a comes before c"; one boolean per unordered pair,
its negation for the reverse) made transitive by a clause per ordered triple. A chunk c,
placed after the chunks P before it, costs w(c) times the number of distinct histories
R_i ∩ P among the requests i in S_c (global orders: the paper, Section 4). Two requests i, j of S_c have
different histories iff some chunk of their symmetric difference comes before c, so with

    diff[c, i, j] >= before[d, c]          for every d in R_i Δ R_j,
    lead[c, j]    >= AND_{i < j in S_c} diff[c, i, j],

the number of histories is 1 + sum_j lead[c, j] (a request leads its class iff no earlier
request of S_c shares its history). Both constraints only push upwards, and the objective
sum_c w(c) (1 + sum_j lead[c, j]) pushes down, so at an optimum every count is exact.

Building the model (:func:`build_glob_model`) is separate from solving it
(:func:`solve_glob_cpsat`), which passes the solver parameters through.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..instance import Instance, InstanceError
from ._cpsat import cpsat_solve, cpsat_solver

__all__ = ["GlobModel", "GlobCpsatResult", "build_glob_model", "solve_glob_cpsat"]


@dataclass
class GlobModel:
    """A CP-SAT model of OPT_glob and its variable handles.

    Attributes
    ----------
    model : ortools.sat.python.cp_model.CpModel
    pair : dict
        ``pair[a, c]`` for a < c: the boolean "a before c".
    lead : dict
        ``lead[c, j]``: request j starts a new history class at chunk c.
    diff : dict
        ``diff[c, i, j]``: requests i and j of S_c differ before chunk c.
    constant : int
        The part of the objective fixed by the instance, sum_c w(c).
    """

    model: object
    pair: dict
    lead: dict = field(default_factory=dict)
    diff: dict = field(default_factory=dict)
    constant: int = 0

    def before(self, a: int, c: int):
        """The literal "chunk a comes before chunk c"."""
        return self.pair[a, c] if a < c else self.pair[c, a].Not()


@dataclass(frozen=True)
class GlobCpsatResult:
    """What CP-SAT found: ``value`` is the objective of its best order (an upper bound),
    ``bound`` its proven lower bound, ``optimal`` when they meet."""

    value: int | None
    order: list | None
    bound: int
    optimal: bool
    status: str
    seconds: float


def build_glob_model(inst: Instance, *, hint_order=None) -> GlobModel:
    """Build the CP-SAT model of OPT_glob (not solved).

    Parameters
    ----------
    inst : Instance
    hint_order : sequence of int, optional
        A global order to give the solver as a starting hint.

    Returns
    -------
    GlobModel

    Notes
    -----
    n(n-1)/2 order booleans and n(n-1)(n-2) transitivity clauses; sum_c |S_c|^2 / 2
    difference booleans with one implication per chunk of the symmetric difference.
    """
    from ortools.sat.python import cp_model

    n = inst.n
    model = cp_model.CpModel()
    pair = {(a, c): model.NewBoolVar(f"b{a}_{c}") for a in range(n) for c in range(a + 1, n)}
    gm = GlobModel(model, pair)
    # transitivity: a<b and b<c imply a<c; on a tournament this excludes every cycle
    for a in range(n):
        for b in range(n):
            if b == a:
                continue
            for c in range(n):
                if c == a or c == b:
                    continue
                model.AddBoolOr([gm.before(a, b).Not(), gm.before(b, c).Not(), gm.before(a, c)])
    masks = inst.request_masks()
    w = [int(v) for v in inst.weights]
    members = [[i for i in range(inst.m) if masks[i] >> c & 1] for c in range(n)]
    terms = []
    for c in range(n):
        S = members[c]
        for jj in range(1, len(S)):
            j = S[jj]
            diffs = []
            for i in S[:jj]:
                d = model.NewBoolVar(f"d{c}_{i}_{j}")
                gm.diff[c, i, j] = d
                delta = masks[i] ^ masks[j]
                x = 0
                while delta:
                    if delta & 1:
                        model.AddImplication(gm.before(x, c), d)
                    delta >>= 1
                    x += 1
                diffs.append(d)
            lead = model.NewBoolVar(f"l{c}_{j}")
            gm.lead[c, j] = lead
            model.AddBoolOr([lead] + [d.Not() for d in diffs])
            terms.append((w[c], lead))
    gm.constant = sum(w)
    model.Minimize(sum(coef * v for coef, v in terms) + gm.constant)
    if hint_order is not None:
        rank = {int(x): r for r, x in enumerate(hint_order)}
        if sorted(rank) != list(range(n)):
            raise InstanceError(f"hint order must list each of the {n} chunk ids once")
        for (a, c), v in pair.items():
            model.AddHint(v, rank[a] < rank[c])
    return gm


def solve_glob_cpsat(inst: Instance, *, time_limit: float = 10.0, workers: int = 1, seed: int = 0,
                     hint_order=None, model: GlobModel | None = None, **params) -> GlobCpsatResult:
    """Solve the OPT_glob model with CP-SAT.

    Parameters
    ----------
    inst : Instance
    time_limit : float
        Seconds (``max_time_in_seconds``).
    workers : int
        ``num_workers``; 1 gives a deterministic search.
    seed : int
        ``random_seed``.
    hint_order : sequence of int, optional
    model : GlobModel, optional
        A model already built by :func:`build_glob_model`.
    **params
        Any further ``CpSolver.parameters`` fields.

    Returns
    -------
    GlobCpsatResult
        The order read from the booleans (chunks sorted by their number of predecessors).
    """
    from ortools.sat.python import cp_model

    gm = model if model is not None else build_glob_model(inst, hint_order=hint_order)
    solver = cpsat_solver(time_limit, workers, seed, **params)
    t0 = time.perf_counter()
    status = cpsat_solve(solver, gm.model)
    secs = time.perf_counter() - t0
    name = solver.StatusName(status)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return GlobCpsatResult(None, None, int(solver.BestObjectiveBound()) if status == cp_model.UNKNOWN else 0,
                               False, name, secs)
    n = inst.n
    preds = [sum(1 for a in range(n) if a != c and solver.BooleanValue(gm.before(a, c))) for c in range(n)]
    order = sorted(range(n), key=preds.__getitem__)
    value = int(round(solver.ObjectiveValue()))
    bound = int(round(solver.BestObjectiveBound()))
    return GlobCpsatResult(value, order, bound, status == cp_model.OPTIMAL, name, secs)

"""Simulated annealing over families of requests, maximising OPT_glob/OPT_free, the
shortfall of agglomerative clustering (the paper's Section 6 and open problem 1, claims C4 and
C9), a heuristic's cost / OPT_free (open problem 2) or the online layouter's cost / OPT_free
over arrival orders (open problem 3).

The search space is a :class:`~mptsearch.classes.FamilyClass`: a family of m distinct
requests on a universe of n chunks, each request of size in [k_lo, k_hi], m in [m_lo, m_hi],
integer chunk weights in [w_lo, w_hi]. Objectives:

- ``ratio`` = OPT_glob / OPT_free, both exact (paper's open problem 1: the best ratios found
  were 1.20 at k=3 and 1.50 at k=4);
- ``shortfall`` = optimal savings / savings of agglomerative clustering with deterministic
  "first" tie-breaking (Theorem 6 proves it is at most 2; the paper's annealed worst is 1.83);
- ``cost-ratio`` = trie cost of a registered heuristic's layout / OPT_free
  (:mod:`mptsearch.heuristics.registry`);
- ``online`` = trie cost of the layout :class:`~mptsearch.serving.online.OnlineLayouter`
  with window W commits for the requests in arrival order / OPT_free;
- ``blend`` = OPT_free / w(U): families where blending cached chunk copies gains most over
  prefix-only layouts (docs/beyond_prefix.md, P2 and P5).

Moves: swap one chunk of a request, replace a request, add or drop a request (when m may
move), change one chunk's weight (when weights may vary), and for the two ordered objectives
(``cost-ratio``, ``online``: request order decides agglomerative's "first" ties and the
arrival order) exchange two requests' positions. Acceptance is Metropolis on the
objective with a geometric temperature schedule from ``t_start`` to ``t_end`` over one
restart's steps; the temperature depends only on the step index, so a restart run in pieces
(chunks of steps) gives the same trajectory as in one go. The whole step loop (move, both
exact evaluations, acceptance, best tracking) is one compiled kernel
(:func:`mptsearch.search.steps.anneal_steps`); its random numbers come from a splitmix64
generator whose state travels with the restart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .._kernels.workspace import Workspace, workspace
from ..classes import FamilyClass
from .objective import OBJECTIVES

__all__ = ["default_requests", "DEFAULT_M_WIDE", "AnnealConfig", "Params", "COUNTERS", "RestartState", "OBJECTIVES", "PERMUTE",
           "new_restart", "run_restart", "restart_instance", "restart_seed", "make_workspace"]

# probability of the order-exchange move per objective (0: unordered, trajectories unchanged)
PERMUTE = {"ratio": 0.0, "shortfall": 0.0, "cost-ratio": 0.1, "online": 0.2, "blend": 0.0}
MAX_N = 20   # OPT_glob is O(2^n) per step
MAX_M = 16   # OPT_free is O(3^m) per step (but see max_requests)


class Params(NamedTuple):
    """What the compiled step loop reads of an :class:`AnnealConfig` (m_hi already capped by
    the number of distinct requests; objective as its index in :data:`OBJECTIVES`)."""

    n: int
    k_lo: int
    k_hi: int
    m_lo: int
    m_hi: int
    w_lo: int
    w_hi: int
    objective: int
    check: bool
    t_start: float
    t_end: float
    heuristic: int   # kernel code of the cost-ratio heuristic
    window: int      # W of the online objective
    permute: float   # probability of the order-exchange move


# The counters of one restart: one record, updated in place by the compiled loop.
COUNTERS = np.dtype([("m", np.int64), ("best_m", np.int64), ("step", np.int64),
                     ("evaluations", np.int64), ("violations", np.int64), ("accepted", np.int64),
                     ("num", np.int64), ("den", np.int64), ("best_num", np.int64),
                     ("best_den", np.int64), ("length", np.int64)])


DEFAULT_M_NARROW = 10  # even restarts keep the former default range m <= 10 (see m_alternate)


def max_requests(n: int, weights: tuple = (1, 1), k_hi: int | None = None) -> int:
    """MAX_M, or no cap where OPT_free comes from the prefix-set search, whose cost grows
    with the universe instead of 3^m: unit weights on <= 7 chunks, or on 8-10 chunks with
    requests of at most WIDE_K chunks (measured there: docs/exact.md; past m = MAX_M the
    wide search replaces the DP in the step kernel)."""
    from ..exact.prefix_sets import MAX_N, NARROW_N, WIDE_K
    if tuple(weights) != (1, 1):
        return MAX_M
    if n <= NARROW_N or (n <= MAX_N and k_hi is not None and k_hi <= WIDE_K):
        return 1 << 30
    return MAX_M


#: The default largest m on 8-10 chunks with unit weights (where no m limit applies): the
#: largest m at which one evaluation of a random family (4-uniform, and of requests of 2-4
#: chunks) takes at most 10 ms of CPU in the median and 500 ms at the slowest of 9, at that
#: m and every m below it (benchmarks/bench_anneal_wide.py, its --summary, and
#: benchmarks/results/anneal_wide.json). Past it the prefix-set search's time climbs steeply
#: (0.5-1.2 s in the median at m = 48-56 on 8 chunks, 4-uniform), and a minute's search would
#: make a few dozen steps.
DEFAULT_M_WIDE = {8: 28, 9: 17, 10: 16}


def default_requests(n: int, k: tuple, weights: tuple = (1, 1)) -> tuple[int, int]:
    """The default range of m: every count the class allows, from 3 up to the distinct
    requests that exist, capped at :func:`max_requests` and, on 8-10 chunks, at
    :data:`DEFAULT_M_WIDE` (what an evaluation there affords). The add/drop moves then walk over m, so the search
    reaches optima at large m (k=3 on 6 chunks: 23/18 at m=12) that a fixed 3-10 excludes.
    The CLI pairs it with ``m_alternate = DEFAULT_M_NARROW``: every other restart searches
    the former range only, so optima at small m come as fast as before."""
    cap = sum(math.comb(n, s) for s in range(k[0], k[1] + 1)) if 1 <= k[0] <= k[1] <= n else 0
    top = min(max_requests(n, weights, k[1]), DEFAULT_M_WIDE.get(n, 1 << 30))
    return min(3, max(cap, 1)), max(1, min(top, cap))


@dataclass(frozen=True)
class AnnealConfig:
    """What one restart searches and how.

    Attributes
    ----------
    n : int
        Chunks in the universe (labels 0..n-1).
    k, m, weights : (lo, hi)
        Inclusive ranges of request size, number of requests and chunk weight.
    objective : {"ratio", "shortfall", "cost-ratio", "online", "blend"}
    heuristic : str
        For ``cost-ratio``: a searchable name of :mod:`mptsearch.heuristics.registry`.
    window : int
        For ``online``: the layouter's window W (batch of arrivals laid out together).
    restart_steps : int
        Steps per restart (the temperature goes from t_start to t_end over them).
    t_start, t_end : float
        Temperatures, in units of the objective (a ratio).
    check : bool
        Also count every evaluated instance whose agglomerative savings fall below half the
        optimum (Theorem 6 says none does); costs one agglomerative run per step for ``ratio``.
    m_alternate : int, optional
        A schedule over m: restarts with an even index search m in [m_lo, m_alternate] only,
        odd ones the whole range (None: every restart the whole range). Steps at large m
        cost O(3^m), so the narrow restarts keep the search at small m as fast as before.
    """

    n: int
    k: tuple
    m: tuple
    weights: tuple = (1, 1)
    objective: str = "ratio"
    restart_steps: int = 200_000
    t_start: float = 0.05
    t_end: float = 0.002
    check: bool = False
    m_alternate: int | None = None
    heuristic: str = "greedy"
    window: int = 1

    @property
    def family(self) -> FamilyClass:
        """The class of families searched."""
        return FamilyClass.of(self.n, self.k, self.m, self.weights)

    def validate(self) -> "AnnealConfig":
        """Raise :class:`~mptsearch.instance.InstanceError` (one line) on an unusable config."""
        from ..instance import InstanceError

        n, (mlo, mhi), (wlo, whi) = self.n, self.m, self.weights
        if not 2 <= n <= MAX_N:
            raise InstanceError(f"--chunks must be between 2 and {MAX_N} (OPT_glob is O(2^n) per step), got {n}")
        if self.m_alternate is not None and self.m_alternate < mlo:
            raise InstanceError(f"the narrow request count bound {self.m_alternate} is below the range {mlo}-{mhi}")
        if mhi > max_requests(n, self.weights, self.k[1]):
            raise InstanceError(f"at most {MAX_M} requests (OPT_free is O(3^m) per step; unlimited for "
                                f"unit weights on <= 7 chunks, or on <= 10 chunks with requests of "
                                f"<= 5 chunks), got {mhi}")
        if not 1 <= mlo <= mhi:
            raise InstanceError(f"request count range {mlo}-{mhi} is empty")
        if not 1 <= wlo <= whi or whi > 10**6:
            raise InstanceError(f"weight range {wlo}-{whi} must be integers with 1 <= lo <= hi <= 10^6")
        problems = self.family.problems()  # the request sizes and their number
        if problems:
            raise InstanceError(problems[0])
        if self.objective not in OBJECTIVES:
            raise InstanceError(f"unknown objective {self.objective!r}; use one of {', '.join(OBJECTIVES)}")
        if self.objective == "cost-ratio":
            from ..heuristics.registry import heuristic, searchable

            if heuristic(self.heuristic).kernel is None:
                raise InstanceError(f"heuristic {self.heuristic!r} has no compiled twin to search with; "
                                    f"searchable: {', '.join(searchable())}")
        if self.window < 1:
            raise InstanceError(f"--window must be >= 1, got {self.window}")
        if self.restart_steps < 1:
            raise InstanceError("steps per restart must be positive")
        if not (self.t_start > 0 and self.t_end > 0):
            raise InstanceError("temperatures must be positive")
        return self

    def capacity(self) -> int:
        """Number of distinct requests of an allowed size."""
        return self.family.capacity

    @property
    def m_max(self) -> int:
        return self.family.m_top

    def dp_dtype(self):
        from ..exact.free import dp_dtype
        return dp_dtype(self.m_max * self.k[1] * self.weights[1])

    def params(self, index: int | None = None) -> Params:
        """What the step loop reads, for restart ``index`` (its m range follows
        ``m_alternate``: even restarts keep to m <= m_alternate)."""
        m_hi = self.m_max
        if self.m_alternate is not None and index is not None and index % 2 == 0:
            m_hi = min(m_hi, self.m_alternate)
        code = 0
        if self.objective == "cost-ratio":
            from ..heuristics.registry import heuristic

            code = heuristic(self.heuristic).kernel
        return Params(self.n, self.k[0], self.k[1], self.m[0], m_hi, self.weights[0],
                      self.weights[1], OBJECTIVES.index(self.objective), bool(self.check),
                      float(self.t_start), float(self.t_end), int(code), int(self.window),
                      float(PERMUTE[self.objective]))


@dataclass
class RestartState:
    """Everything a restart carries between pieces: picklable, so it can go to a worker.

    The counters (``m``, ``best_m``, ``step``, ``evaluations``, ``violations``, ``accepted``,
    ``num``/``den`` of the current objective, ``best_num``/``best_den``, ``length``) are
    one :data:`COUNTERS` record, readable as attributes of the state."""

    index: int
    req: np.ndarray        # uint64[m_max], current requests req[:m]
    wts: np.ndarray        # int64[n]
    best_req: np.ndarray
    best_wts: np.ndarray
    counters: np.ndarray   # COUNTERS[1]
    rng: np.ndarray        # uint64[1], splitmix64 state
    viol_req: np.ndarray   # first instance violating the 1/2 bound (check mode), if any
    viol_wts: np.ndarray

    def __getattr__(self, name):
        # only reached for names that are not fields: the counters
        if name in COUNTERS.names:
            return int(self.counters[0][name])
        raise AttributeError(name)

    @property
    def done(self) -> bool:
        return self.step >= self.length

    @property
    def best_value(self) -> float:
        return math.inf if self.best_den == 0 else self.best_num / self.best_den

    def copy(self) -> "RestartState":
        return RestartState(self.index, *(a.copy() for a in (
            self.req, self.wts, self.best_req, self.best_wts, self.counters, self.rng,
            self.viol_req, self.viol_wts)))


def restart_seed(seed: int, index: int) -> int:
    """The generator state of restart ``index``: derived from (seed, index) alone, so a
    restart's trajectory does not depend on which worker runs it or when."""
    ss = np.random.SeedSequence(entropy=int(seed), spawn_key=(int(index),))
    return int(ss.generate_state(1, dtype=np.uint64)[0])


def new_restart(config: AnnealConfig, seed: int, index: int, length: int | None = None) -> RestartState:
    """Restart ``index`` of run ``seed``: a random start, not yet evaluated."""
    from .steps import init_family

    n, mm = config.n, config.m_max
    rng = np.array([restart_seed(seed, index)], dtype=np.uint64)
    req = np.zeros(mm, dtype=np.uint64)
    wts = np.zeros(n, dtype=np.int64)
    counters = np.zeros(1, dtype=COUNTERS)
    counters[0]["m"] = init_family(config.params(index), req, wts, rng)
    counters[0]["length"] = config.restart_steps if length is None else length
    return RestartState(index, req, wts, req.copy(), wts.copy(), counters, rng,
                        np.zeros(mm, dtype=np.uint64), np.zeros(n, dtype=np.int64))


def make_workspace(config: AnnealConfig) -> Workspace:
    """The buffers of one worker for ``config``'s families."""
    return workspace(config.n, config.m_max, config.dp_dtype(), table_m=min(config.m_max, MAX_M))


def run_restart(config: AnnealConfig, state: RestartState, nsteps: int,
                workspace: Workspace | None = None, deadline: float = math.inf,
                cutoff: float = math.inf) -> RestartState:
    """Advance ``state`` by up to ``nsteps`` steps (in place; returned for use in workers),
    stopping early once ``time.time()`` passes ``deadline`` (the same trajectory either way:
    the next call resumes it). ``cutoff`` stops an evaluation from the inside
    (the prefix-set search on 8-10 chunks, whose time on dense families reaches minutes); the
    step it cut is not taken, so a resumed call takes it again.

    Runs the steps of move + OPT_free + OPT_glob (or agglomerative) + Metropolis in
    one compiled call: O(nsteps (3^m + 2^n (n + m))) time.
    """
    from .steps import anneal_steps

    ws = workspace if workspace is not None else make_workspace(config)
    anneal_steps(config.params(state.index), state.req, state.wts, state.best_req, state.best_wts,
                 state.counters, state.rng, state.viol_req, state.viol_wts, ws, int(nsteps), float(deadline),
                 float(cutoff))
    return state


def restart_instance(config: AnnealConfig, req, m: int, wts):
    """The instance of requests ``req[:m]`` (chunk bitmasks, in the kernel's request order)."""
    from ..instance import from_lists

    reqs = [[x for x in range(config.n) if int(r) >> x & 1] for r in req[:m]]
    used = sorted({x for r in reqs for x in r})
    return from_lists(reqs, {x: int(wts[x]) for x in used})

"""Simulated annealing over families of requests, maximising OPT_glob/OPT_free or the
shortfall of agglomerative clustering (SPEC claims C4 and C9).

The search space is a family of m distinct requests on a universe of n chunks, each request of
size in [k_lo, k_hi], m in [m_lo, m_hi], integer chunk weights in [w_lo, w_hi]. Objectives:

- ``ratio`` = OPT_glob / OPT_free, both exact (paper's open problem 1: the best ratios found
  were 1.20 at k=3 and 1.50 at k=4);
- ``shortfall`` = optimal savings / savings of agglomerative clustering with deterministic
  "first" tie-breaking (Theorem 6 proves it is at most 2; the paper's annealed worst is 1.83).

Moves: swap one chunk of a request, replace a request, add or drop a request (when m may
move), change one chunk's weight (when weights may vary). Acceptance is Metropolis on the
objective with a geometric temperature schedule from ``t_start`` to ``t_end`` over one
restart's steps; the temperature depends only on the step index, so a restart run in pieces
(chunks of steps) gives the same trajectory as in one go. The whole step loop (move, both
exact evaluations, acceptance, best tracking) is one compiled kernel; its random numbers come
from a splitmix64 generator whose state travels with the restart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from .._bits import popcount
from .._kernels.workspace import Workspace, workspace
from .objective import objective

__all__ = ["AnnealConfig", "RestartState", "OBJECTIVES", "new_restart", "run_restart",
           "restart_instance", "restart_seed", "make_workspace"]

OBJECTIVES = ("ratio", "shortfall")
MAX_N = 20   # OPT_glob is O(2^n) per step
MAX_M = 16   # OPT_free is O(3^m) per step

# indices into RestartState.ints
I_M, I_BEST_M, I_STEP, I_EVALS, I_VIOL, I_ACC, I_NUM, I_DEN, I_BNUM, I_BDEN, I_LEN = range(11)
# indices into iparams
P_N, P_KLO, P_KHI, P_MLO, P_MHI, P_WLO, P_WHI, P_OBJ, P_CHECK = range(9)


@dataclass(frozen=True)
class AnnealConfig:
    """What one restart searches and how.

    Attributes
    ----------
    n : int
        Chunks in the universe (labels 0..n-1).
    k, m, weights : (lo, hi)
        Inclusive ranges of request size, number of requests and chunk weight.
    objective : {"ratio", "shortfall"}
    restart_steps : int
        Steps per restart (the temperature goes from t_start to t_end over them).
    t_start, t_end : float
        Temperatures, in units of the objective (a ratio).
    check : bool
        Also count every evaluated instance whose agglomerative savings fall below half the
        optimum (Theorem 6 says none does); costs one agglomerative run per step for ``ratio``.
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

    def validate(self) -> "AnnealConfig":
        """Raise :class:`~mptsearch.instance.InstanceError` (one line) on an unusable config."""
        from ..instance import InstanceError

        n, (klo, khi), (mlo, mhi), (wlo, whi) = self.n, self.k, self.m, self.weights
        if not 2 <= n <= MAX_N:
            raise InstanceError(f"--chunks must be between 2 and {MAX_N} (OPT_glob is O(2^n) per step), got {n}")
        if not 1 <= klo <= khi <= n:
            raise InstanceError(f"request size {klo}-{khi} does not fit a universe of {n} chunks")
        cap = self.capacity()
        if not 1 <= mlo <= mhi:
            raise InstanceError(f"request count range {mlo}-{mhi} is empty")
        if mhi > MAX_M:
            raise InstanceError(f"at most {MAX_M} requests (OPT_free is O(3^m) per step), got {mhi}")
        if mlo > cap:
            raise InstanceError(f"only {cap} distinct requests of size {klo}-{khi} exist on {n} chunks, asked for {mlo}")
        if not 1 <= wlo <= whi or whi > 10**6:
            raise InstanceError(f"weight range {wlo}-{whi} must be integers with 1 <= lo <= hi <= 10^6")
        if self.objective not in OBJECTIVES:
            raise InstanceError(f"unknown objective {self.objective!r}; use one of {', '.join(OBJECTIVES)}")
        if self.restart_steps < 1:
            raise InstanceError("steps per restart must be positive")
        if not (self.t_start > 0 and self.t_end > 0):
            raise InstanceError("temperatures must be positive")
        return self

    def capacity(self) -> int:
        """Number of distinct requests of an allowed size."""
        return sum(math.comb(self.n, s) for s in range(self.k[0], self.k[1] + 1))

    @property
    def m_max(self) -> int:
        return min(self.m[1], self.capacity())

    def dp_dtype(self):
        from ..exact.free import dp_dtype
        return dp_dtype(self.m_max * self.k[1] * self.weights[1])

    def iparams(self) -> np.ndarray:
        return np.array([self.n, self.k[0], self.k[1], self.m[0], self.m_max, self.weights[0],
                         self.weights[1], OBJECTIVES.index(self.objective), int(self.check)],
                        dtype=np.int64)

    def fparams(self) -> np.ndarray:
        return np.array([self.t_start, self.t_end], dtype=np.float64)


@dataclass
class RestartState:
    """Everything a restart carries between pieces: picklable, so it can go to a worker."""

    index: int
    req: np.ndarray        # uint64[m_max], current requests req[:m]
    wts: np.ndarray        # int64[n]
    best_req: np.ndarray
    best_wts: np.ndarray
    ints: np.ndarray       # int64, see I_* (step, evaluations, objective num/den, ...)
    rng: np.ndarray        # uint64[1], splitmix64 state
    viol_req: np.ndarray   # first instance violating the 1/2 bound (check mode), if any
    viol_wts: np.ndarray

    @property
    def done(self) -> bool:
        return self.ints[I_STEP] >= self.ints[I_LEN]

    @property
    def best_value(self) -> float:
        num, den = int(self.ints[I_BNUM]), int(self.ints[I_BDEN])
        return math.inf if den == 0 else num / den


# ---- compiled kernel ---------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _next(rng):
    """splitmix64: advance the state, return 64 well-mixed bits."""
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def _below(rng, k):
    """Uniform integer in [0, k)."""
    return np.int64((_next(rng) >> np.uint64(11)) % np.uint64(k))


@njit(cache=True, inline="always")
def _uniform(rng):
    return np.float64(_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _random_request(rng, n, klo, khi):
    size = klo + _below(rng, khi - klo + 1)
    r = np.uint64(0)
    while popcount(r) < size:
        r |= np.uint64(1) << np.uint64(_below(rng, n))
    return r


@njit(cache=True)
def _present(req, m, r, skip):
    for j in range(m):
        if j != skip and req[j] == r:
            return True
    return False


@njit(cache=True)
def _init_state(ip, req, wts, rng):
    """A random starting family: m uniform in [m_lo, m_max], distinct random requests."""
    n, klo, khi, mlo, mhi, wlo, whi = ip[P_N], ip[P_KLO], ip[P_KHI], ip[P_MLO], ip[P_MHI], ip[P_WLO], ip[P_WHI]
    m = mlo + _below(rng, mhi - mlo + 1)
    for i in range(m):
        while True:
            r = _random_request(rng, n, klo, khi)
            if not _present(req, i, r, -1):
                break
        req[i] = r
    for x in range(n):
        wts[x] = wlo + _below(rng, whi - wlo + 1)
    return m


@njit(cache=True)
def _better(a_num, a_den, b_num, b_den):
    """a > b as fractions with nonnegative parts (den 0 = infinity)."""
    if a_den == 0:
        return b_den != 0
    if b_den == 0:
        return False
    return a_num * b_den > b_num * a_den


@njit(cache=True, nogil=True)
def _anneal_steps(ip, fp, req, wts, best_req, best_wts, ints, rng, viol_req, viol_wts,
                  ws, nsteps):
    """Run ``nsteps`` annealing steps of one restart (fewer if it ends), in place."""
    n, klo, khi, mlo, mhi, wlo, whi = ip[P_N], ip[P_KLO], ip[P_KHI], ip[P_MLO], ip[P_MHI], ip[P_WLO], ip[P_WHI]
    t0, t1 = fp[0], fp[1]
    unit = whi == 1
    length = ints[I_LEN]
    out = np.zeros(3, dtype=np.int64)
    m = ints[I_M]
    if ints[I_STEP] == 0 and ints[I_EVALS] == 0:  # first piece: evaluate the start
        out[0], out[1], out[2] = objective(req, m, n, wts, unit, ip[P_OBJ], ip[P_CHECK], ws)
        ints[I_EVALS] += 1
        ints[I_NUM] = out[0]
        ints[I_DEN] = out[1]
        ints[I_BNUM] = out[0]
        ints[I_BDEN] = out[1]
        ints[I_BEST_M] = m
        best_req[:] = req
        best_wts[:] = wts
    cur = ints[I_NUM] / ints[I_DEN] if ints[I_DEN] else np.inf
    can_size = mhi > mlo
    can_weight = whi > wlo
    stop = min(length, ints[I_STEP] + nsteps)
    step = ints[I_STEP]
    while step < stop:
        step += 1
        temp = t0 * (t1 / t0) ** ((step - 1) / length)
        # ---- propose a move (kind, undo data) ----
        u = _uniform(rng)
        kind = 0
        if can_weight and u < 0.15:
            kind = 4
        elif can_size and u < 0.35:
            kind = 2 if _below(rng, 2) == 0 else 3
        elif u < 0.75:
            kind = 0
        else:
            kind = 1
        i = 0
        old = np.uint64(0)
        oldw = np.int64(0)
        if kind == 0 or kind == 1:  # swap a chunk / replace a request
            i = _below(rng, m)
            old = req[i]
            if kind == 0:
                if popcount(old) == n:
                    continue
                r = old
                while True:
                    x = np.uint64(_below(rng, n))
                    if old >> x & np.uint64(1):
                        break
                while True:
                    y = np.uint64(_below(rng, n))
                    if not old >> y & np.uint64(1):
                        break
                r = (old & ~(np.uint64(1) << x)) | (np.uint64(1) << y)
            else:
                r = _random_request(rng, n, klo, khi)
            if r == old or _present(req, m, r, i):
                continue
            req[i] = r
        elif kind == 2:  # add
            if m >= mhi:
                continue
            r = _random_request(rng, n, klo, khi)
            if _present(req, m, r, -1):
                continue
            req[m] = r
            m += 1
        elif kind == 3:  # drop: the last request moves into the hole
            if m <= mlo:
                continue
            i = _below(rng, m)
            old = req[i]
            req[i] = req[m - 1]
            m -= 1
        else:  # weight
            i = _below(rng, n)
            oldw = wts[i]
            nw = wlo + _below(rng, whi - wlo)
            if nw >= oldw:
                nw += 1
            wts[i] = nw
        # ---- evaluate and accept ----
        out[0], out[1], out[2] = objective(req, m, n, wts, unit, ip[P_OBJ], ip[P_CHECK], ws)
        ints[I_EVALS] += 1
        if out[2]:
            if ints[I_VIOL] == 0:
                viol_req[:] = 0
                viol_req[:m] = req[:m]
                viol_wts[:] = wts
            ints[I_VIOL] += 1
        new = out[0] / out[1] if out[1] else np.inf
        if new >= cur or _uniform(rng) < np.exp((new - cur) / temp):
            cur = new
            ints[I_NUM] = out[0]
            ints[I_DEN] = out[1]
            ints[I_ACC] += 1
            if _better(out[0], out[1], ints[I_BNUM], ints[I_BDEN]):
                ints[I_BNUM] = out[0]
                ints[I_BDEN] = out[1]
                ints[I_BEST_M] = m
                best_req[:] = 0
                best_req[:m] = req[:m]
                best_wts[:] = wts
        else:  # undo
            if kind == 0 or kind == 1:
                req[i] = old
            elif kind == 2:
                m -= 1
            elif kind == 3:
                m += 1
                req[m - 1] = req[i]
                req[i] = old
            else:
                wts[i] = oldw
    ints[I_STEP] = step
    ints[I_M] = m


# ---- Python side -------------------------------------------------------------------------------

def restart_seed(seed: int, index: int) -> int:
    """The generator state of restart ``index``: derived from (seed, index) alone, so a
    restart's trajectory does not depend on which worker runs it or when."""
    ss = np.random.SeedSequence(entropy=int(seed), spawn_key=(int(index),))
    return int(ss.generate_state(1, dtype=np.uint64)[0])


def new_restart(config: AnnealConfig, seed: int, index: int, length: int | None = None) -> RestartState:
    """Restart ``index`` of run ``seed``: a random start, not yet evaluated."""
    n, mm = config.n, config.m_max
    rng = np.array([restart_seed(seed, index)], dtype=np.uint64)
    req = np.zeros(mm, dtype=np.uint64)
    wts = np.zeros(n, dtype=np.int64)
    m = _init_state(config.iparams(), req, wts, rng)
    ints = np.zeros(11, dtype=np.int64)
    ints[I_M] = m
    ints[I_LEN] = config.restart_steps if length is None else length
    return RestartState(index, req, wts, req.copy(), wts.copy(), ints, rng,
                        np.zeros(mm, dtype=np.uint64), np.zeros(n, dtype=np.int64))


def make_workspace(config: AnnealConfig) -> Workspace:
    """The buffers of one worker for ``config``'s families."""
    return workspace(config.n, config.m_max, config.dp_dtype())


def run_restart(config: AnnealConfig, state: RestartState, nsteps: int,
                workspace: Workspace | None = None) -> RestartState:
    """Advance ``state`` by up to ``nsteps`` steps (in place; returned for use in workers).

    Runs ``nsteps`` steps of move + OPT_free + OPT_glob (or agglomerative) + Metropolis in
    one compiled call: O(nsteps (3^m + 2^n (n + m))) time.
    """
    ws = workspace if workspace is not None else make_workspace(config)
    _anneal_steps(config.iparams(), config.fparams(), state.req, state.wts, state.best_req,
                  state.best_wts, state.ints, state.rng, state.viol_req, state.viol_wts,
                  ws, int(nsteps))
    return state


def restart_instance(config: AnnealConfig, req, m: int, wts):
    """The instance of requests ``req[:m]`` (chunk bitmasks, in the kernel's request order)."""
    from ..instance import from_lists

    reqs = [[x for x in range(config.n) if int(r) >> x & 1] for r in req[:m]]
    used = sorted({x for r in reqs for x in r})
    return from_lists(reqs, {x: int(wts[x]) for x in used})

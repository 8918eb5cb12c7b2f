"""The annealer's compiled step loop: random numbers, moves, evaluation, Metropolis, best
tracking, all in one call per piece of steps (private; driven by :mod:`.anneal`).

Its inputs are typed: the parameters are a :class:`~mptsearch.search.anneal.Params` named
tuple, the counters one record of :data:`~mptsearch.search.anneal.COUNTERS` (a structured
array, written in place), the buffers a :class:`~mptsearch._kernels.workspace.Workspace`.
"""

import warnings

import numpy as np
from numba.core.errors import NumbaWarning

from .._jit import njit

from .._bits import popcount
from .._kernels.arrays import copy_into
from .._kernels.halt import arm, clock, unfinished
from .objective import OBJECTIVES, RATIO, objective_other, objective_ratio

__all__ = ["anneal_steps", "init_family"]

# the clock is read in object mode, which numba notes at compile time: the loop still runs
# without the GIL between readings
warnings.filterwarnings("ignore", message="Code running in object mode", category=NumbaWarning)

SKIP, SWAP, REPLACE, ADD, DROP, WEIGHT, ORDER = -1, 0, 1, 2, 3, 4, 5  # move kinds


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
    """A uniform size in [klo, khi], then random chunks until the request has that many."""
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
def init_family(p, req, wts, rng):
    """A random starting family: m uniform in [m_lo, m_hi], distinct random requests."""
    m = p.m_lo + _below(rng, p.m_hi - p.m_lo + 1)
    for i in range(m):
        while True:
            r = _random_request(rng, p.n, p.k_lo, p.k_hi)
            if not _present(req, i, r, -1):
                break
        req[i] = r
    for x in range(p.n):
        wts[x] = p.w_lo + _below(rng, p.w_hi - p.w_lo + 1)
    return m


@njit(cache=True)
def _swapped_chunk(rng, n, old):
    """``old`` with one of its chunks replaced by a chunk it lacks (old is not full)."""
    while True:
        x = np.uint64(_below(rng, n))
        if old >> x & np.uint64(1):
            break
    while True:
        y = np.uint64(_below(rng, n))
        if not old >> y & np.uint64(1):
            break
    return (old & ~(np.uint64(1) << x)) | (np.uint64(1) << y)


@njit(cache=True)
def _propose(p, req, wts, m, rng):
    """Apply one random move in place. Returns (kind, i, old request, old weight, new m);
    kind is SKIP when the move would change nothing or duplicate a request. With
    ``p.permute`` > 0 (objectives on an ordered family) a first draw picks, with that
    probability, an exchange of two requests' positions; without it the random numbers drawn
    are those of the unordered objectives, whose trajectories stay as they were."""
    if p.permute > 0.0 and _uniform(rng) < p.permute:
        if m < 2:
            return SKIP, 0, np.uint64(0), np.int64(0), m
        i = _below(rng, m)
        j = _below(rng, m - 1)
        if j >= i:
            j += 1
        t = req[i]
        req[i] = req[j]
        req[j] = t
        return ORDER, i, np.uint64(0), np.int64(j), m
    u = _uniform(rng)
    if p.w_hi > p.w_lo and u < 0.15:
        kind = WEIGHT
    elif p.m_hi > p.m_lo and u < 0.35:
        kind = ADD if _below(rng, 2) == 0 else DROP
    elif u < 0.75:
        kind = SWAP
    else:
        kind = REPLACE
    i = np.int64(0)
    old = np.uint64(0)
    oldw = np.int64(0)
    if kind == SWAP or kind == REPLACE:
        i = _below(rng, m)
        old = req[i]
        if kind == SWAP:
            if popcount(old) == p.n:
                return SKIP, i, old, oldw, m
            r = _swapped_chunk(rng, p.n, old)
        else:
            r = _random_request(rng, p.n, p.k_lo, p.k_hi)
        if r == old or _present(req, m, r, i):
            return SKIP, i, old, oldw, m
        req[i] = r
    elif kind == ADD:
        if m >= p.m_hi:
            return SKIP, i, old, oldw, m
        r = _random_request(rng, p.n, p.k_lo, p.k_hi)
        if _present(req, m, r, -1):
            return SKIP, i, old, oldw, m
        req[m] = r
        m += 1
    elif kind == DROP:  # the last request moves into the hole
        if m <= p.m_lo:
            return SKIP, i, old, oldw, m
        i = _below(rng, m)
        old = req[i]
        req[i] = req[m - 1]
        m -= 1
    else:
        i = _below(rng, p.n)
        oldw = wts[i]
        nw = p.w_lo + _below(rng, p.w_hi - p.w_lo)
        if nw >= oldw:
            nw += 1
        wts[i] = nw
    return kind, i, old, oldw, m


@njit(cache=True)
def _undo(kind, i, old, oldw, req, wts, m):
    """Revert a move of :func:`_propose`; returns the old m."""
    if kind == SWAP or kind == REPLACE:
        req[i] = old
    elif kind == ADD:
        m -= 1
    elif kind == DROP:
        m += 1
        req[m - 1] = req[i]
        req[i] = old
    elif kind == WEIGHT:
        wts[i] = oldw
    elif kind == ORDER:  # oldw holds the other position
        t = req[i]
        req[i] = req[oldw]
        req[oldw] = t
    return m


@njit(cache=True)
def _better(a_num, a_den, b_num, b_den):
    """a > b as fractions with nonnegative parts (den 0 = infinity)."""
    if a_den == 0:
        return b_den != 0
    if b_den == 0:
        return False
    return a_num * b_den > b_num * a_den


@njit(cache=True, inline="always")
def _keep(src, m, dst):
    copy_into(dst, 0, src, 0, m)
    dst[m:] = 0


def _steps_kernel(ratio):
    """The compiled step loop of the ``ratio`` objective (``ratio`` True) or of the four others
    (the objective ``p.objective``): ``ratio`` is a constant of the closure, so the branch of
    ``evaluate`` not taken is dropped before typing and each loop compiles only its objective's
    kernel (:func:`.objective.objective_ratio`, :func:`.objective.objective_other`)."""

    @njit(cache=True, nogil=True)
    def anneal_steps(p, req, wts, best_req, best_wts, counters, rng, viol_req, viol_wts, ws, nsteps,
                     deadline=np.inf, cutoff=np.inf):
        """Run ``nsteps`` annealing steps of one restart (fewer if it ends, or once the clock passes
        ``deadline``, a ``time.time()`` value), in place.

        ``cutoff`` (a ``time.time()`` value, usually at or after ``deadline``) reaches inside one
        evaluation: the prefix-set search on 8-10 chunks stops there (``ws.halt``), and the step
        whose evaluation it stopped is not taken: its move is undone, the generator put back, the
        step count left, so that a later call would take the same step again. A start that could
        not be evaluated leaves the restart with no evaluation. Without a cutoff (the default)
        every evaluation finishes, so the trajectory does not depend on the clock.

        The temperature of step s is t_start (t_end / t_start)^((s-1)/length): a function of the
        step index only, so pieces of any size give the same trajectory, and a piece cut by the
        deadline resumes where it stopped. A step's cost varies by 10^4 with m (microseconds at
        m = 8, seconds on dense 8-chunk families at m = 60): a piece sized from the last round's
        rate could run minutes over a time limit (``anneal -t 30`` stopped at 287 s on 8 chunks),
        so the loop reads the clock, every step when steps are slow and every 2^k steps when
        they are fast (k grows while 2^k steps take under 0.2 ms, shrinks past 2 ms): the
        overshoot is about one step and the clock costs well under 1% of the time."""
        def evaluate(m):
            if ratio:
                return objective_ratio(req, m, p.n, wts, p.check, ws, p.heuristic, p.window)
            return objective_other(p.objective, req, m, p.n, wts, p.check, ws, p.heuristic, p.window)

        arm(ws.halt, cutoff, np.inf)
        c = counters[0]
        m = c.m
        if c.step == 0 and c.evaluations == 0:  # first piece: evaluate the start
            num, den, _ = evaluate(m)
            if unfinished(ws.halt):
                return
            c.evaluations += 1
            c.num, c.den, c.best_num, c.best_den, c.best_m = num, den, num, den, m
            _keep(req, m, best_req)
            copy_into(best_wts, 0, wts, 0, len(wts))
        cur = c.num / c.den if c.den else np.inf
        step = c.step
        stop = min(c.length, step + nsteps)
        timed = deadline < np.inf
        every, since = 1, 0
        last = clock() if timed else 0.0
        while step < stop:
            if timed:
                since += 1
                if since >= every:
                    now = clock()
                    if now >= deadline:
                        break
                    if now - last < 2e-4 and every < 4096:
                        every *= 2
                    elif now - last > 2e-3 and every > 1:
                        every //= 2
                    last, since = now, 0
            state = rng[0]
            step += 1
            temp = p.t_start * (p.t_end / p.t_start) ** ((step - 1) / c.length)
            kind, i, old, oldw, m = _propose(p, req, wts, m, rng)
            if kind == SKIP:
                continue
            num, den, viol = evaluate(m)
            if unfinished(ws.halt):  # stopped inside the evaluation: this step is not taken
                m = _undo(kind, i, old, oldw, req, wts, m)
                rng[0] = state
                step -= 1
                break
            c.evaluations += 1
            if viol:
                if c.violations == 0:
                    _keep(req, m, viol_req)
                    copy_into(viol_wts, 0, wts, 0, len(wts))
                c.violations += 1
            new = num / den if den else np.inf
            if new >= cur or _uniform(rng) < np.exp((new - cur) / temp):
                cur = new
                c.num, c.den = num, den
                c.accepted += 1
                if _better(num, den, c.best_num, c.best_den):
                    c.best_num, c.best_den, c.best_m = num, den, m
                    _keep(req, m, best_req)
                    copy_into(best_wts, 0, wts, 0, len(wts))
            else:
                m = _undo(kind, i, old, oldw, req, wts, m)
        c.step = step
        c.m = m

    return anneal_steps


#: the compiled step loops: the default objective's, and one shared by the four others; each
#: compiles on its first call
anneal_steps_ratio = _steps_kernel(True)
anneal_steps_other = _steps_kernel(False)
#: the step loop of each objective (OBJECTIVES order)
ANNEAL_STEPS = tuple(anneal_steps_ratio if code == RATIO else anneal_steps_other for code in range(len(OBJECTIVES)))


def anneal_steps(p, req, wts, best_req, best_wts, counters, rng, viol_req, viol_wts, ws, nsteps,
                 deadline=np.inf, cutoff=np.inf):
    """Run ``nsteps`` annealing steps of one restart in place, by the compiled loop of the
    objective ``p.objective`` (:data:`ANNEAL_STEPS`; its docstring has the details)."""
    ANNEAL_STEPS[p.objective](p, req, wts, best_req, best_wts, counters, rng, viol_req, viol_wts, ws, nsteps,
                              deadline, cutoff)

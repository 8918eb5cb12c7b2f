"""The price of an enumeration before running it: members and core-hours from a sample of
the generation tree (``mptsearch enumerate ... --estimate``, docs/enumerate.md).

Members. The nodes of the orderly generation tree (:mod:`mptsearch.enumerate.generate`) at
depth m are the class's members with m requests, one canonical family per orbit of the
relabellings (the symmetric group S_n acting on the N allowed requests). For each m, S
families of m distinct requests are drawn uniformly at random (an m-subset of the N
requests); each is mapped to its canonical family (the relabelling giving the
lexicographically largest characteristic vector, found by trying all n! relabellings, which
also counts its automorphisms |Aut|). A uniform m-subset lies in the orbit O with
probability |O| / C(N, m) = n! / (|Aut(O)| C(N, m)), so X = C(N, m) |Aut| / n! has mean
sum_O 1 = N_m: an unbiased importance-sampling estimate of the number of tree nodes at
depth m, with the 95% interval mean +- 1.96 standard errors. Most large orbits have
|Aut| = 1, so X varies little where the class is large; where it is small (a few thousand
families at most, ``exact_nodes``) the class is walked instead
(:func:`~mptsearch.enumerate.generate.count_class`) and the counts are exact.

Why not Knuth's random probes (D. E. Knuth, Math. Comp. 29, 1975) down the generation
tree: they are unbiased too, but the tree is full of dead ends (canonical families with
no canonical child), and on 4-uniform families on 7 chunks with 18 requests none of 3,563
probes stratified below depth 6 reached depth 18 (measured while building this module),
an estimate of 0 with an interval to match. The orbit sampler reaches every depth. The
probes are kept for one thing they do well: timing the canonicity test the generator runs.

Core-hours. The sampled canonical families are priced with the real kernels: each with its
``ancestors`` generation-tree ancestors (its first m - a requests, ..., its first m - 1)
goes through :func:`~mptsearch.enumerate.prune.evaluate_tree` (bounds inherited along the
path, the O(3^m) DP only where the bounds cannot decide), which says which members needed
the DP and which were left undecided past ``exact_limit``. Per m, the CPU time of the
bounds and of one DP are measured on the sampled members with
:func:`~mptsearch.enumerate.evaluate.evaluate_batch`, and

    core-seconds = sum_m N_m (t_bounds(m) + p_DP(m) t_DP(m)) + N_top t_exact(top)
                   + sum_{d < m_top} N_d tests(d) t_test,

with p_DP(m) the |Aut|-weighted share of sampled members that needed the DP, N_top the
families at depth mlo - ancestors that the generator makes (it skips those too far along the
request order to reach mlo; one exact DP each, as the driver gives the roots of the ancestor
levels), tests(d) the mean number of children the generator tries below a depth-d
family and t_test one canonicity test (timed on probes). Planning the pieces, start-up and
compilation are not counted. The sample is smaller than the class, so its best ratios (which
let the real run skip the DP) are lower: p_DP is biased upwards, the core-hours towards too
many where the DP dominates (measured: docs/enumerate.md); planning the pieces is not
priced. The interval on core-hours scales the estimate by the members' interval; it does not
account for timing noise (the machine's load) or for p_DP's own sampling error.

All kernels are compiled with numba and take only arrays and scalars.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
from .._jit import njit

from .evaluate import EXACT_M_LIMIT, evaluate_batch
from .generate import EnumClass, _is_canonical, _tables, count_class
from ..instance import InstanceError
from .prune import DEFAULT_ANCESTORS, _level_bound_instead, evaluate_tree

__all__ = ["Estimate", "estimate_class", "canonical_sample", "format_estimate", "DEFAULT_SAMPLES"]

DEFAULT_SAMPLES = 256  #: random families drawn per m to count the members
MAX_TABLE = 60_000_000  #: n! x N request images at most (120 MB of int16)
PRICE_SAMPLES = 256  #: of them, distinct members evaluated per m to price them
_Z95 = 1.959963984540054


@njit(cache=True)
def _probe(prefix, mlo, mhi, n, E, blk_lo, blk_hi, nw, u, path, weight, tests):
    """One Knuth probe below the canonical family ``prefix`` (request numbers).

    Writes the request masks of the path into ``path[:depth]``, the probe's weight at each
    depth into ``weight`` (``weight[len(prefix)] = 1``; 0 past the depth reached) and the
    number of canonicity tests made at each expanded depth into ``tests``. ``u[d]`` in [0, 1)
    chooses the child at depth d. Returns the depth reached. The children are those of the
    generator (:func:`mptsearch.enumerate.generate._generate`), cut the same way."""
    NE = E.shape[0]
    member = np.zeros(nw, dtype=np.int64)
    fam = np.zeros(max(mhi, 1) + 1, dtype=np.int64)
    idx = np.zeros(max(mhi, 1) + 1, dtype=np.int64)
    kids = np.zeros(max(NE, 1), dtype=np.int64)
    sigma = np.zeros(max(n, 1), dtype=np.int64)
    cand = np.zeros(max(n, 1) + 1, dtype=np.int64)
    alw = np.zeros(max(n, 1) + 1, dtype=np.int64)
    weight[:] = 0.0
    tests[:] = 0
    p = prefix.shape[0]
    for d in range(p):
        idx[d] = prefix[d]
        fam[d] = E[prefix[d]]
        path[d] = fam[d]
        member[fam[d] >> 6] |= np.int64(1) << (fam[d] & 63)
    d = p
    w = 1.0
    weight[d] = w
    while d < mhi:
        start = idx[d - 1] + 1 if d > 0 else 0
        c = 0
        nt = 0
        for t in range(start, NE):
            if NE - t < mlo - d:
                break
            e = E[t]
            member[e >> 6] |= np.int64(1) << (e & 63)
            fam[d] = e
            nt += 1
            if _is_canonical(fam, d + 1, member, n, E, blk_lo, blk_hi, sigma, cand, alw):
                kids[c] = t
                c += 1
            member[e >> 6] ^= np.int64(1) << (e & 63)
        tests[d] = nt
        if c == 0:
            break
        j = min(int(u[d] * c), c - 1)
        t = kids[j]
        e = E[t]
        member[e >> 6] |= np.int64(1) << (e & 63)
        fam[d] = e
        idx[d] = t
        path[d] = e
        w *= c
        d += 1
        weight[d] = w
    return d




@njit(cache=True)
def _image_table(E, index_of, perms, table):
    """table[q, r] := the number of the request that relabelling q maps request r to."""
    for q in range(perms.shape[0]):
        for t in range(E.shape[0]):
            r = E[t]
            x = 0
            while r:
                b = 0
                while ((r >> b) & 1) == 0:
                    b += 1
                r &= r - 1
                x |= 1 << perms[q, b]
            table[q, t] = index_of[x]


@njit(cache=True)
def _canonicalise(samples, table, out, aut):
    """For each row of ``samples`` (m request numbers, increasing) write its canonical family
    (the least increasing tuple of request numbers over all relabellings, i.e. the largest
    characteristic vector, as the generator defines canonical) into ``out`` and its number
    of automorphisms into ``aut``; ``table`` maps (relabelling, request) to a request.
    O(rows * relabellings * m^2) at worst (an insertion sort per relabelling)."""
    S, m = samples.shape
    img = np.zeros(max(m, 1), dtype=np.int64)
    for s in range(S):
        for j in range(m):
            out[s, j] = np.int64(1) << 62
        a = 0
        for q in range(table.shape[0]):
            for j in range(m):
                v = np.int64(table[q, samples[s, j]])
                i = j
                while i > 0 and img[i - 1] > v:
                    img[i] = img[i - 1]
                    i -= 1
                img[i] = v
            same = True
            for j in range(m):
                if img[j] != samples[s, j]:
                    same = False
                    break
            if same:
                a += 1
            for j in range(m):
                if img[j] != out[s, j]:
                    if img[j] < out[s, j]:
                        for t in range(m):
                            out[s, t] = img[t]
                    break
        aut[s] = a


def _perms(n: int) -> np.ndarray:
    from itertools import permutations

    return np.array(list(permutations(range(n))), dtype=np.int8).reshape(-1, max(n, 1))


def _table(cls: EnumClass) -> np.ndarray:
    """The images of every allowed request under every relabelling (int16, n! x N)."""
    E, _, _, _ = _tables(cls)
    index_of = np.full(1 << cls.n, -1, dtype=np.int64)
    index_of[E] = np.arange(len(E))
    perms = _perms(cls.n)
    table = np.zeros((perms.shape[0], max(len(E), 1)), dtype=np.int16)
    _image_table(E, index_of, perms, table)
    return table


def canonical_sample(cls: EnumClass, m: int, size: int, rng, table=None):
    """``size`` uniform random families of m distinct allowed requests, each mapped to its
    canonical family: ``(families, aut)`` with ``families[i]`` the canonical family's request
    numbers (increasing: the generator's order) and ``aut[i]`` its number of automorphisms.
    A canonical family comes with probability n! / (|Aut| C(N, m)) (N allowed requests).
    ``table``: :func:`_table` of the class (computed when not given)."""
    N = cls.n_requests
    table = _table(cls) if table is None else table
    samples = np.zeros((size, m), dtype=np.int64)
    for i in range(size):
        samples[i] = np.sort(rng.choice(N, m, replace=False))
    out = np.zeros((size, m), dtype=np.int64)
    aut = np.zeros(size, dtype=np.int64)
    if m:
        _canonicalise(samples, table, out, aut)
    else:
        aut[:] = table.shape[0]
    return out, aut


@dataclass
class Estimate:
    """Estimated members per m (with a 95% interval) and core-hours of an enumeration."""

    cls: EnumClass
    by_m: dict  #: m -> {"members", "low", "high", "exact", "dp_fraction", "undecided", ...}
    members: float
    members_low: float
    members_high: float
    core_hours: float
    core_hours_low: float
    core_hours_high: float
    exact: bool  #: every member count is exact (the class was walked)
    samples: int  #: random families drawn per m
    priced: int  #: sampled members evaluated with the real kernels
    seed: int
    seconds: float
    parts: dict = field(default_factory=dict)  #: core-seconds: generation, bounds, dp, ancestors

    @property
    def core_hours_without_dp(self) -> float:
        """The price of generation, bounds and ancestors alone: what the run costs at the
        least, were the bounds to decide every member."""
        return sum(v for k, v in self.parts.items() if k != "dp") / 3600.0

    def as_dict(self) -> dict:
        """The estimate as JSON-ready data (the keys of ``enumerate --estimate --json``)."""
        return {"class": {"n": self.cls.n, "k": [self.cls.klo, self.cls.khi],
                          "m": [self.cls.mlo, self.cls.m_top]},
                "members": self.members, "members_low": self.members_low,
                "members_high": self.members_high, "core_hours": self.core_hours,
                "core_hours_low": self.core_hours_low, "core_hours_high": self.core_hours_high,
                "core_hours_without_dp": self.core_hours_without_dp,
                "confidence": 0.95, "exact": self.exact, "samples_per_m": self.samples,
                "priced_members": self.priced, "seed": self.seed, "seconds": self.seconds,
                "core_seconds_by_part": self.parts,
                "by_m": {str(m): v for m, v in self.by_m.items()}}


def _cpu(fn, min_seconds: float = 0.02) -> float:
    """CPU seconds of one call of ``fn`` (repeated until ``min_seconds`` have passed)."""
    reps, t0 = 0, time.process_time()
    while True:
        fn()
        reps += 1
        spent = time.process_time() - t0
        if spent >= min_seconds or reps >= 50:
            return spent / reps


def _test_seconds(cls: EnumClass, rng, probes: int = 200) -> float:
    """CPU seconds of one canonicity test of the generator, timed on random probes."""
    E, lo, hi, nw = _tables(cls)
    top = cls.m_top
    width = max(top, 1) + 1
    path = np.zeros(width, dtype=np.int64)
    weight = np.zeros(width)
    tests = np.zeros(width, dtype=np.int64)
    root = np.zeros(0, dtype=np.int64)
    _probe(root, cls.mlo, top, cls.n, E, lo, hi, nw, rng.random(width), path, weight, tests)
    total, t0 = 0, time.process_time()
    for _ in range(probes):
        _probe(root, cls.mlo, top, cls.n, E, lo, hi, nw, rng.random(width), path, weight, tests)
        total += int(tests.sum())
    return (time.process_time() - t0) / max(total, 1)


def _price(cls, E, fams, wts, m, width, ancestors, prop, threshold, exact_limit):
    """Evaluate the distinct sampled members at m (``fams``, weights ``wts``), each below its
    ``ancestors`` generation-tree ancestors, with the real kernels. Returns the weighted
    shares of members that needed the DP and that were left undecided, and the CPU seconds
    of the bounds of one member, of one DP, and of the exact DP of one chain top."""
    rows, ms, par = [], [], []
    for f in fams:
        parent = -1
        for d in range(max(m - ancestors, 0), m + 1):
            rows.append(f[:d])
            ms.append(d)
            par.append(parent)
            parent = len(ms) - 1
    masks = np.zeros((len(rows), width), dtype=np.int64)
    for i, f in enumerate(rows):
        masks[i, :len(f)] = E[f]
    ms = np.array(ms, dtype=np.int64)
    par = np.array(par, dtype=np.int64)
    res = evaluate_tree(masks, ms, par, cls.n, m, prop=prop, threshold=threshold,
                        exact_limit=exact_limit)
    sel = np.flatnonzero(ms == m)
    dp = res.free[sel] >= 0
    und = res.free[sel] == -2
    few = sel[:64]
    t_b = _cpu(lambda: evaluate_batch(masks[few], ms[few], cls.n, prop="none",
                                      ratio_floor={m: 10**9})) / len(few)
    t_dp = 0.0
    dsel = sel[dp][:8]
    if m >= 2 and len(dsel):
        t_all = _cpu(lambda: evaluate_batch(masks[dsel], ms[dsel], cls.n, prop="ratio",
                                            threshold=0, exact_limit=exact_limit))
        t_dp = max(t_all / len(dsel) - t_b, 0.0)
    t_top = 0.0
    tops = np.flatnonzero((par < 0) & (ms < m))[:16]
    if len(tops) and ms[tops[0]] >= 2:
        if _level_bound_instead(cls.n, np.ones(max(cls.n, 1), dtype=np.int64), int(ms[tops[0]]), True):
            # past the DP's crossover the driver gives these roots the level bound instead
            from .._kernels.prefix_sets import level_bounds
            from ..exact.prefix_sets import _tables as ps_tables

            _, subs, ups, _, rank = ps_tables(cls.n)
            out = np.zeros(len(tops), dtype=np.int64)
            um = masks.view(np.uint64)
            t_top = _cpu(lambda: level_bounds(um, ms, tops, cls.n, subs, ups, rank, out)) / len(tops)
        else:
            t_top = _cpu(lambda: evaluate_batch(masks[tops], ms[tops], cls.n, prop="ratio",
                                                threshold=0, exact_limit=exact_limit)) / len(tops)
    total = float(wts.sum())
    return (float((wts * dp).sum()) / total, float((wts * und).sum()) / total, t_b, t_dp, t_top)


def estimate_counts(cls: EnumClass, samples: int, rng, full_from: int = 0, depths=None):
    """The orbit-sampling estimate of the members at every depth 0..m_top (module doc).

    Returns ``(est, sd, drawn)``: the estimates, their standard errors, and the drawn
    canonical families and automorphism counts per depth. Depths
    below ``full_from`` get samples // 8 draws (at least 8): they only price the generation.
    ``depths``: estimate only these (the others stay 0).
    Unbiased: E[C(N, m) |Aut| / n!] = N_m. O(m_top * samples * n! * m (k + m))."""
    table = _table(cls)
    nfact = table.shape[0]
    N = cls.n_requests
    top = cls.m_top
    est = np.zeros(top + 1)
    sd = np.zeros(top + 1)
    drawn = {}
    for d in range(top + 1) if depths is None else depths:
        size = samples if d >= full_from else max(samples // 8, 8)
        fams, aut = canonical_sample(cls, d, size, rng, table)
        x = math.comb(N, d) * aut / nfact
        est[d] = x.mean()
        sd[d] = x.std(ddof=1) / math.sqrt(size)
        drawn[d] = (fams, aut)
    return est, sd, drawn


def estimate_class(cls: EnumClass, *, samples: int | None = None, seed: int = 0,
                   price: int = PRICE_SAMPLES, exact_nodes: int = 100_000, prop: str = "none",
                   threshold=1, exact_limit: int = EXACT_M_LIMIT,
                   ancestors: int = DEFAULT_ANCESTORS, subtree: bool = False,
                   witnesses=None) -> Estimate:
    """Estimate the members per m and the core-hours of enumerating ``cls`` (module doc).

    Parameters
    ----------
    cls : the class
    samples : random families drawn per m to count its members (fewer above mlo - ancestors);
        default 256, or 64 on 8 chunks or more (n! relabellings per draw)
    seed : the random seed (the same seed gives the same member estimate)
    price : how many distinct sampled members per m are evaluated to price them
    exact_nodes : walk the class instead when its tree is estimated at most this large
    prop, threshold, exact_limit, ancestors : as for the run being priced
    subtree, witnesses : price a ``--subtree-bounds`` run with these floors instead
        (:func:`_price_cut`): the members stay the class's, and each m also gets
        ``generated``, the members the cut run is expected to generate

    Returns
    -------
    Estimate

    Notes
    -----
    Time O(m_top * samples * n! * m (k + m)) for the counts, plus ``price`` evaluations per m
    (an O(3^m) DP each at worst) and the walk of the class when it is small.
    """
    t_start = time.perf_counter()
    if math.factorial(cls.n) * cls.n_requests > MAX_TABLE:
        raise InstanceError(f"--estimate tries all {math.factorial(cls.n):,} relabellings of each "
                            f"sampled family of {cls.n_requests} possible requests, past its limit "
                            f"({MAX_TABLE:,} request images): at most 9 chunks with up to 165 "
                            f"possible requests")
    if samples is None:
        samples = DEFAULT_SAMPLES if cls.n <= 7 else DEFAULT_SAMPLES // 4
    rng = np.random.default_rng(seed)
    top, mlo = cls.m_top, cls.mlo
    E, _, _, _ = _tables(cls)
    N = len(E)
    width = max(top, 1)
    if subtree:
        from .subtree import CUT_LEVELS

        elo = max(mlo - CUT_LEVELS, 0)
    else:
        elo = max(mlo - ancestors, 0)
    est, sd, drawn = estimate_counts(cls, samples, rng, elo)
    if subtree:
        return _price_cut(cls, est, sd, drawn, samples, seed, t_start, rng, witnesses or [], prop,
                          threshold, exact_limit)
    exact = float(est.sum() + _Z95 * sd.sum()) <= exact_nodes
    if exact:
        est = count_class(EnumClass(cls.n, cls.klo, cls.khi, 0, top)).astype(float)[:top + 1]
        sd = np.zeros(top + 1)
    # generation: the families the generator makes (it skips those that cannot reach mlo)
    # times the children it tries below each
    gen_tests = 0.0
    made_share = {}
    for d in range(top):
        fams, aut = drawn[d]
        last = fams[:, -1] if d else np.full(len(aut), -1)
        made = (N - last >= mlo - d + 1) if d else np.ones(len(aut), dtype=bool)
        made_share[d] = float((aut * made).sum() / aut.sum())
        tries = np.maximum(0, np.minimum(N - 1, N - mlo + d) - last) * made
        gen_tests += est[d] * float((aut * tries).sum() / aut.sum())
    parts = {"generation": gen_tests * _test_seconds(cls, rng), "bounds": 0.0, "dp": 0.0,
             "ancestors": 0.0}
    by_m = {}
    priced = 0
    for m in range(mlo, top + 1):
        fams, aut = drawn[m]
        keys, first, inv = np.unique(fams, axis=0, return_index=True, return_inverse=True)
        wts = np.bincount(inv.ravel(), weights=aut, minlength=len(keys))
        order = np.argsort(first)[:price]  # the first distinct families drawn: a uniform choice
        p_dp, p_und, t_b, t_dp, t_top = _price(cls, E, keys[order], wts[order], m, width,
                                               ancestors, prop, threshold, exact_limit)
        priced += len(order)
        if m == mlo and ancestors > 0:
            # the generated families at depth mlo - ancestors: one exact DP each
            parts["ancestors"] += est[elo] * made_share.get(elo, 1.0) * t_top
        parts["bounds"] += est[m] * t_b
        parts["dp"] += est[m] * p_dp * t_dp
        by_m[m] = {**_count_row(est, sd, m), "exact": bool(exact),
                   "dp_fraction": p_dp, "undecided": float(est[m] * p_und),
                   "seconds_per_member": t_b + p_dp * t_dp, "priced": int(len(order))}
    return _assemble(cls, est, sd, by_m, parts, exact=bool(exact), scale=True, samples=samples,
                     priced=priced, seed=seed, t_start=t_start)


def _count_row(est, sd, m) -> dict:
    """The members estimate of depth m with its 95% interval (a row of ``Estimate.by_m``)."""
    return {"members": float(est[m]), "low": float(max(est[m] - _Z95 * sd[m], 0.0)),
            "high": float(est[m] + _Z95 * sd[m])}


def _assemble(cls, est, sd, by_m, parts, *, exact, scale, samples, priced, seed, t_start):
    """The :class:`Estimate`: members over m >= mlo with their interval, core-hours from
    ``parts``; ``scale``: the core-hours interval scales with the members' (else a point)."""
    mlo = cls.mlo
    members = float(est[mlo:].sum())
    half = _Z95 * math.sqrt(float((sd[mlo:] ** 2).sum()))
    low, high = max(members - half, 0.0), members + half
    core = sum(parts.values()) / 3600.0
    c_low = core * (low / members if members else 1.0) if scale else core
    c_high = core * (high / members if members else 1.0) if scale else core
    return Estimate(cls, by_m, members, low, high, core, c_low, c_high, exact, samples, priced,
                    seed, time.perf_counter() - t_start, {k: float(v) for k, v in parts.items()})


def _price_cut(cls, est, sd, drawn, samples, seed, t_start, rng, witnesses, prop, threshold,
               exact_limit) -> Estimate:
    """Price a ``--subtree-bounds`` run: a sampled canonical family at depth d >= mlo - L
    (L = CUT_LEVELS) is generated and evaluated exactly when none of its prefixes at depths
    mlo - L .. d - 1 (its generation-tree ancestors) is cut by Lemma S against the floors of
    ``witnesses``; the |Aut|-weighted share of such families times N_d estimates how many
    the run evaluates at depth d, and the share of those not cut themselves how many it
    expands. Core-seconds = sum_d (evaluated_d t_eval(d) + expanded_d tries_d t_test), with
    every depth above mlo - L expanded in full, t_eval timed on the sampled families (the
    exact OPT_free of a reached member counted in full) and t_test one canonicity test.
    Floors found by the run itself (committed pieces) can only cut more: the estimate is
    for the witnesses' floors alone. Planning the pieces is not priced (about 15 s per
    shard on 5-uniform families on 9 chunks)."""
    from .run import witness_floors
    from .subtree import CUT_LEVELS, cut_floors, decide_cuts

    floors = cut_floors(witness_floors(cls, witnesses), prop, threshold)
    top, mlo, k = cls.m_top, cls.mlo, cls.khi
    E, _, _, _ = _tables(cls)
    N = len(E)
    width = max(top, 1)
    elo = max(mlo - CUT_LEVELS, 0)
    no_dp = {m: k + 1 for m in range(top + 1)}
    t_test = _test_seconds(cls, rng)
    parts = {"generation": 0.0, "bounds": 0.0, "dp": 0.0, "ancestors": 0.0}
    by_m = {}
    priced = 0
    for d in range(top + 1):
        fams, aut = drawn[d]
        w = aut.astype(float)
        last = fams[:, -1] if d else np.full(len(aut), -1)
        tries = float((w * (N - 1 - last)).sum() / w.sum()) if d < top else 0.0
        if d < elo:
            parts["generation"] += est[d] * tries * t_test
            continue
        # each sample with its prefixes at depths elo..d: evaluate them, cut as the run does
        rows = [f[:j] for f in fams for j in range(elo, d + 1)]
        ms = np.array([len(r) for r in rows], dtype=np.int64)
        masks = np.zeros((len(rows), width), dtype=np.int64)
        for i, r in enumerate(rows):
            masks[i, :len(r)] = E[r]
        res = evaluate_batch(masks, ms, cls.n, prop="none", ratio_floor=no_dp, exact_limit=exact_limit)
        _, cut = decide_cuts(masks, ms, cls.n, res, k, mlo, top, floors, exact_limit=exact_limit)
        span = d - elo + 1
        cut = cut.reshape(len(fams), span)
        reached = ~cut[:, :-1].any(axis=1) if span > 1 else np.ones(len(fams), dtype=bool)
        expanded = reached & ~cut[:, -1]
        share_r = float((w * reached).sum() / w.sum())
        share_x = float((w * expanded).sum() / w.sum()) if d < top else 0.0
        own = np.flatnonzero(ms == d)[:64]
        t_eval = _cpu(lambda: evaluate_batch(masks[own], ms[own], cls.n, prop="none",
                                             ratio_floor=no_dp)) / max(len(own), 1)
        t_dp = 0.0
        if d >= mlo and d >= 2:
            few = own[:8]
            t_dp = max(_cpu(lambda: evaluate_batch(masks[few], ms[few], cls.n, prop="ratio",
                                                   threshold=0, exact_limit=exact_limit))
                       / max(len(few), 1) - t_eval, 0.0)
        priced += len(fams)
        evaluated = est[d] * share_r
        parts["generation"] += est[d] * share_x * tries * t_test
        parts["bounds" if d >= mlo else "ancestors"] += evaluated * t_eval
        if d >= mlo:
            parts["dp"] += evaluated * t_dp
            by_m[d] = {**_count_row(est, sd, d), "exact": False,
                       "dp_fraction": share_r, "undecided": 0.0,
                       "seconds_per_member": share_r * (t_eval + t_dp), "priced": int(len(fams)),
                       "generated": float(evaluated)}
    return _assemble(cls, est, sd, by_m, parts, exact=False, scale=False, samples=samples,
                     priced=priced, seed=seed, t_start=t_start)


def format_estimate(e: Estimate) -> str:
    """The estimate as the lines ``enumerate --estimate`` prints."""
    def num(x):
        return f"{x:,.0f}"

    how = "exact (the class was walked)" if e.exact else \
        f"estimated from {e.samples} random families per m, 95% interval"
    lines = [f"class {e.cls.describe()}: members {how}; core-hours from {e.priced} members "
             f"priced with the real kernels (seed {e.seed}, {e.seconds:.1f} s)",
             f"  {'m':>3} {'members':>14} {'95% interval':>25} {'DP share':>9} {'s/member':>10}"]
    for m, v in e.by_m.items():
        iv = "exact" if v["exact"] else f"{num(v['low'])}-{num(v['high'])}"
        lines.append(f"  {m:>3} {num(v['members']):>14} {iv:>25} {v['dp_fraction']:>9.4f} "
                     f"{v['seconds_per_member']:>10.2e}"
                     + (f"  (--subtree-bounds: ~{num(v['generated'])} generated)" if "generated" in v else ""))
    iv = "exact" if e.exact else f"{num(e.members_low)}-{num(e.members_high)}"
    lines.append(f"  all {num(e.members):>14} {iv:>25}")
    parts = ", ".join(f"{k} {v / 3600:.3g}" for k, v in e.parts.items())
    lines.append(f"core-hours: {e.core_hours:.3g} ({e.core_hours_low:.3g}-{e.core_hours_high:.3g} "
                 f"from the members' interval; {parts}); without any DP "
                 f"{e.core_hours_without_dp:.3g}; the DP share is an upper estimate (the sample's "
                 f"best ratios are below the class's)")
    return "\n".join(lines)

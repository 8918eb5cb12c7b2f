"""The enumeration driver: pieces, shards, local or Dask workers, the store, the summary.

:func:`run_enumeration` splits the class into pieces (depending on the class only), keeps the
pieces of its shard ``i/N`` (piece q belongs to shard q mod N), skips those the store already
holds, and runs the rest: in this process, on local processes (joblib's loky backend,
``jobs``), or on a Dask cluster (``scheduler`` address or ``scheduler_file``). Each worker
generates and evaluates one whole piece in compiled code and returns a small summary; the
driver commits each piece to the store as soon as it finishes, whatever the order in which
the pieces were submitted. The totals are built from the store only, so they are the same
whatever the worker count, the shard split, the completion order or the interruptions.

A run is *complete* when every piece of its shard is stored and no member was left
undecided (a member past the exact DP's limit that the bounds could not rule out): only then
are the per-m maxima and ``attained`` counts exact.
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np

from .evaluate import EXACT_M_LIMIT
from .generate import EnumClass, children_of, generate_piece, split_pieces
from .hit import Hit, compact_masks
from .prune import DEFAULT_ANCESTORS, evaluate_tree
from .result import (MinimalityError, RunResult, check_minimal_allowed, format_table,
                     read_result, result_dict, result_from_store)
from .store import Store, totals

__all__ = ["run_enumeration", "piece_job", "compile_kernels", "RunResult", "Hit", "minimal_hits", "format_table",
           "compact_masks", "result_dict", "MinimalityError", "check_minimal_allowed",
           "result_from_store", "read_result"]


def _masks_to_requests(masks, n):
    return [[x for x in range(n) if r >> x & 1] for r in masks]


def _heuristic_costs(masks, n):
    from ..heuristics.agglomerative import agglomerative
    from ..heuristics.greedy import greedy
    from ..instance import from_lists

    inst = from_lists(_masks_to_requests(masks, n))
    return int(agglomerative(inst).cost), int(greedy(inst).cost)


def piece_job(cls: EnumClass, p: int, prefix, piece: int, prop: str, threshold: Fraction,
              backend: str = "own", max_hits: int | None = None,
              exact_limit: int = EXACT_M_LIMIT, ancestors: int = DEFAULT_ANCESTORS,
              ratio_floor: dict | None = None, prefix_sets: bool = True, subtree: bool = False):
    """Generate and evaluate one piece; return ``(piece, seconds, summary, hits)``.

    The summary maps each m to counts (members, pruned, evaluated, undecided, hits) and the
    piece's exact maximum of OPT_glob / OPT_free over its decided members, with the number of
    members attaining it and the first of them in generation order. The hits are
    :class:`~mptsearch.enumerate.hit.Hit` records; at most ``max_hits`` are kept
    (all are counted). Members with more than ``exact_limit`` requests that the bounds cannot
    decide are counted as undecided. With ``ancestors > 0`` (and the own generator) the
    bounds inherited along the generation tree prune the DP (:mod:`.prune`); 0 evaluates
    every member with its own bounds only. Both give the same results except for the
    pruned / evaluated split. ``ratio_floor`` ({m: ratio attained elsewhere in the class})
    lets members that cannot reach it skip the DP; then the piece's own maximum for m is
    exact only where it reaches the floor (the class's maximum always is). ``prefix_sets``:
    see :func:`~mptsearch.enumerate.evaluate.evaluate_batch` (same results either way).
    ``subtree``: cut the subtrees that Lemma S (:mod:`.subtree`) decides against the floors
    (uniform classes, own generator, pieces >= 1); the summary's ``count`` is then the members
    generated and ``cut`` the cut nodes with fewer than m requests (same maxima and ``attain``).
    """
    from .evaluate import evaluate_batch
    from .subtree import applies, evaluate_subtree

    t0 = time.perf_counter()
    cut = None
    if subtree and backend == "own" and piece > 0 and applies(cls):
        masks, ms, res, cut = evaluate_subtree(cls, prefix, dict(ratio_floor or {}), prop=prop,
                                               threshold=threshold, exact_limit=exact_limit,
                                               prefix_sets=prefix_sets)
    elif backend == "genbg":
        from .genbg import genbg_piece
        masks, ms = genbg_piece(cls, piece, p)
        res = evaluate_batch(masks, ms, cls.n, prop=prop, threshold=threshold,
                             exact_limit=exact_limit, ratio_floor=ratio_floor, prefix_sets=prefix_sets)
    elif ancestors > 0:
        masks, ms, parents = generate_piece(cls, p, prefix, piece, ancestors=ancestors)
        res = evaluate_tree(masks, ms, parents, cls.n, cls.mlo, prop=prop, threshold=threshold,
                            exact_limit=exact_limit, ratio_floor=ratio_floor, prefix_sets=prefix_sets)
    else:
        masks, ms = generate_piece(cls, p, prefix, piece)
        res = evaluate_batch(masks, ms, cls.n, prop=prop, threshold=threshold,
                             exact_limit=exact_limit, ratio_floor=ratio_floor, prefix_sets=prefix_sets)
    summary, hit_rows = _summarize(res, ms, masks, cls.mlo, prop, threshold)
    if cut is not None:
        for m, c in cut.items():
            summary.setdefault(int(m), _empty_summary())["cut"] = int(c)
    hits = []
    for i in hit_rows[:max_hits] if max_hits is not None else hit_rows:
        m = int(ms[i])
        row = tuple(int(r) for r in masks[i, :m])
        hits.append(Hit(piece, m, row, int(res.free[i]), int(res.glob[i]),
                        *_heuristic_costs(row, cls.n)))
    return piece, time.perf_counter() - t0, summary, hits


def compile_kernels(subtree: bool = False) -> None:
    """Compile (or load from numba's on-disk cache) the kernels an enumeration calls, on a
    class small enough that the work itself takes milliseconds; with ``subtree``, those of
    the level-by-level generation of ``--subtree-bounds`` too."""
    cls = EnumClass(3, 1, 3, 0, 7)
    p, _, split, _ = plan(cls)
    for ancestors in (0, DEFAULT_ANCESTORS):
        piece_job(cls, p, split, 0, "gap", Fraction(1), ancestors=ancestors)
    if subtree:
        from .subtree import evaluate_subtree

        small = EnumClass(5, 2, 2, 3, 4)
        roots, _ = children_of(small, np.zeros((1, 0), dtype=np.int64))
        evaluate_subtree(small, roots[0], {})


def _property_mask(res, prop: str, threshold: Fraction) -> np.ndarray:
    """Vectorised :meth:`BatchResult.has_property` over all rows."""
    f, g = res.free, res.glob
    num, den = threshold.numerator, threshold.denominator
    if prop == "gap":
        return (f >= 0) & (g > f)
    if prop == "ratio":
        return (f > 0) & (g * den >= num * f)
    if prop == "shortfall":
        sav, agg = res.total - f, res.aggsav
        return (f >= 0) & (sav > 0) & ((agg == 0) | (sav * den >= num * agg))
    return np.zeros(len(f), dtype=bool)


def _empty_summary() -> dict:
    return {"count": 0, "pruned": 0, "evaluated": 0, "undecided": 0, "hits": 0, "max_num": 0,
            "max_den": 0, "attain": 0, "witness": None}


def _summarize(res, ms, masks, mlo: int, prop: str, threshold: Fraction):
    """Per-m counts, the exact maximum ratio over the decided members with how many attain it
    and the first of them in generation order; and the rows of the hits (members only)."""
    rows = np.flatnonzero(ms >= mlo)
    summary = {}
    for m in np.unique(ms[rows]):
        r = rows[ms[rows] == m]
        f, g = res.free[r], res.glob[r]
        undecided = int((f == -2).sum())
        pruned = len(r) - undecided if m <= 1 else int((f == -1).sum())
        s = dict(_empty_summary(), count=len(r), pruned=pruned,
                 evaluated=len(r) - pruned - undecided, undecided=undecided)
        ok = f > 0
        if ok.any():
            ratio = g[ok] / f[ok]
            near = r[ok][ratio >= ratio.max() * (1 - 1e-12)]  # exact comparison among these
            best = max(Fraction(int(res.glob[i]), int(res.free[i])) for i in near)
            attaining = [i for i in near if Fraction(int(res.glob[i]), int(res.free[i])) == best]
            first = min(attaining)
            s.update(max_num=int(res.glob[first]), max_den=int(res.free[first]),
                     attain=len(attaining), witness=[int(x) for x in masks[first, :m]])
        summary[int(m)] = s
    has = _property_mask(res, prop, threshold)
    has[ms < mlo] = False
    hit_rows = np.flatnonzero(has)
    for m in np.unique(ms[hit_rows]):
        summary[int(m)]["hits"] = int((ms[hit_rows] == m).sum())
    return summary, hit_rows


def _run_meta(cls, prop, threshold, backend, p, n_pieces, split):
    return {"class": [cls.n, cls.klo, cls.khi, cls.mlo, cls.mhi], "property": prop,
            "threshold": str(threshold), "backend": backend, "split_depth": p, "pieces": n_pieces,
            "split": "balanced-1", "split_families": len(split)}


def plan(cls: EnumClass, backend: str = "own", min_pieces: int = 256):
    """The split of the class into pieces: ``(p, prefixes, split, n_pieces)``
    (:func:`mptsearch.enumerate.generate.split_pieces`)."""
    if backend == "genbg":
        from .genbg import genbg_pieces
        p, prefixes, n = genbg_pieces(cls)
        return p, prefixes, [], n
    p, prefixes, split = split_pieces(cls, min_pieces)
    return p, prefixes, split, 1 + len(prefixes)


def _in_completion_order(tasks, jobs: int, scheduler: str | None, scheduler_file: str | None,
                         fn=piece_job):
    """Run ``fn(*args)`` (:func:`piece_job`) for every args in ``tasks``; yield the results as
    they finish. ``tasks`` is consumed lazily, a few tasks ahead of the workers, so that each
    task can carry what the finished ones taught (the ratio floors of :func:`run_enumeration`).

    In this process when ``jobs == 1``; on ``jobs`` local processes (joblib, loky); or on a Dask
    cluster (``Client.submit`` and ``as_completed``, twice as many pieces in flight as worker
    threads; the scheduler resubmits the pieces of a worker that dies, so a lost worker costs
    time, never a piece).
    """
    tasks = iter(tasks)
    if scheduler or scheduler_file:
        from dask.distributed import Client, as_completed

        client = Client(scheduler_file=scheduler_file) if scheduler_file else Client(scheduler)
        submitted = []
        try:
            pending = as_completed()
            window = max(4, 2 * sum(client.nthreads().values()))
            for args in tasks:
                submitted.append(client.submit(fn, *args, pure=False))
                pending.add(submitted[-1])
                if pending.count() >= window:
                    break
            for fut in pending:
                result = fut.result()
                fut.release()
                yield result
                args = next(tasks, None)
                if args is not None:
                    submitted.append(client.submit(fn, *args, pure=False))
                    pending.add(submitted[-1])
        finally:
            left = [f for f in submitted if not f.done()]
            if left:
                client.cancel(left)
            client.close()
        return
    if jobs == 1:
        for args in tasks:
            yield fn(*args)
        return
    from joblib import Parallel, delayed, parallel_config

    with parallel_config(backend="loky", n_jobs=jobs):
        par = Parallel(n_jobs=jobs, return_as="generator_unordered", pre_dispatch="2*n_jobs")
        yield from par(delayed(fn)(*args) for args in tasks)


def witness_floors(cls: EnumClass, witnesses) -> dict:
    """{m: the best exact OPT_glob / OPT_free} over ``witnesses`` (families of request
    bitmasks), each checked to be a member of ``cls`` (ValueError otherwise)."""
    from .evaluate import evaluate_batch

    floors: dict = {}
    for fam in witnesses:
        fam = [int(r) for r in fam]
        m = len(fam)
        if len(set(fam)) != m:
            raise ValueError(f"witness {fam}: requests repeat")
        if not cls.mlo <= m <= cls.mhi:
            raise ValueError(f"witness with {m} requests is outside m = {cls.mlo}..{cls.mhi}")
        for r in fam:
            if r <= 0 or r >> cls.n or not cls.klo <= bin(r).count("1") <= cls.khi:
                raise ValueError(f"witness request {r:#x} is not a request of "
                                 f"{cls.klo}..{cls.khi} chunks on {cls.n} chunks")
        if m < 2:
            continue
        res = evaluate_batch(np.array([fam], dtype=np.int64), np.array([m], dtype=np.int64),
                             cls.n, prop="ratio", threshold=0)
        if res.free[0] <= 0:
            raise ValueError(f"witness {fam}: OPT_free could not be computed exactly")
        r = Fraction(int(res.glob[0]), int(res.free[0]))
        if floors.get(m) is None or r > floors[m]:
            floors[m] = r
    return floors


def _best_ratio(summary: dict):
    best = None
    for s in summary.values():
        if s["max_den"]:
            r = Fraction(s["max_num"], s["max_den"])
            best = r if best is None or r > best else best
    return best


def run_enumeration(cls: EnumClass, store_path, *, prop: str = "none", threshold=1,
                    shard: tuple[int, int] = (0, 1), jobs: int = 1, scheduler: str | None = None,
                    scheduler_file: str | None = None, backend: str = "own", progress=None,
                    min_pieces: int = 256, max_pieces: int | None = None,
                    max_hits: int | None = None, exact_limit: int = EXACT_M_LIMIT,
                    journal_mode: str = "auto", time_limit: float | None = None,
                    ancestors: int = DEFAULT_ANCESTORS, prefix_sets: bool = True,
                    subtree: bool = False, witnesses=None) -> RunResult:
    """Enumerate ``cls`` (or shard ``i/N`` of it) into the store at ``store_path``.

    Parameters
    ----------
    cls : EnumClass
    store_path : path of the SQLite store (created; reused to resume)
    prop, threshold : the property of :func:`mptsearch.enumerate.evaluate.evaluate_batch`
    shard : (i, N), this run does the pieces q with q mod N == i
    jobs : local worker processes (joblib, loky backend); 1 runs in this process
    scheduler, scheduler_file : a Dask scheduler's address (``tcp://host:8786``) or the JSON
        file that ``dask scheduler --scheduler-file`` writes (the usual way on HPC)
    backend : ``"own"`` (compiled orderly generator) or ``"genbg"`` (nauty, when on PATH)
    progress : called after each committed piece as ``progress(done, total, members,
        best_ratio)``, and once at the start with ``members=0``
    max_pieces : stop after this many pieces (the run can be resumed later)
    max_hits : keep at most this many hits per piece in the store (all are counted)
    exact_limit : members with more requests are left undecided unless the bounds decide them
    journal_mode : SQLite journal of the store (:func:`mptsearch.enumerate.store.choose_journal_mode`)
    time_limit : stop taking finished pieces after this many seconds (resume later)
    ancestors : generations above the class's least m evaluated to feed the bounds inherited
        along the generation tree; 0 switches that pruning off (same results, more DPs)
    prefix_sets : the level bound and the prefix-set search where they apply (unit weights,
        <= 7 chunks; :mod:`mptsearch.exact.prefix_sets`); False: the subset DP alone, with
        its ``exact_limit`` (same results where both decide)
    subtree : cut whole subtrees of the generation tree by Lemma S
        (:mod:`mptsearch.enumerate.subtree`; one request size, property none or ratio): the
        maxima, ``attain`` counts and hits stay exact, ``count`` is the members generated and
        ``cut`` the cut subtrees; the class's size is :func:`count_class_members`
    witnesses : families of the class (lists of request bitmasks) whose exact ratios are
        floors from the first piece on (each is checked to be a member and evaluated
        exactly here); they make the pruning, never the results, depend on them

    Returns
    -------
    RunResult
        Totals from the store (all pieces of the shard done so far).
    """
    threshold = Fraction(threshold).limit_denominator(10**6)
    i, N = shard
    if not (N >= 1 and 0 <= i < N):
        raise ValueError(f"shard {i}/{N}: need 0 <= i < N")
    t0 = time.perf_counter()
    if subtree:
        from .subtree import applies, cut_floors

        if not applies(cls):
            raise ValueError("subtree bounds need one request size (klo = khi)")
        cut_floors({}, prop, threshold)  # refuses gap and shortfall
    seeded = witness_floors(cls, witnesses or [])
    p, prefixes, split, n_pieces = plan(cls, backend, min_pieces)
    meta = _run_meta(cls, prop, threshold, backend, p, n_pieces, split)
    if subtree:
        meta["subtree"] = "lemma-S"  # counts differ from an uncut run's: never merged with one
    store = Store(store_path, meta, shard, journal_mode)
    try:
        done = store.done()
        expected = store.expected_pieces()
        todo = [q for q in expected if q not in done]
        resumed = len(expected) - len(todo)
        if max_pieces is not None:
            todo = todo[:max_pieces]
        # per m, the best exact ratio committed so far: a floor that later pieces need not
        # beat (the maxima stay exact; only how many DPs run depends on the order)
        floors = {m: t["max"] for m, t in totals(store.summaries()).items() if t["max"] is not None}
        for m, r in seeded.items():
            if floors.get(m) is None or r > floors[m]:
                floors[m] = r
        tasks = ((cls, p, (prefixes[q - 1] if q else split) if backend == "own" else None, q, prop,
                  threshold, backend, max_hits, exact_limit, ancestors, dict(floors), prefix_sets, subtree)
                 for q in todo)
        members, best, finished = 0, None, resumed
        if progress is not None:
            progress(finished, len(expected), 0, None)
        for piece, secs, summary, hits in _in_completion_order(tasks, max(1, min(jobs, len(todo))),
                                                                scheduler, scheduler_file):
            store.commit_piece(piece, secs, summary, hits)
            for m, sm in summary.items():
                if sm["max_den"]:
                    r = Fraction(sm["max_num"], sm["max_den"])
                    if floors.get(int(m)) is None or r > floors[int(m)]:
                        floors[int(m)] = r
            finished += 1
            members += sum(s["count"] for s in summary.values())
            b = _best_ratio(summary)
            best = b if best is None or (b is not None and b > best) else best
            if progress is not None:
                progress(finished, len(expected), members, best)
            if time_limit is not None and time.perf_counter() - t0 > time_limit:
                break
        return result_from_store(store, cls, pieces_run=finished - resumed, resumed=resumed,
                                 seconds=time.perf_counter() - t0)
    finally:
        store.close()


def minimal_hits(cls: EnumClass, hits: list[Hit], prop: str, threshold,
                 progress=None) -> list[bool | None]:
    """For each hit, whether no proper subfamily has the property.

    When the class holds every smaller family (mlo <= 2: a family of at most one request has
    no gap, ratio 1 and nothing to share) the hits themselves are all the families with the
    property, so a hit is minimal iff no other hit with fewer requests embeds into it under a
    relabelling (:func:`mptsearch.enumerate.minimal.minimal_among_hits`). Otherwise every
    proper subfamily is evaluated directly (m <= 12), else None. ``progress(k)``: k more hits
    decided.
    """
    from ..exact.free import opt_free
    from ..exact.glob import opt_glob
    from ..heuristics.agglomerative import agglomerative
    from ..instance import from_lists
    from .minimal import minimal_among_hits

    threshold = Fraction(threshold)
    fams = [h.masks for h in hits]
    out: list[bool | None] = []
    if cls.mlo <= 2:
        return list(minimal_among_hits(fams, cls.n, progress))
    for fa in fams:
        if progress is not None:
            progress(1)
        if len(fa) > 12:
            out.append(None)
            continue
        ok = True
        for sub in range(1, (1 << len(fa)) - 1):
            reqs = [fa[j] for j in range(len(fa)) if sub >> j & 1]
            if len(reqs) < 2:
                continue
            inst = from_lists(_masks_to_requests(reqs, cls.n))
            f, g = opt_free(inst).value, opt_glob(inst).value
            if prop == "gap":
                has = g > f
            elif prop == "ratio":
                has = Fraction(g, f) >= threshold
            else:
                sav = inst.total_weight() - f
                agg = agglomerative(inst).savings
                has = sav > 0 and (agg == 0 or Fraction(sav, agg) >= threshold)
            if has:
                ok = False
                break
        out.append(ok)
    return out

"""The enumeration driver: pieces, shards, local or Dask workers, the store, the summary.

:func:`run_enumeration` splits the class into pieces (depending on the class only), keeps the
pieces of its shard ``i/N`` (piece q belongs to shard q mod N), skips those the store already
holds, and runs the rest with joblib: local processes (``jobs``), or a Dask cluster through
joblib's Dask backend (``scheduler``). Each worker generates and evaluates one whole piece in
compiled code and returns a small summary; the driver commits it to the store. The totals are
built from the store only, so they are the same whatever the worker count, the shard split or
the interruptions.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from itertools import permutations

import numpy as np

from .generate import EnumClass, generate_piece, split_pieces
from .store import Store, totals

__all__ = ["run_enumeration", "piece_job", "RunResult", "minimal_hits", "format_table"]


@dataclass
class RunResult:
    """Totals per m, the hits, and bookkeeping of one (possibly resumed) run."""

    cls: EnumClass
    by_m: dict
    hits: list
    pieces: int
    pieces_run: int
    seconds: float
    worker_seconds: float
    complete: bool


def _masks_to_requests(masks, n):
    return [[x for x in range(n) if r >> x & 1] for r in masks]


def _heuristic_costs(masks, n):
    from ..heuristics.agglomerative import agglomerative
    from ..heuristics.greedy import greedy
    from ..instance import from_lists

    inst = from_lists(_masks_to_requests(masks, n))
    return int(agglomerative(inst).cost), int(greedy(inst).cost)


def piece_job(cls: EnumClass, p: int, prefix, piece: int, prop: str, threshold: Fraction,
              backend: str = "own", max_hits: int = 100000):
    """Generate and evaluate one piece; return ``(piece, seconds, summary, hits)``.

    The summary maps each m to counts (members, pruned, evaluated, undecided, hits) and the
    piece's exact maximum of OPT_glob / OPT_free with the number of members attaining it and
    the first of them in generation order. Hits list ``(m, masks, OPT_free, OPT_glob,
    agglomerative cost, greedy cost)``; at most ``max_hits`` are kept (all are counted).
    """
    from .evaluate import evaluate_batch

    t0 = time.perf_counter()
    if backend == "genbg":
        from .genbg import genbg_piece
        masks, ms = genbg_piece(cls, piece, p)
    else:
        masks, ms = generate_piece(cls, p, prefix, piece)
    res = evaluate_batch(masks, ms, cls.n, prop=prop, threshold=threshold)
    summary, hits = {}, []
    for i in range(len(ms)):
        m = int(ms[i])
        s = summary.setdefault(m, {"count": 0, "pruned": 0, "evaluated": 0, "undecided": 0,
                                   "hits": 0, "max_num": 0, "max_den": 0, "attain": 0,
                                   "witness": None})
        s["count"] += 1
        f, g = int(res.free[i]), int(res.glob[i])
        if f == -2:
            s["undecided"] += 1
        elif f == -1 or m <= 1:
            s["pruned"] += 1
        else:
            s["evaluated"] += 1
        if f > 0 and m >= 1:
            if s["max_den"] == 0 or g * s["max_den"] > s["max_num"] * f:
                s["max_num"], s["max_den"], s["attain"] = g, f, 1
                s["witness"] = [int(r) for r in masks[i, :m]]
            elif g * s["max_den"] == s["max_num"] * f:
                s["attain"] += 1
        if res.has_property(i, prop, threshold):
            s["hits"] += 1
            if len(hits) < max_hits:
                row = [int(r) for r in masks[i, :m]]
                hits.append((m, row, f, g, *_heuristic_costs(row, cls.n)))
    return piece, time.perf_counter() - t0, summary, hits


def _run_meta(cls, prop, threshold, backend, p, n_pieces):
    return {"class": [cls.n, cls.klo, cls.khi, cls.mlo, cls.mhi], "property": prop,
            "threshold": str(threshold), "backend": backend, "split_depth": p, "pieces": n_pieces}


def plan(cls: EnumClass, backend: str = "own", min_pieces: int = 256):
    """The split of the class into pieces: ``(p, prefixes, n_pieces)``."""
    if backend == "genbg":
        from .genbg import genbg_pieces
        return genbg_pieces(cls)
    p, prefixes = split_pieces(cls, min_pieces)
    return p, prefixes, 1 + len(prefixes)


def run_enumeration(cls: EnumClass, store_path, *, prop: str = "none", threshold=1,
                    shard: tuple[int, int] = (0, 1), jobs: int = 1, scheduler: str | None = None,
                    backend: str = "own", progress: bool = False, min_pieces: int = 256,
                    max_pieces: int | None = None) -> RunResult:
    """Enumerate ``cls`` (or shard ``i/N`` of it) into the store at ``store_path``.

    Parameters
    ----------
    cls : EnumClass
    store_path : path of the SQLite store (created; reused to resume)
    prop, threshold : the property of :func:`mptsearch.enumerate.evaluate.evaluate_batch`
    shard : (i, N), this run does the pieces q with q mod N == i
    jobs : local worker processes (joblib, loky backend)
    scheduler : address of a Dask scheduler (``tcp://host:8786``); joblib's Dask backend
    backend : ``"own"`` (compiled orderly generator) or ``"genbg"`` (nauty, when on PATH)
    progress : show a tqdm bar (pieces, members per second, ETA)
    max_pieces : stop after this many pieces (the run can be resumed later)

    Returns
    -------
    RunResult
        Totals from the store (all pieces of the shard done so far).
    """
    from joblib import Parallel, delayed, parallel_config

    threshold = Fraction(threshold).limit_denominator(10**6)
    i, N = shard
    if not (N >= 1 and 0 <= i < N):
        raise ValueError(f"shard {i}/{N}: need 0 <= i < N")
    t0 = time.perf_counter()
    p, prefixes, n_pieces = plan(cls, backend, min_pieces)
    store = Store(store_path, _run_meta(cls, prop, threshold, backend, p, n_pieces), shard)
    try:
        done = store.done()
        todo = [q for q in store.expected_pieces() if q not in done]
        if max_pieces is not None:
            todo = todo[:max_pieces]
        jobs_iter = (delayed(piece_job)(cls, p, prefixes[q - 1] if q and backend == "own" else None,
                                        q, prop, threshold, backend) for q in todo)
        bar = None
        if progress:
            from tqdm import tqdm
            bar = tqdm(total=len(todo), unit="piece", desc=cls.describe(), dynamic_ncols=True)
        members = 0
        if scheduler:
            from dask.distributed import Client
            client = Client(scheduler)
            ctx = parallel_config(backend="dask")
        else:
            client = None
            ctx = parallel_config(backend="loky" if jobs != 1 else "sequential", n_jobs=jobs)
        try:
            with ctx:
                par = Parallel(n_jobs=-1 if scheduler else jobs, return_as="generator")
                for piece, secs, summary, hits in par(jobs_iter):
                    store.commit_piece(piece, secs, summary, hits)
                    if bar is not None:
                        members += sum(s["count"] for s in summary.values())
                        bar.set_postfix_str(f"{members / max(bar.format_dict['elapsed'], 1e-9):,.0f} members/s",
                                            refresh=False)
                        bar.update(1)
        finally:
            if bar is not None:
                bar.close()
            if client is not None:
                client.close()
        by_m = totals(store.summaries())
        hits = store.hits()
        return RunResult(cls, by_m, hits, n_pieces, len(todo), time.perf_counter() - t0,
                         store.seconds(), store.complete())
    finally:
        store.close()


def _contained(small, big, n):
    """Whether some relabelling maps the family ``small`` into the family ``big``."""
    bigset = set(big)
    for perm in permutations(range(n)):
        if all(sum(1 << perm[x] for x in range(n) if r >> x & 1) in bigset for r in small):
            return True
    return False


def minimal_hits(cls: EnumClass, hits: list, prop: str, threshold) -> list[bool | None]:
    """For each hit, whether no proper subfamily has the property.

    When the class holds every smaller family (mlo <= 2: a family of at most one request has
    no gap, ratio 1 and nothing to share) the hits themselves are all the families with the
    property, so a hit is minimal iff no other hit embeds into it (checked over all n!
    relabellings). Otherwise every proper subfamily is evaluated directly (m <= 12), else None.
    """
    from ..exact.free import opt_free
    from ..exact.glob import opt_glob
    from ..heuristics.agglomerative import agglomerative
    from ..instance import from_lists

    threshold = Fraction(threshold)
    fams = [tuple(h[2]) if len(h) == 7 else tuple(h[1]) for h in hits]
    out: list[bool | None] = []
    if cls.mlo <= 2:
        for a, fa in enumerate(fams):
            out.append(not any(len(fb) < len(fa) and _contained(fb, fa, cls.n)
                               for b, fb in enumerate(fams) if b != a))
        return out
    for fa in fams:
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


def compact_masks(masks, n) -> str:
    digits = "0123456789"
    return " ".join("".join(digits[x] for x in range(n) if r >> x & 1) for r in masks)


def format_table(res: RunResult) -> str:
    """The summary table: per m, members, pruned, evaluated, hits, max ratio and a witness."""
    head = f"{'m':>3} {'members':>10} {'pruned':>10} {'evaluated':>10} {'hits':>7} " \
           f"{'max glob/free':>14} {'attained':>8}  witness (free vs glob)"
    lines = [head, "-" * len(head)]
    tot = {k: 0 for k in ("count", "pruned", "evaluated", "hits")}
    for m, t in res.by_m.items():
        for k in tot:
            tot[k] += t[k]
        if t["max"] is not None:
            r = t["max"]
            mx = f"{float(r):.4f}"
            wit = f"{compact_masks(t['witness'], res.cls.n)}  ({t['witness_free']} vs {t['witness_glob']})"
            att = str(t["attain"])
        else:
            mx, wit, att = "-", "", "-"
        und = f" [{t['undecided']} undecided]" if t["undecided"] else ""
        lines.append(f"{m:>3} {t['count']:>10,} {t['pruned']:>10,} {t['evaluated']:>10,} "
                     f"{t['hits']:>7,} {mx:>14} {att:>8}  {wit}{und}")
    lines.append(f"all {tot['count']:>10,} {tot['pruned']:>10,} {tot['evaluated']:>10,} {tot['hits']:>7,}")
    return "\n".join(lines)

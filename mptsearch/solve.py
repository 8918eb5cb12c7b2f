"""One instance through every solver, heuristic and bound: what ``mptsearch solve`` prints.

The exact methods are exponential (OPT_free in the number of requests m, OPT_glob in the
number of chunks n); past the given limits they are skipped with the reason instead of hanging.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from .instance import Instance, InstanceError

__all__ = ["Summary", "solve", "load_kernels", "METHODS", "DEFAULT_MAX_FREE_M", "DEFAULT_MAX_GLOB_N",
           "DEFAULT_FREE_TIME_LIMIT", "DEFAULT_MAX_DENSE_M"]

METHODS = ("opt_free", "opt_glob", "agglomerative", "greedy", "heaviest_first", "interval_dp", "production",
           "lower_bound")
MAX_INTERVAL_DP_M = 400  # O(m^3) Python loops: about 10 s at m = 400
#: the dense agglomerative heuristic and the MST bound are quadratic in m: about 4 s and 2 s at
#: m = 4000 on retrieval-shaped instances, 100 s and 45 s at m = 20,000
DEFAULT_MAX_DENSE_M = 5000
DEFAULT_MAX_FREE_M = 25
DEFAULT_MAX_GLOB_N = 26
DEFAULT_FREE_TIME_LIMIT = 60.0
_kernels_loaded = False  # set by the first load_kernels() of the process


def load_kernels() -> float:
    """Compile (on a first run) or load from numba's on-disk cache the kernels of the exact DPs
    and the MST bound, once per process, on small instances (both OPT_free loops, OPT_glob), so
    that the times a command reports are its methods' own.

    Returns the seconds it took, 0.0 when this process had loaded them already.
    """
    global _kernels_loaded
    if _kernels_loaded:
        return 0.0
    from .bounds import mst_lower_bound
    from .exact.free import opt_free
    from .exact.glob import opt_glob
    from .families import random_instance

    t0 = time.perf_counter()
    opt_free(random_instance(n=12, m=10, k=3, seed=0))  # the blocked loop (m >= 8)
    small = random_instance(n=12, m=4, k=3, seed=0)  # the plain loop
    opt_free(small)
    opt_glob(small)
    mst_lower_bound(small)
    _kernels_loaded = True
    return time.perf_counter() - t0


@dataclass
class Summary:
    """Values, certificates, timings and skip reasons of every method run on one instance."""

    inst: Instance
    values: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)
    skipped: dict = field(default_factory=dict)
    layout: list | None = None
    layout_method: str | None = None
    order: list | None = None
    hierarchy: object | None = None  # the Hierarchy behind ``layout`` (None for greedy)
    free_method: str | None = None  # which exact method gave OPT_free (mptsearch.exact.auto)
    free_bounds: tuple | None = None  # (lower, upper) when the closure program ran out of time

    def to_json(self) -> dict:
        inst = self.inst
        out = {"n": inst.n, "m": inst.m}
        for meth in METHODS:
            out[meth] = self.values.get(meth)
        free, glob = self.values.get("opt_free"), self.values.get("opt_glob")
        out["ratio"] = glob / free if free and glob else None
        out["opt_free_method"] = self.free_method
        out["opt_free_bounds"] = list(self.free_bounds) if self.free_bounds is not None else None
        out["layout"] = inst.label_orders(self.layout) if self.layout is not None else None
        out["layout_method"] = self.layout_method
        out["order"] = [inst.labels[x] for x in self.order] if self.order is not None else None
        from .draw import hierarchy_to_json, trie_to_json
        out["trie"] = trie_to_json(inst, self.layout) if self.layout is not None else None
        out["hierarchy"] = hierarchy_to_json(inst, self.hierarchy) if self.hierarchy is not None else None
        out["skipped"] = dict(self.skipped)
        out["seconds"] = {k: round(v, 6) for k, v in self.seconds.items()}
        out["notes"] = list(inst.notes)
        return out


def solve(inst: Instance, *, methods=METHODS, max_free_m: int = DEFAULT_MAX_FREE_M,
          max_glob_n: int = DEFAULT_MAX_GLOB_N, free_time_limit: float = DEFAULT_FREE_TIME_LIMIT,
          max_dense_m: int = DEFAULT_MAX_DENSE_M) -> Summary:
    """Run the chosen methods on ``inst``.

    Parameters
    ----------
    methods : iterable of str
        A subset of :data:`METHODS`.
    max_free_m, max_glob_n : int
        The subset DP runs up to m = max_free_m requests; past it OPT_free comes from the
        closure arborescence (:mod:`mptsearch.exact.auto` picks the method, ``free_method``
        says which). OPT_glob is skipped when n > max_glob_n (or m > 64), also, with the
        reason, when its table does not fit in memory.
    free_time_limit : float
        Seconds the closure arborescence may take; past them OPT_free is skipped with the
        bracket it proved (also in ``free_bounds``).
    max_dense_m : int
        The quadratic methods (agglomerative, lower_bound) are skipped, with the reason, when
        m > max_dense_m; ``mptsearch layout`` runs their sparse versions on traces. The greedy
        runs on the sparse model (:mod:`.serving.sparse_greedy`, the same layout) at any m.

    Returns
    -------
    Summary
        ``layout`` is an optimal free layout when OPT_free ran, else the cheapest heuristic
        layout (``layout_method`` says which), ``hierarchy`` the hierarchy it is read off
        (None for greedy); ``order`` an optimal global order when OPT_glob ran.

    Examples
    --------
    >>> from mptsearch.instance import parse_instance
    >>> s = solve(parse_instance("012 013 023 123"), methods=["opt_free", "opt_glob"])
    >>> s.values["opt_free"], s.values["opt_glob"], s.layout_method
    (8, 9, 'opt_free')
    """
    unknown = set(methods) - set(METHODS)
    if unknown:
        raise InstanceError(f"unknown method(s): {', '.join(sorted(unknown))}; choose from {', '.join(METHODS)}")
    s = Summary(inst)
    candidates: list[tuple[int, str, list, object]] = []
    dense_reason = (f"m={inst.m} requests exceeds --max-dense-m {max_dense_m} (O(m^2) time); mptsearch layout "
                    f"runs the sparse methods on traces")
    for name in ("agglomerative", "lower_bound"):
        if name in methods and inst.m > max_dense_m:
            s.skipped[name] = dense_reason
    methods = [meth for meth in methods if meth not in s.skipped]
    if "opt_free" in methods or ("opt_glob" in methods and inst.n <= max_glob_n) or "lower_bound" in methods:
        load = load_kernels()  # before any clock starts
        if load:
            s.seconds["kernel_load"] = load

    def timed(name, fn):
        t0 = time.perf_counter()
        try:
            result = fn()
        except InstanceError as exc:  # too large for memory: a reason, not a crash
            s.skipped[name] = str(exc)
            return None
        s.seconds[name] = time.perf_counter() - t0
        return result

    if "opt_free" in methods:
        # the fastest exact method for the size (mptsearch/exact/auto.py): prefix sets, the
        # subset DP, or the closure arborescence, which has no m limit but a time limit
        from .exact.auto import opt_free_exact
        from .exact.prefix_sets import prefix_sets_apply
        if prefix_sets_apply(inst):
            from .exact.prefix_sets import opt_free_prefix_sets
            from .families import k4_3
            t0 = time.perf_counter()
            opt_free_prefix_sets(k4_3())  # compiled once per process: timings are the solve's own
            if inst.n > 7:  # the multi-word kernels of 8-10 chunks
                from .families import sunflowers
                opt_free_prefix_sets(sunflowers(4, 3))
            s.seconds["kernel_load"] = time.perf_counter() - t0
        out = timed("opt_free", lambda: opt_free_exact(inst, max_dp_m=max_free_m, time_limit=free_time_limit))
        if out is not None:
            r, method = out
            s.free_method = method
            if getattr(r, "optimal", True):
                s.values["opt_free"] = r.value
                candidates.append((r.value, "opt_free", r.layout, r.hierarchy))
            else:
                from .exact.auto import METHOD_NAMES
                s.skipped["opt_free"] = (f"{METHOD_NAMES[method]} not finished in {free_time_limit:g} s: "
                                         f"{r.lower} <= OPT_free <= {r.upper} (gap {100 * r.gap:.2f}%)")
                s.seconds.pop("opt_free", None)
                s.free_bounds = (r.lower, r.upper)
    if "opt_glob" in methods:
        if inst.n > max_glob_n:
            s.skipped["opt_glob"] = f"n={inst.n} chunks exceeds --max-glob-n {max_glob_n} (O(2^n) time and memory)"
        elif inst.m > 64:
            s.skipped["opt_glob"] = f"m={inst.m} requests: the OPT_glob DP supports at most 64"
        else:
            from .exact.glob import opt_glob
            r = timed("opt_glob", lambda: opt_glob(inst))
            if r is not None:
                s.values["opt_glob"] = r.value
                s.order = r.order
    if "agglomerative" in methods:
        from .heuristics.agglomerative import agglomerative
        r = timed("agglomerative", lambda: agglomerative(inst))
        s.values["agglomerative"] = r.cost
        candidates.append((r.cost, "agglomerative", r.layout, r.hierarchy))
    if "greedy" in methods:
        from .serving.layout import as_sparse
        from .serving.sparse_greedy import greedy_layout
        from .trie import trie_cost
        lay = timed("greedy", lambda: greedy_layout(as_sparse(inst)))
        s.values["greedy"] = trie_cost(inst, lay)
        candidates.append((s.values["greedy"], "greedy", lay, None))
    if "heaviest_first" in methods:
        # within k OPT_free for requests of at most k chunks (docs/approximation.md, Theorem B1)
        from .heuristics.approximation import heaviest_first_order
        from .trie import order_layout, trie_cost
        lay = timed("heaviest_first", lambda: order_layout(inst, heaviest_first_order(inst)))
        s.values["heaviest_first"] = trie_cost(inst, lay)
        candidates.append((s.values["heaviest_first"], "heaviest_first", lay, None))
    if "interval_dp" in methods:
        # the requests as given, as a line; within 2 ceil(log2 m) OPT_free when that line has
        # consecutive ones (docs/approximation.md, Theorem B3)
        if inst.m > MAX_INTERVAL_DP_M:
            s.skipped["interval_dp"] = f"m={inst.m} requests exceeds {MAX_INTERVAL_DP_M} (O(m^3) time)"
        else:
            from .heuristics.approximation import interval_hierarchy
            from .trie import trie_cost
            h, _ = timed("interval_dp", lambda: interval_hierarchy(inst))
            lay = h.layout(inst)
            s.values["interval_dp"] = trie_cost(inst, lay)
            candidates.append((s.values["interval_dp"], "interval_dp", lay, h))
    if "production" in methods:
        from .trie import production_cost
        s.values["production"] = timed("production", lambda: production_cost(inst))
    if "lower_bound" in methods:
        from .bounds import mst_lower_bound
        s.values["lower_bound"] = timed("lower_bound", lambda: mst_lower_bound(inst))
    if candidates:
        best = min(candidates, key=lambda c: (c[0], c[1] != "opt_free"))
        s.layout_method, s.layout, s.hierarchy = best[1], best[2], best[3]
    return s

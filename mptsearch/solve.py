"""One instance through every solver, heuristic and bound: what ``mptsearch solve`` prints.

The exact methods are exponential (OPT_free in the number of requests m, OPT_glob in the
number of chunks n); past the given limits they are skipped with the reason instead of hanging.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from .instance import Instance, InstanceError

__all__ = ["Summary", "solve", "METHODS", "DEFAULT_MAX_FREE_M", "DEFAULT_MAX_GLOB_N"]

METHODS = ("opt_free", "opt_glob", "agglomerative", "greedy", "production", "lower_bound")
DEFAULT_MAX_FREE_M = 25
DEFAULT_MAX_GLOB_N = 26
_kernels_loaded = False  # set by the first solve() that runs OPT_free


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

    def to_json(self) -> dict:
        inst = self.inst
        out = {"n": inst.n, "m": inst.m}
        for meth in METHODS:
            out[meth] = self.values.get(meth)
        free, glob = self.values.get("opt_free"), self.values.get("opt_glob")
        out["ratio"] = glob / free if free and glob else None
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
          max_glob_n: int = DEFAULT_MAX_GLOB_N) -> Summary:
    """Run the chosen methods on ``inst``.

    Parameters
    ----------
    methods : iterable of str
        A subset of :data:`METHODS`.
    max_free_m, max_glob_n : int
        OPT_free is skipped when m > max_free_m, OPT_glob when n > max_glob_n (or m > 64);
        either is also skipped, with the reason, when its table does not fit in memory.

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
        from .exact.prefix_sets import prefix_sets_apply
        if prefix_sets_apply(inst):
            # unit weights on <= 7 chunks, past the DP's crossover: no 3^m, no m limit
            from .exact.prefix_sets import opt_free_prefix_sets
            from .families import k4_3
            t0 = time.perf_counter()
            opt_free_prefix_sets(k4_3())  # compiled once per process: timings are the solve's own
            s.seconds["kernel_load"] = time.perf_counter() - t0
            r = timed("opt_free", lambda: opt_free_prefix_sets(inst))
            s.values["opt_free"] = r.value
            candidates.append((r.value, "opt_free", r.layout, r.hierarchy))
        elif inst.m > max_free_m:
            s.skipped["opt_free"] = f"m={inst.m} requests exceeds --max-free-m {max_free_m} (O(3^m) time)"
        else:
            from .exact.free import opt_free
            global _kernels_loaded
            if not _kernels_loaded:
                # Load the compiled kernels once per process, so that timings are the solve's own.
                from .families import random_instance
                t0 = time.perf_counter()
                opt_free(random_instance(n=12, m=10, k=3, seed=0))
                opt_free(random_instance(n=12, m=4, k=3, seed=0))
                s.seconds["kernel_load"] = time.perf_counter() - t0
                _kernels_loaded = True
            r = timed("opt_free", lambda: opt_free(inst))
            if r is not None:
                s.values["opt_free"] = r.value
                candidates.append((r.value, "opt_free", r.layout, r.hierarchy))
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
        from .heuristics.greedy import greedy
        r = timed("greedy", lambda: greedy(inst))
        s.values["greedy"] = r.cost
        candidates.append((r.cost, "greedy", r.layout, None))
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

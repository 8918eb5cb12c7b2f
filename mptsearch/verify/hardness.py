"""NP-hardness, executable: minimum vertex cover reduces to MPT with two-chunk requests.

A graph G = (V, E) becomes the instance whose chunks are the non-isolated vertices (unit
weight) and whose requests are the edges. Its OPT_free is tau(G) + |E| (the paper, Section 4;
derivation in :mod:`mptsearch.encodings.vertex_cover`). :func:`hardness_check` computes the
instance's cost with the MPT solvers that apply (free and glob DPs, trie search, the k <= 2
CP-SAT and MaxSAT models) and tau(G) with plain vertex-cover solvers sharing no code with them
(CP-SAT, RC2, and brute force on small graphs), and checks cost = tau + |E| for every pair.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from ..instance import Instance, InstanceError, from_lists

__all__ = ["graph_instance", "random_graph", "read_edge_list", "brute_vertex_cover", "hardness_check",
           "HardnessReport"]


def graph_instance(edges) -> Instance:
    """The k=2 instance of a graph: one unit-weight request {u, v} per edge."""
    edges = [tuple(int(a) for a in e) for e in edges]
    if not edges:
        raise InstanceError("the graph has no edges")
    for u, v in edges:
        if u == v:
            raise InstanceError(f"self-loop at vertex {u}")
    return from_lists([[u, v] for u, v in edges])


def random_graph(n_vertices: int, n_edges: int, *, seed=None) -> list[tuple[int, int]]:
    """G(n, M): ``n_edges`` distinct edges drawn uniformly on ``n_vertices`` vertices."""
    cap = n_vertices * (n_vertices - 1) // 2
    if not 1 <= n_edges <= cap:
        raise InstanceError(f"a graph on {n_vertices} vertices has 1..{cap} edges, asked for {n_edges}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    if n_edges > cap // 2:
        all_e = list(combinations(range(n_vertices), 2))
        pick = rng.choice(len(all_e), size=n_edges, replace=False)
        return sorted(all_e[p] for p in pick)
    seen: set = set()
    while len(seen) < n_edges:
        u, v = (int(a) for a in rng.choice(n_vertices, size=2, replace=False))
        seen.add((min(u, v), max(u, v)))
    return sorted(seen)


def read_edge_list(path: str) -> list[tuple[int, int]]:
    """Edges from a text file, one ``u v`` pair of integers per line (``#`` comments)."""
    edges = []
    try:
        fh = open(path, encoding="utf-8")
    except OSError as exc:
        raise InstanceError(f"cannot read edge list {path}: {exc.strerror}") from None
    with fh:
        for lineno, line in enumerate(fh, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.replace(",", " ").split()
            if len(parts) != 2:
                raise InstanceError(f"{path}:{lineno}: expected two vertex ids, got {line!r}")
            try:
                edges.append((int(parts[0]), int(parts[1])))
            except ValueError:
                raise InstanceError(f"{path}:{lineno}: vertex ids must be integers, got {line!r}") from None
    return edges


def brute_vertex_cover(edges) -> int:
    """tau(G) by trying vertex sets of increasing size (exponential; for about 20 vertices)."""
    verts = sorted({a for e in edges for a in e})
    for size in range(len(verts) + 1):
        for cover in combinations(verts, size):
            s = set(cover)
            if all(u in s or v in s for u, v in edges):
                return size
    return len(verts)  # pragma: no cover


@dataclass
class HardnessReport:
    """tau(G) by each vertex-cover method, the instance cost by each MPT method, the verdict."""

    vertices: int
    edges: int
    tau: dict
    cost: dict
    seconds: dict
    problems: list
    ok: bool
    skipped: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return dict(self.__dict__)


def hardness_check(edges, *, brute_max_vertices: int = 20, dp_free_max_m: int = 14,
                   dp_glob_max_n: int = 20, trie_max_m: int = 10, time_limit: float = 60.0,
                   workers: int = 1, seed: int = 0) -> HardnessReport:
    """Check OPT(instance of G) = tau(G) + |E| by independent methods on both sides.

    Notes
    -----
    The exact MPT DPs are exponential in |E| (free) and |V| (glob); the MPT encodings and the
    vertex-cover solvers scale to hundreds of vertices.
    """
    from ..encodings.vertex_cover import solve_k2_cpsat, solve_k2_maxsat, vertex_cover_cpsat, vertex_cover_maxsat

    inst = graph_instance(edges)
    edges = [tuple(sorted(o)) for o in inst.orders]  # chunk ids, duplicates merged
    nv, ne = inst.n, inst.m
    tau, cost, secs, skipped, problems = {}, {}, {}, {}, []

    def timed(label, fn):
        t0 = time.perf_counter()
        out = fn()
        secs[label] = round(time.perf_counter() - t0, 4)
        return out

    r = timed("vc-cpsat", lambda: vertex_cover_cpsat(edges, time_limit=time_limit, workers=workers, seed=seed))
    if r.optimal:
        tau["vc-cpsat"] = r.tau
    else:
        skipped["vc-cpsat"] = f"not proven optimal in {time_limit}s"
    tau["vc-maxsat"] = timed("vc-maxsat", lambda: vertex_cover_maxsat(edges)).tau
    if nv <= brute_max_vertices:
        tau["brute"] = timed("brute", lambda: brute_vertex_cover(edges))
    else:
        skipped["brute"] = f"{nv} vertices > {brute_max_vertices}"

    r = timed("k2-cpsat", lambda: solve_k2_cpsat(inst, time_limit=time_limit, workers=workers, seed=seed))
    if r.optimal:
        cost["k2-cpsat"] = r.value
    else:
        skipped["k2-cpsat"] = f"not proven optimal in {time_limit}s"
    cost["k2-maxsat"] = timed("k2-maxsat", lambda: solve_k2_maxsat(inst)).value
    if ne <= dp_free_max_m:
        from ..exact.free import opt_free
        cost["dp-free"] = timed("dp-free", lambda: opt_free(inst)).value
    else:
        skipped["dp-free"] = f"{ne} edges > {dp_free_max_m}"
    if nv <= dp_glob_max_n:
        from ..exact.glob import opt_glob
        cost["dp-glob"] = timed("dp-glob", lambda: opt_glob(inst)).value
    else:
        skipped["dp-glob"] = f"{nv} vertices > {dp_glob_max_n}"
    if ne <= trie_max_m:
        from .triesearch import trie_search
        cost["trie-search"] = timed("trie-search", lambda: trie_search(inst)).value
    else:
        skipped["trie-search"] = f"{ne} edges > {trie_max_m}"

    taus = set(tau.values())
    if len(taus) != 1:
        problems.append(f"vertex-cover methods disagree: {tau}")
    for name, c in cost.items():
        for tname, t in tau.items():
            if c != t + ne:
                problems.append(f"{name} cost {c} != tau {t} ({tname}) + |E| {ne}")
    return HardnessReport(nv, ne, tau, cost, secs, problems, not problems, skipped)

"""NP-hardness, executable: minimum vertex cover reduces to MPT (an L-reduction).

A graph G = (V, E) becomes the instance whose chunks are the non-isolated vertices (unit
weight) and whose requests are the edges. Its OPT_free is tau(G) + |E| (the paper, Section 4;
derivation in :mod:`mptsearch.encodings.vertex_cover`). For requests of exactly k > 2 chunks
:func:`reduced_instance` pads every edge: with ``pad="shared"`` by the same k-2 new chunks
(OPT = tau + |E| + k - 2), with ``pad="private"`` by k-2 new chunks of its own
(OPT = tau + (k-1)|E|); docs/approximation.md, Theorems A1-A3, proves both identities and that
the first vertex of every request in *any* layout of cost C is a vertex cover of size at most
C - |E| - (the padding's cost) (:func:`cover_from_layout`), which makes the reduction an
L-reduction with constants alpha = Delta + 1 (degree <= Delta, k = 2) and beta = 1.

:func:`hardness_check` computes the instance's cost with the MPT solvers that apply (free and
glob DPs, trie search, the k <= 2 CP-SAT and MaxSAT models) and tau(G) with plain vertex-cover
solvers sharing no code with them (CP-SAT, RC2, and brute force on small graphs), checks the
identity for every pair, and checks that each optimal layout's cover is a minimum vertex cover.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from ..instance import Instance, InstanceError, from_lists

__all__ = ["graph_instance", "reduced_instance", "padding_cost", "cover_from_layout", "is_vertex_cover",
           "random_graph", "read_edge_list", "brute_vertex_cover", "hardness_check", "HardnessReport", "PADS"]

PADS = ("shared", "private")


def graph_instance(edges) -> Instance:
    """The k=2 instance of a graph: one unit-weight request {u, v} per edge."""
    edges = [tuple(int(a) for a in e) for e in edges]
    if not edges:
        raise InstanceError("the graph has no edges")
    for u, v in edges:
        if u == v:
            raise InstanceError(f"self-loop at vertex {u}")
    return from_lists([[u, v] for u, v in edges])


def _distinct_edges(edges) -> list[tuple[int, int]]:
    out, seen = [], set()
    for e in edges:
        u, v = (int(a) for a in e)
        if u == v:
            raise InstanceError(f"self-loop at vertex {u}")
        key = (min(u, v), max(u, v))
        if key not in seen:
            seen.add(key)
            out.append(key)
    if not out:
        raise InstanceError("the graph has no edges")
    return out


def reduced_instance(edges, k: int = 2, pad: str = "shared") -> Instance:
    """The instance of a graph with every request of exactly k chunks (unit weights).

    Request e is the edge {u, v} (its vertices keep their labels) plus k-2 padding chunks,
    labelled from max(V)+1 on: the same k-2 chunks for every edge (``pad="shared"``) or k-2
    chunks of its own (``pad="private"``). Duplicate edges are merged first. k = 2 is
    :func:`graph_instance`. O(k |E|) time.
    """
    if k < 2:
        raise InstanceError(f"the reduction needs k >= 2, got {k}")
    if pad not in PADS:
        raise InstanceError(f"unknown padding {pad!r}; use one of {', '.join(PADS)}")
    edges = _distinct_edges(edges)
    base = max(max(e) for e in edges) + 1
    if pad == "shared":
        reqs = [[u, v] + [base + j for j in range(k - 2)] for u, v in edges]
    else:
        reqs = [[u, v] + [base + i * (k - 2) + j for j in range(k - 2)] for i, (u, v) in enumerate(edges)]
    return from_lists(reqs)


def padding_cost(n_edges: int, k: int, pad: str) -> int:
    """What the padding adds to OPT: k-2 (shared, one path) or (k-2)|E| (private)."""
    return (k - 2) if pad == "shared" else (k - 2) * n_edges


def is_vertex_cover(edges, cover) -> bool:
    """Whether ``cover`` (vertex labels) meets every edge."""
    c = set(cover)
    return all(u in c or v in c for u, v in edges)


def cover_from_layout(inst: Instance, layout, vertices) -> list:
    """The first vertex chunk of every request of ``layout`` (chunk ids), as sorted vertex labels.

    For any layout of a :func:`reduced_instance` of cost C this is a vertex cover of size at most
    C - |E| - :func:`padding_cost` (docs/approximation.md, Theorems A1-A3). O(k |E|) time.
    """
    vset = set(vertices)
    first = set()
    for seq in layout:
        for x in seq:
            lab = inst.labels[int(x)]
            if lab in vset:
                first.add(lab)
                break
    return sorted(first)


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
    k: int = 2
    pad: str = "shared"
    padding: int = 0

    def to_json(self) -> dict:
        return dict(self.__dict__)


def hardness_check(edges, *, k: int = 2, pad: str = "shared", brute_max_vertices: int = 20,
                   dp_free_max_m: int = 14, dp_glob_max_n: int = 20, trie_max_m: int = 10,
                   time_limit: float = 60.0, workers: int = 1, seed: int = 0) -> HardnessReport:
    """Check OPT(reduced instance of G) = tau(G) + |E| + padding by independent methods.

    Every exact MPT method that returns a layout also has the layout's cover checked: the first
    vertex of each request must be a vertex cover of size cost - |E| - padding = tau(G).

    Notes
    -----
    The exact MPT DPs are exponential in |E| (free) and in the number of chunks (glob); the
    k = 2 encodings and the vertex-cover solvers scale to hundreds of vertices.
    """
    from ..encodings.vertex_cover import solve_k2_cpsat, solve_k2_maxsat, vertex_cover_cpsat, vertex_cover_maxsat
    from ..trie import order_layout, trie_cost

    edges = _distinct_edges(edges)
    inst = reduced_instance(edges, k, pad)
    nv, ne = len({a for e in edges for a in e}), len(edges)
    offset = padding_cost(ne, k, pad)
    tau, cost, secs, skipped, problems = {}, {}, {}, {}, []
    layouts: dict = {}

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

    if k == 2:
        r = timed("k2-cpsat", lambda: solve_k2_cpsat(inst, time_limit=time_limit, workers=workers, seed=seed))
        if r.optimal:
            cost["k2-cpsat"], layouts["k2-cpsat"] = r.value, r.layout
        else:
            skipped["k2-cpsat"] = f"not proven optimal in {time_limit}s"
        r = timed("k2-maxsat", lambda: solve_k2_maxsat(inst))
        cost["k2-maxsat"], layouts["k2-maxsat"] = r.value, r.layout
    else:
        skipped["k2-cpsat"] = skipped["k2-maxsat"] = f"k = {k} > 2"
    if ne <= dp_free_max_m:
        from ..exact.free import opt_free
        r = timed("dp-free", lambda: opt_free(inst))
        cost["dp-free"], layouts["dp-free"] = r.value, r.layout
    else:
        skipped["dp-free"] = f"{ne} edges > {dp_free_max_m}"
    if inst.n <= dp_glob_max_n:
        from ..exact.glob import opt_glob
        r = timed("dp-glob", lambda: opt_glob(inst))
        cost["dp-glob"], layouts["dp-glob"] = r.value, order_layout(inst, r.order)
    else:
        skipped["dp-glob"] = f"{inst.n} {'vertices' if k == 2 else 'chunks'} > {dp_glob_max_n}"
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
            if c != t + ne + offset:
                problems.append(f"{name} cost {c} != tau {t} ({tname}) + |E| {ne} + padding {offset}")
    vertices = {a for e in edges for a in e}
    for name, lay in layouts.items():
        c = trie_cost(inst, lay)
        cover = cover_from_layout(inst, lay, vertices)
        if c != cost[name]:
            problems.append(f"{name} layout costs {c} on the trie, reported {cost[name]}")
        if not is_vertex_cover(edges, cover):
            problems.append(f"{name} layout's first vertices are not a vertex cover")
        elif len(cover) > c - ne - offset:
            problems.append(f"{name} layout's cover has {len(cover)} > cost - |E| - padding = {c - ne - offset}")
    return HardnessReport(nv, ne, tau, cost, secs, problems, not problems, skipped, k, pad, offset)

"""The intersection closure of a family and its cover graph: Theorem 1 as a Steiner arborescence.

Let F = {R_1..R_m} be the requests (distinct, nonempty) and C the *intersection closure*: every
nonempty intersection of a nonempty subfamily of F (the requests themselves included). Put the
empty set ∅ in as the root, and give the pair X ⊊ Y (X in C ∪ {∅}, Y in C) the arc X -> Y of cost
w(Y - X). An *arborescence* is a set of arcs giving every node it reaches one parent, rooted at ∅.

**Theorem (closure form of Theorem 1).** For any positive integer weights, OPT_free(F) is the
least cost of an arborescence rooted at ∅ that reaches every request; the arcs may be restricted
to the *cover pairs* of C ∪ {∅} (X ⊊ Y with no Z in C strictly between).

*Proof.* (OPT_free <= every arborescence, over any sets.) Fix an order of Y - X for every arc
and give each reached node Y the sequence seq(Y) = seq(X) + order(Y - X), X its parent,
seq(∅) = (). Lay out request R as seq(R) (a permutation of R). A trie node is a distinct prefix
p of some seq(R); p ends inside the segment of one arc X -> Y on R's root path, j chunks into it
(1 <= j <= |Y - X|), and p is a function of (arc, j). So the trie's nodes are the image of the
pairs (arc, j), the node's weight is the weight of the j-th chunk of the arc's segment, and the
trie costs at most sum over arcs of w(Y - X).

(Some arborescence over the closure costs <= OPT_free.) By Theorem 1 (the paper, Section 3)
some hierarchy H (a full binary tree over the requests, I(v) the intersection of the requests
below v) has COST(H) = OPT_free. Map v to the set I(v) (in C, or ∅): a leaf to its request,
I(child) ⊇ I(parent). Add the root ∅ above H's root. Summing w(I(c)) - w(I(v)) over all the
tree edges v -> c, the edge ∅ -> root of H included (each internal v has two children and one
parent), gives sum_leaves w(R_i) + sum_internal w(I(v)) - 2 sum_internal w(I(v)) = COST(H).
This tree of sets may repeat a set (an edge with I(c) = I(v) costs 0; two unrelated nodes with
equal sets; a request inside another, R_1 = I(v) for R_1 ⊂ R_2; an empty intersection, equal to
the root). Repeats are removed without raising the cost: if nodes a != b carry the same set S,
with b not an ancestor of a, hang b's children under a and delete b (b's incoming edge cost
w(S - S_parent) >= 0 disappears; the children keep their edge costs; no cycle since a is not
below b). What is left is an arborescence over distinct members of C ∪ {∅}, reaching every
request, of cost <= COST(H) = OPT_free. The strict arcs need X ⊊ Y: equal sets were merged.

(Cover pairs suffice.) If an arc X -> Y has Z in C with X ⊊ Z ⊊ Y, replace it by Z -> Y when
Z is in the tree (Z is not below Y, being smaller; cost falls from w(Y - X) to w(Y - Z)) and by
X -> Z -> Y otherwise (same cost, w adds up along the chain). Each step lowers the cost or adds
a node, so it ends, with cover arcs only. QED.

Consequences used by the solver (each proved in a line):

- *Children of a node share nothing beyond it*: if X -> Y1 and X -> Y2 are cover arcs,
  Y1 ∩ Y2 = X (Y1 ∩ Y2 is in C ∪ {∅}, between X and Y1; it is not Y1, else X ⊊ Y1 ⊊ Y2 and
  X -> Y2 is no cover). So for every node X and chunk c outside X, at most in(X) of the arcs
  from X whose head holds c are used (the *chunk rows* of :mod:`mptsearch.exact.arborescence`).
- *Identical chunk columns merge*: chunks a, b in exactly the same requests are in exactly the
  same members of C, so every arc cost depends on w(a) + w(b) only: one chunk of that weight is
  exact (a and b are laid out next to each other).
- *Components*: requests that share no chunk, even through others, have disjoint closures;
  the arborescence splits at the root, so the components are solved apart and added.
- *Requests inside others stay*: R_1 ⊂ R_2 is a node the tree must reach (often as R_2's
  ancestor, at no extra cost); it is not removable, and the model keeps it.

Building C: start from the requests and intersect the newest sets with every request until no
new set appears (each member of C is then found: an intersection of t requests appears by round
t). The covers below Y are the maximal sets among {Y ∩ R : R ⊉ Y} (any proper subset of Y in C
is an intersection of requests one of which misses a chunk of Y). Sets are bitmasks in uint64
words, any number of chunks; the closure can hold up to sum_i 2^|R_i| sets, so its size is
capped (:class:`ClosureTooLarge`).

Past :data:`SPARSE_CHUNKS` chunks the words make each intersection slow (a retrieval trace has
thousands of chunks and requests of ten), so the same two steps run over Python-int masks with
a chunk -> requests index: a set is intersected only with the requests that share one of its
chunks (the others give ∅, which is not in C and, as a cover candidate, is inside every
nonempty candidate, so it matters only when it is the sole one: the root). Same sets, same
arcs, same order of the sets.

With a deadline both steps read the clock as they go and stop with :class:`BuildTimeout`; no
part of a closure is ever returned, since a program over some of C's sets lacks arcs and its
value need not bound OPT_free from below.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..hierarchy import _mask_ids
from ..instance import Instance, InstanceError

__all__ = ["Reduced", "ClosureGraph", "ClosureTooLarge", "BuildTimeout", "reduce_instance", "closure_graph",
           "MAX_SETS", "SPARSE_CHUNKS", "BUILD_CHECK"]

MAX_SETS = 300_000  # default cap on |C|: beyond it the model outgrows a workstation's memory
#: From this many (merged) chunks on, :func:`closure_graph` works on sparse sets (module docstring).
SPARSE_CHUNKS = 256
#: With a deadline, the builds read the clock every this many sets (a few milliseconds of work).
BUILD_CHECK = 64


class ClosureTooLarge(InstanceError):
    """The intersection closure has more sets than the cap allows."""


class BuildTimeout(TimeoutError):
    """A model build (the closure, its cover arcs or the per-request sub-DAGs) passed its deadline.
    Nothing is returned half built: the caller falls back to a bound that needs no closure."""


class _Clock:
    """Reads ``clock`` every :data:`BUILD_CHECK` ticks and raises :class:`BuildTimeout` past
    ``deadline`` (None: never)."""

    def __init__(self, deadline, clock, what: str):
        self.deadline, self.clock, self.what, self.n = deadline, clock, what, 0

    def tick(self, by: int = 1) -> None:
        if self.deadline is None:
            return
        self.n += by
        if self.n >= BUILD_CHECK:
            self.n = 0
            self.now()

    def now(self) -> None:
        if self.deadline is not None and self.clock() >= self.deadline:
            raise BuildTimeout(f"out of time building {self.what}")


@dataclass(frozen=True)
class Reduced:
    """An instance after the exact reductions: merged chunk columns, split into components.

    ``groups[c]`` lists the original chunk ids merged into chunk c (laid out together, in
    this order), ``weights[c]`` their total weight; ``components`` lists, per component, the
    original request indices and their masks over the merged chunks (Python ints)."""

    groups: list
    weights: list
    components: list  # of (request indices, masks)


def reduce_instance(inst: Instance) -> Reduced:
    """Merge chunks with identical request sets and split the requests into components that
    share no chunk (module docstring: both exact). O(sum_i |R_i| + m alpha(m))."""
    member: list[list[int]] = [[] for _ in range(inst.n)]
    for i, o in enumerate(inst.orders):
        for x in o:
            member[x].append(i)
    columns: dict[tuple, list[int]] = {}
    for x in range(inst.n):
        columns.setdefault(tuple(member[x]), []).append(x)
    groups = [xs for key, xs in columns.items() if key]
    weights = [int(sum(int(inst.weights[x]) for x in xs)) for xs in groups]
    merged_of = {x: c for c, xs in enumerate(groups) for x in xs}
    masks = [0] * inst.m
    for i, o in enumerate(inst.orders):
        for x in o:
            masks[i] |= 1 << merged_of[x]
    parent = list(range(inst.m))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for key in columns:
        for i in key[1:]:
            ra, rb = find(key[0]), find(i)
            if ra != rb:
                parent[rb] = ra
    comps: dict[int, list[int]] = {}
    for i in range(inst.m):
        comps.setdefault(find(i), []).append(i)
    components = [(idx, [masks[i] for i in idx]) for idx in comps.values()]
    return Reduced(groups=groups, weights=weights, components=components)


def _to_words(masks, nwords: int) -> np.ndarray:
    out = np.zeros((len(masks), nwords), dtype=np.uint64)
    for i, x in enumerate(masks):
        for w in range(nwords):
            out[i, w] = (x >> (64 * w)) & 0xFFFFFFFFFFFFFFFF
    return out


def _from_words(row) -> int:
    return sum(int(v) << (64 * w) for w, v in enumerate(row))


def _unique_rows(a: np.ndarray) -> np.ndarray:
    return np.unique(a, axis=0) if len(a) else a


@dataclass(frozen=True)
class ClosureGraph:
    """The cover graph of C ∪ {∅} for one component.

    ``sets[0]`` is ∅ (the root), the others are the members of C as Python-int masks, sorted
    by size; ``tails``/``heads`` index the cover arcs, ``costs`` their w(Y - X);
    ``requests[i]`` is the node of the component's i-th request."""

    sets: list
    tails: np.ndarray
    heads: np.ndarray
    costs: np.ndarray
    requests: list


def _closure(R: np.ndarray, max_sets: int, tick: _Clock | None = None) -> np.ndarray:
    """All nonempty intersections of the rows of R (uint64 words), by rounds of intersecting
    the newest sets with every request."""
    tick = _Clock(None, None, "") if tick is None else tick
    known = _unique_rows(R)
    seen = {row.tobytes() for row in known}
    frontier = known
    parts = [known]
    block = max(1, 2_000_000 // max(1, len(R)))
    while len(frontier):
        fresh = []
        for s in range(0, len(frontier), block):
            P = (frontier[s:s + block, None, :] & R[None, :, :]).reshape(-1, R.shape[1])
            P = _unique_rows(P[P.any(axis=1)])
            new = [row for row in P if row.tobytes() not in seen]
            for row in new:
                seen.add(row.tobytes())
            if new:
                fresh.append(np.array(new, dtype=np.uint64))
            if len(seen) > max_sets:
                raise _too_large(max_sets)
            tick.now()
        frontier = np.concatenate(fresh) if fresh else np.zeros((0, R.shape[1]), dtype=np.uint64)
        parts.append(frontier)
    return np.concatenate(parts)


def _popcount_words(A: np.ndarray) -> np.ndarray:
    return np.unpackbits(A.view(np.uint8), axis=1).sum(axis=1)


def _too_large(max_sets: int) -> ClosureTooLarge:
    return ClosureTooLarge(f"the intersection closure has more than {max_sets} sets (raise max_sets, or use a bound)")


def _sparse_closure(masks: list, meets, max_sets: int, tick: _Clock) -> set:
    """All nonempty intersections of ``masks`` (Python ints), by rounds of intersecting the
    newest sets with the requests ``meets(x)`` names (those sharing a chunk with x)."""
    closure = set(masks)
    frontier = set(masks)
    if len(closure) > max_sets:
        raise _too_large(max_sets)
    while frontier:
        fresh = set()
        for x in frontier:
            tick.tick()
            for i in meets(x):
                z = x & masks[i]
                if z and z not in closure:
                    fresh.add(z)
        closure |= fresh
        if len(closure) > max_sets:
            raise _too_large(max_sets)
        frontier = fresh
    return closure


def _closure_graph_sparse(masks: list, weights: list, max_sets: int, tick: _Clock | None = None) -> ClosureGraph:
    """:func:`closure_graph` over Python-int masks with a chunk -> requests index (module
    docstring). O(sum over sets X in C of the requests sharing a chunk with X) set operations,
    plus the maximal-set filter over each Y's distinct candidates."""
    tick = _Clock(None, None, "") if tick is None else tick
    share: dict[int, list[int]] = {}
    for i, x in enumerate(masks):
        for c in _mask_ids(x):
            share.setdefault(c, []).append(i)

    def meets(x: int) -> set:
        out: set = set()
        for c in _mask_ids(x):
            out.update(share[c])
        return out

    closure = _sparse_closure(masks, meets, max_sets, tick)
    sets = [0] + sorted(closure, key=lambda x: (x.bit_count(), x))
    index = {x: j for j, x in enumerate(sets)}
    setw = np.array([sum(weights[c] for c in _mask_ids(x)) for x in sets], dtype=np.int64)
    tails, heads = [], []
    for j in range(1, len(sets)):
        tick.tick()
        y = sets[j]
        cand = {y & masks[i] for i in meets(y)}
        cand.discard(y)
        cand.discard(0)
        tops = sorted(z for z in cand if not any(z != z2 and z & z2 == z for z2 in cand))
        for z in tops or [0]:
            tails.append(index[z])
            heads.append(j)
    tails = np.array(tails, dtype=np.int64)
    heads = np.array(heads, dtype=np.int64)
    return ClosureGraph(sets, tails, heads, setw[heads] - setw[tails], [index[x] for x in masks])


def closure_graph(masks: list, weights: list, *, max_sets: int = MAX_SETS, deadline: float | None = None,
                  clock=time.perf_counter) -> ClosureGraph:
    """The closure of the requests ``masks`` (Python ints over chunks 0..len(weights)-1) and its
    cover arcs with costs w(Y - X).

    With ``deadline`` (a ``clock()`` value) the build reads the clock every
    :data:`BUILD_CHECK` sets, in the closure's rounds and in the cover step, and raises
    :class:`BuildTimeout` once past it.

    Notes
    -----
    O(|C| m) word operations for the closure and again for the covers, plus the maximal-set
    filter over the distinct candidates Y ∩ R of each Y (module docstring); from
    :data:`SPARSE_CHUNKS` chunks on, the sparse twin (only the requests sharing a chunk are
    visited).
    """
    n = len(weights)
    tick = _Clock(deadline, clock, "the intersection closure")
    tick.now()
    if n >= SPARSE_CHUNKS:
        return _closure_graph_sparse(masks, weights, max_sets, tick)
    nwords = max(1, (n + 63) // 64)
    R = _to_words(masks, nwords)
    C = _closure(R, max_sets, tick)
    size = _popcount_words(C)
    order = np.lexsort(tuple(C[:, w] for w in range(nwords)) + (size,))
    C = C[order]
    sets = [0] + [_from_words(row) for row in C]
    index = {x: j for j, x in enumerate(sets)}
    wvec = np.array(weights, dtype=np.int64)
    bits = np.unpackbits(C.view(np.uint8), axis=1, bitorder="little")[:, :n].astype(np.int64)
    setw = np.concatenate([[0], bits @ wvec])
    tails, heads = [], []
    for j in range(len(C)):
        tick.tick()
        Y = C[j]
        cand = R & Y
        cand = cand[(cand != Y).any(axis=1)]
        cand = _unique_rows(cand)
        if len(cand) > 1:
            # drop candidates strictly inside another candidate
            inside = ((cand[:, None, :] & ~cand[None, :, :]) == 0).all(axis=2)
            np.fill_diagonal(inside, False)
            cand = cand[~inside.any(axis=1)]
        if len(cand) == 0:  # Y lies in every request: only the root is below it
            cand = np.zeros((1, nwords), dtype=np.uint64)
        for row in cand:
            tails.append(index[_from_words(row)])
            heads.append(j + 1)
    tails = np.array(tails, dtype=np.int64)
    heads = np.array(heads, dtype=np.int64)
    costs = setw[heads] - setw[tails]
    requests = [index[x] for x in masks]
    return ClosureGraph(sets, tails, heads, costs, requests)

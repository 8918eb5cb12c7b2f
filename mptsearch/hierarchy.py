"""Hierarchies over the requests (Theorem 1).

A *hierarchy* H is a full binary tree whose leaves are the requests. For an internal node v,
I(v) is the intersection of the requests below it, and

    COST(H) = sum_i w(R_i) - sum over internal v of w(I(v)),

the second sum being the *savings*. OPT_free is the minimum of COST(H) over hierarchies, and a
layout attaining it is read off H top-down: each node emits the chunks of I(v) not already in
I(parent), and each leaf emits the rest of its request.

Nodes are numbered like SciPy's linkage: leaves are 0..m-1, internal nodes m..2m-2, and
``children[v - m]`` holds the two children of internal node v.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Sequence

import numpy as np

from .instance import Instance, InstanceError

__all__ = ["Hierarchy"]


@dataclass(frozen=True, eq=False)
class Hierarchy:
    """A full binary tree over m leaves (requests); see the module docstring."""

    m: int
    children: np.ndarray  # shape (m-1, 2), int64
    root: int

    @classmethod
    def from_merges(cls, m: int, merges: Sequence[tuple[int, int]]) -> "Hierarchy":
        """From m-1 merges in agglomeration order: merge j creates node m+j (root last)."""
        children = np.array(merges, dtype=np.int64).reshape(-1, 2)
        if len(children) != m - 1:
            raise InstanceError(f"a hierarchy over {m} leaves needs {m - 1} merges, got {len(children)}")
        h = cls(m, children, 2 * m - 2 if m > 1 else 0)
        h._check()
        return h

    @classmethod
    def from_nested(cls, tree) -> "Hierarchy":
        """From nested pairs of leaf indices, e.g. ``((0, 1), (2, 3))``."""
        def leaves(t):
            if isinstance(t, (int, np.integer)):
                return [int(t)]
            a, b = t
            return leaves(a) + leaves(b)

        found = leaves(tree)
        m = len(found)
        if sorted(found) != list(range(m)):
            raise InstanceError("nested hierarchy must contain each leaf 0..m-1 once")
        merges: list[tuple[int, int]] = []

        # Internal nodes are numbered in postorder, so that children precede parents.
        def build(t):
            if isinstance(t, (int, np.integer)):
                return int(t)
            a, b = build(t[0]), build(t[1])
            merges.append((a, b))
            return m + len(merges) - 1

        root = build(tree)
        return cls(m, np.array(merges, dtype=np.int64).reshape(-1, 2), root)

    def _check(self) -> None:
        seen = np.zeros(2 * self.m - 1, dtype=np.int64)
        for a, b in self.children:
            seen[a] += 1
            seen[b] += 1
        expect = np.ones(2 * self.m - 1, dtype=np.int64)
        expect[self.root] = 0
        if not np.array_equal(seen, expect):
            raise InstanceError("children do not form a full binary tree over the leaves")

    # ---- structure -----------------------------------------------------------------------
    def kids(self, v: int) -> tuple[int, int]:
        a, b = self.children[v - self.m]
        return int(a), int(b)

    def preorder(self) -> list[int]:
        """All nodes, parents before children, left child first."""
        out, stack = [], [self.root]
        while stack:
            v = stack.pop()
            out.append(v)
            if v >= self.m:
                a, b = self.kids(v)
                stack.append(b)
                stack.append(a)
        return out

    def dfs_order(self) -> list[int]:
        """The leaves (requests) in depth-first order: the schedule of Theorem 7."""
        return [v for v in self.preorder() if v < self.m]

    @cached_property
    def leaf_sets(self) -> dict[int, int]:
        """For every node, the bitmask (Python int) of the leaves below it."""
        sets: dict[int, int] = {}
        for v in reversed(self.preorder()):
            if v < self.m:
                sets[v] = 1 << v
            else:
                a, b = self.kids(v)
                sets[v] = sets[a] | sets[b]
        return sets

    def nested(self):
        """The tree as nested pairs of leaf indices."""
        def walk(v):
            if v < self.m:
                return v
            a, b = self.kids(v)
            return (walk(a), walk(b))
        return walk(self.root)

    # ---- Theorem 1 -------------------------------------------------------------------------
    def intersections(self, inst: Instance) -> dict[int, int]:
        """I(v) for every node as a chunk bitmask (for a leaf, its request)."""
        self._fits(inst)
        masks = inst.request_masks()
        out: dict[int, int] = {}
        for v in reversed(self.preorder()):
            if v < self.m:
                out[v] = masks[v]
            else:
                a, b = self.kids(v)
                out[v] = out[a] & out[b]
        return out

    def node_savings(self, inst: Instance) -> list[int]:
        """w(I(v)) for every internal node v (the per-node savings)."""
        inter = self.intersections(inst)
        return [_mask_weight(inter[v], inst.weights) for v in range(self.m, 2 * self.m - 1)]

    def savings(self, inst: Instance) -> int:
        """sum over internal v of w(I(v))."""
        return sum(self.node_savings(inst))

    def cost(self, inst: Instance) -> int:
        """COST(H) = sum_i w(R_i) - savings(H)."""
        return inst.total_weight() - self.savings(inst)

    def layout(self, inst: Instance) -> list[tuple[int, ...]]:
        """The layout read off top-down; its trie cost is at most COST(H) (equal when H is
        optimal). Chunks emitted at one node appear in chunk-id order."""
        inter = self.intersections(inst)
        seqs: list[list[int]] = [[] for _ in range(self.m)]
        stack = [(self.root, 0, [])]
        while stack:
            v, parent_mask, prefix = stack.pop()
            new = inter[v] & ~parent_mask
            prefix = prefix + _mask_ids(new)
            if v < self.m:
                seqs[v] = prefix
            else:
                for c in self.kids(v):
                    stack.append((c, inter[v], prefix))
        return [tuple(s) for s in seqs]

    def _fits(self, inst: Instance) -> None:
        if inst.m != self.m:
            raise InstanceError(f"hierarchy has {self.m} leaves but the instance has {inst.m} requests")


def _mask_ids(mask: int) -> list[int]:
    # Peel the lowest set bit: O(popcount) big-int steps, not one per bit position, which
    # matters for traces with thousands of chunks. Ascending order, as before.
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _mask_weight(mask: int, weights: np.ndarray) -> int:
    return int(sum(int(weights[x]) for x in _mask_ids(mask)))

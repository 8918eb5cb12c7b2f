"""Checkpoints of the directed-cut branch-and-cut: a long proof resumes where it stopped.

What is saved, per component (keyed by its request indices), is what a resumed run can use
without trusting it: the root LP's cut rows, each as its node set S (the sets as chunk
bitmasks over the instance's own chunks, never as arc numbers: the arcs entering S are
recomputed from the closure on loading, so every row is again a valid directed cut of
:mod:`mptsearch.exact.dcut`, whatever the file says), the best layout found (its cost is
recomputed on the trie of the component's requests; a sequence that is not an ordering of
its request is refused). Beside them, as a record of where the proof stood, the root loop's
outcome (its value, rounds, whether it ended by itself or by the clock), the last fixing of the
reductions (the upper bound U it was made for and its arcs held at 0 and at 1, each as a pair
of chunk sets) and the tree's last bound and status. No bound is taken from the file: a
resumed run proves its bounds again, from a root LP that starts with the saved rows and a
cutoff at the saved layout's cost. When the saved root loop ended by itself, the resumed root
is that LP solved once over the saved rows (no separation rounds: the rows already are the
loop's last ones, so the value is the saved one up to the LP's tolerance); the fixing is
recomputed from it (one pass of the reductions, seconds) rather than read, since a fixing
from a file could only be trusted by redoing its tests. What a resume cannot bring back is
SCIP's tree: its open nodes live in the solver, and the resumed tree starts from the root
again, with the saved layout as its cutoff. The instance's fingerprint must match (another instance's sets would be refused row by
row, or are still valid cuts: each row is rebuilt as a cut of this closure). The file is JSON, written to a temporary file beside it
and renamed (:func:`mptsearch._atomic.atomic_open`), so an interrupted write leaves the previous
checkpoint.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from .._atomic import atomic_open
from ..hierarchy import _mask_ids
from ..instance import InstanceError

__all__ = ["FORMAT", "fingerprint", "Checkpoint", "CheckpointError"]

FORMAT = "mptsearch-dcut-checkpoint-1"


class CheckpointError(InstanceError):
    """A checkpoint that does not belong to the instance or cannot be read."""


def fingerprint(inst) -> str:
    """SHA-256 of the instance's requests (as chunk sets, in order) and weights."""
    h = hashlib.sha256()
    h.update(json.dumps([sorted(int(x) for x in o) for o in inst.orders]).encode())
    h.update(json.dumps([int(w) for w in inst.weights]).encode())
    return h.hexdigest()


def _prefix_cost(seqs, weights) -> int:
    seen = set()
    total = 0
    for s in seqs:
        for j in range(1, len(s) + 1):
            p = tuple(s[:j])
            if p not in seen:
                seen.add(p)
                total += int(weights[s[j - 1]])
    return total


class Checkpoint:
    """A checkpoint file for one instance: :meth:`component` reads a component's saved state,
    :meth:`save` records one and rewrites the file."""

    def __init__(self, path, inst):
        self.path = Path(path)
        self.inst = inst
        self.key = fingerprint(inst)
        self.data = {"format": FORMAT, "instance": self.key, "components": {}}
        if self.path.exists():
            try:
                got = json.loads(self.path.read_text())
            except (OSError, ValueError) as e:
                raise CheckpointError(f"checkpoint {self.path}: not readable ({e})") from None
            if not isinstance(got, dict) or got.get("format") != FORMAT:
                raise CheckpointError(f"checkpoint {self.path}: not a {FORMAT} file")
            if got.get("instance") != self.key:
                raise CheckpointError(f"checkpoint {self.path}: written for another instance")
            self.data = got

    @staticmethod
    def _name(idx) -> str:
        return ",".join(str(int(i)) for i in idx)

    def component(self, idx, g, groups):
        """(cut rows as (kind, arc ids), best cost or None, layout or None) for the component
        of requests ``idx`` over closure graph ``g`` (merged chunks ``groups``). Cut node sets
        not in the closure, or not holding the request of their row, are refused, and so is an
        entry of the wrong shape (a request index that is not an integer, cuts that are not a
        list)."""
        try:
            return self._component(idx, g, groups)
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as e:
            raise CheckpointError(f"checkpoint {self.path}: a malformed entry ({type(e).__name__}: {e})") from None

    def _component(self, idx, g, groups):
        got = self.data["components"].get(self._name(idx))
        if got is None:
            return [], None, None
        index = {s: v for v, s in enumerate(g.sets)}
        merged_of = {x: c for c, xs in enumerate(groups) for x in xs}
        cuts = []
        rows = got.get("cuts", [])
        if not isinstance(rows, list):
            raise TypeError("cuts must be a list")
        for r, members in rows:
            if type(r) is not int:
                raise TypeError(f"a cut's request index {r!r} is not an integer")
            inside = np.zeros(len(g.sets), dtype=bool)
            for orig in members:
                mask = 0
                for x in orig:
                    if x not in merged_of:
                        raise CheckpointError(f"checkpoint {self.path}: chunk {x} is in no request")
                    mask |= 1 << merged_of[x]
                if mask not in index or index[mask] == 0:
                    raise CheckpointError(f"checkpoint {self.path}: a cut's set is not in the closure")
                inside[index[mask]] = True
            if not 0 <= r < len(g.requests) or not inside[g.requests[r]]:
                raise CheckpointError(f"checkpoint {self.path}: a cut without its request")
            arcs = np.flatnonzero(inside[g.heads] & ~inside[g.tails])
            cuts.append((("cut", int(r), tuple(int(v) for v in np.flatnonzero(inside))), arcs))
        layout = got.get("layout")
        best = None
        if layout is not None:
            if len(layout) != len(idx) or any(sorted(s) != sorted(int(x) for x in self.inst.orders[i])
                                               for i, s in zip(idx, layout)):
                raise CheckpointError(f"checkpoint {self.path}: a layout that is not the requests'")
            best = _prefix_cost(layout, self.inst.weights)
        return cuts, best, layout

    def root_done(self, idx) -> bool:
        """Whether the saved root cut loop of the component ended by itself (no violated cut,
        tailing off, its round limit or its target), not by the clock: a resumed run then
        solves the LP once over the saved rows instead of separating again."""
        got = self.data["components"].get(self._name(idx)) or {}
        root = got.get("root")
        return isinstance(root, dict) and root.get("done") is True and bool(got.get("cuts"))

    def save(self, idx, g, groups, *, cuts=None, layout=None, root=None, fixing=None, tree=None):
        """Record the component's cut rows (``cuts`` as (kind, arcs) with kind ("cut", r,
        node ids)), its best layout, the root loop's outcome (``root``: value, rounds,
        converged, done), the last fixing (``fixing`` = (U, zero, one): its arcs as pairs of
        chunk sets, tail and head) and the tree's last bound and status (``tree``), each kept
        from before when None, then rewrite the file atomically. The root's value, the fixing
        and the tree's bound are a record of where the proof stood: a resumed run proves its
        bounds again (one LP solve over the saved rows, one pass of the reductions)."""
        entry = self.data["components"].setdefault(self._name(idx), {})
        expand = (lambda v: sorted(x for c in _mask_ids(g.sets[v]) for x in groups[c]))
        if root is not None:
            entry["root"] = dict(root)
        if tree is not None:
            entry["tree"] = dict(tree)
        if fixing is not None:
            upper, zero, one = fixing
            entry["fixing"] = {"upper": int(upper), "arcs": int(len(g.tails)),
                               **{name: [[expand(int(g.tails[a])), expand(int(g.heads[a]))]
                                         for a in np.flatnonzero(arr).tolist()]
                                  for name, arr in (("zero", zero), ("one", one))}}
        if cuts is not None:
            out = []
            for kind, _ in cuts:
                if kind[0] != "cut":
                    continue
                members = [expand(v) for v in kind[2]]
                out.append([int(kind[1]), members])
            entry["cuts"] = out
        if layout is not None:
            entry["layout"] = [[int(x) for x in s] for s in layout]
        with atomic_open(self.path) as fh:
            fh.write(json.dumps(self.data) + "\n")

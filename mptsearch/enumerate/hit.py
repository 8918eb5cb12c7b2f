"""A hit of an enumeration: one member of the class that has the property asked for.

A :class:`Hit` is built by the worker that evaluated the member, stored as one row of the
store's ``hits`` table, merged, read back and printed; its fields are in the order of that
table's columns, so a row of any store (old ones included) reads as ``Hit.from_row(row)``.
"""

from __future__ import annotations

import json
from typing import NamedTuple

__all__ = ["Hit", "compact_masks"]


def compact_masks(masks, n) -> str:
    """The paper's compact notation of a family of bitmasks over ``n`` chunks ("01 12 2")."""
    digits = "0123456789"
    return " ".join("".join(digits[x] for x in range(n) if r >> x & 1) for r in masks)


class Hit(NamedTuple):
    """One member with the property, and what was computed for it."""

    piece: int  #: the piece of the class it was generated in
    m: int  #: number of requests
    masks: tuple  #: the requests as bitmasks over the chunks
    free: int  #: OPT_free
    glob: int  #: OPT_glob
    agg: int  #: cost of the agglomerative heuristic
    greedy: int  #: cost of the level-wise greedy heuristic

    @classmethod
    def from_row(cls, row) -> Hit:
        """The hit of a ``hits`` table row ``(piece, m, masks as JSON, free, glob, agg, greedy)``."""
        piece, m, masks, *values = row
        return cls(piece, m, tuple(json.loads(masks)), *values)

    def to_row(self) -> tuple:
        """The row of the ``hits`` table (masks as a JSON list)."""
        return (self.piece, self.m, json.dumps(list(self.masks)), self.free, self.glob,
                self.agg, self.greedy)

    def to_json(self, n: int) -> dict:
        """The JSON form (requests in compact notation over ``n`` chunks)."""
        return {"requests": compact_masks(self.masks, n), "m": self.m, "opt_free": self.free,
                "opt_glob": self.glob, "agglomerative": self.agg, "greedy": self.greedy}

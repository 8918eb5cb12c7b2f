"""A small forward checker of DRUP proofs of unsatisfiability, written for this project.

It shares no code with any SAT solver: its own clause store, its own unit propagation. A
proof is a list of steps; an added clause C is accepted when it is RUP (reverse unit
propagation): setting every literal of C false and propagating the formula plus the clauses
accepted so far ends in a conflict. That is exactly "C follows from them by resolution", so if
every step is accepted and the empty clause is reached, the formula is unsatisfiable.

Deletions are honoured only for clauses with no literal true under the top-level units
(such a clause cannot be the reason of a unit); any other deletion is ignored. Ignoring a
deletion keeps more clauses, and RUP is monotone in the formula, so it can never make a wrong
proof pass. RAT steps (the "A" of DRAT) are not supported: a step that is not RUP is rejected,
with its index. :mod:`dratify` (an independent package, when installed) checks RAT too.

Complexity: each step costs one unit propagation, O(total clause length) in the worst case,
with two watched literals per clause.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Iterable, Sequence

__all__ = ["RupResult", "check_rup", "parse_dimacs", "parse_drup"]


@dataclass(frozen=True)
class RupResult:
    """``ok`` when the proof derives the empty clause with every step RUP."""

    ok: bool
    steps: int
    additions: int
    deletions_honoured: int
    message: str


def parse_dimacs(text: str) -> tuple[int, list[list[int]]]:
    """``(nvars, clauses)`` of a DIMACS CNF text (the ``p cnf`` header is required)."""
    nvars, nclauses, clauses, cur = None, None, [], []
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] == "c":
            continue
        if line[0] == "p":
            parts = line.split()
            if len(parts) != 4 or parts[1] != "cnf":
                raise ValueError(f"bad DIMACS header {line!r}")
            nvars, nclauses = int(parts[2]), int(parts[3])
            continue
        for tok in line.split():
            v = int(tok)
            if v == 0:
                clauses.append(cur)
                cur = []
            else:
                cur.append(v)
    if nvars is None:
        raise ValueError("no 'p cnf' header")
    if cur:
        raise ValueError("last clause not terminated by 0")
    if len(clauses) != nclauses:
        raise ValueError(f"header says {nclauses} clauses, found {len(clauses)}")
    if any(abs(v) > nvars for c in clauses for v in c):
        raise ValueError("a literal exceeds the header's variable count")
    return nvars, clauses


def parse_drup(lines: Iterable[str]) -> list[tuple[bool, list[int]]]:
    """Proof lines ("1 -2 0", "d 1 -2 0") -> ``[(is_deletion, literals), ...]``."""
    steps = []
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line[0] == "c":
            continue
        dele = line[0] == "d"
        toks = line[1:].split() if dele else line.split()
        try:
            lits = [int(t) for t in toks]
        except ValueError:
            lits = []
        if not lits or lits[-1] != 0 or 0 in lits[:-1]:
            raise ValueError(f"proof line {number} ({line[:40]!r}) is not one clause ended by 0")
        steps.append((dele, lits[:-1]))
    return steps


class _Checker:
    def __init__(self, nvars: int):
        self.val = [0] * (nvars + 1)  # 0 unassigned, +1 true, -1 false (of the variable)
        self.trail: list[int] = []
        self.watch: dict[int, list[int]] = {}
        self.clauses: list[list[int] | None] = []
        self.by_key: dict[tuple, list[int]] = {}
        self.qhead = 0

    def value(self, lit: int) -> int:
        v = self.val[abs(lit)]
        return v if lit > 0 else -v

    def grow(self, lits: Sequence[int]) -> None:
        top = max((abs(v) for v in lits), default=0)
        if top >= len(self.val):
            self.val.extend([0] * (top + 1 - len(self.val)))

    def assign(self, lit: int) -> None:
        self.val[abs(lit)] = 1 if lit > 0 else -1
        self.trail.append(lit)

    def propagate(self) -> bool:
        """Unit propagation from qhead; True on conflict."""
        val, trail, watch, clauses = self.val, self.trail, self.watch, self.clauses
        while self.qhead < len(trail):
            false_lit = -trail[self.qhead]
            self.qhead += 1
            ws = watch.get(false_lit)
            if not ws:
                continue
            keep = []
            conflict = False
            for h in ws:
                cl = clauses[h]
                if cl is None:
                    continue
                if conflict:
                    keep.append(h)
                    continue
                if cl[0] == false_lit:
                    cl[0], cl[1] = cl[1], false_lit
                first = cl[0]
                fv = val[first] if first > 0 else -val[-first]
                if fv == 1:
                    keep.append(h)
                    continue
                for p in range(2, len(cl)):
                    lit = cl[p]
                    if (val[lit] if lit > 0 else -val[-lit]) != -1:
                        cl[1], cl[p] = lit, false_lit
                        lst = watch.get(lit)
                        if lst is None:
                            watch[lit] = [h]
                        else:
                            lst.append(h)
                        break
                else:
                    keep.append(h)
                    if fv == -1:
                        conflict = True
                    else:
                        val[abs(first)] = 1 if first > 0 else -1
                        trail.append(first)
            ws[:] = keep
            if conflict:
                return True
        return False

    def add(self, lits: list[int]) -> bool:
        """Add a clause at top level; True when the top level becomes contradictory."""
        cl = list(dict.fromkeys(lits))
        if any(-v in cl for v in cl):
            return False  # a tautology adds nothing
        h = len(self.clauses)
        self.by_key.setdefault(tuple(sorted(cl)), []).append(h)
        cl.sort(key=lambda v: self.value(v) == -1)  # non-false literals first
        self.clauses.append(cl)
        if not cl or self.value(cl[0]) == -1:
            return True
        if len(cl) == 1 or self.value(cl[1]) == -1:
            if self.value(cl[0]) == 0:
                self.assign(cl[0])
            if len(cl) >= 2:
                self.watch.setdefault(cl[0], []).append(h)
                self.watch.setdefault(cl[1], []).append(h)
            return self.propagate()
        self.watch.setdefault(cl[0], []).append(h)
        self.watch.setdefault(cl[1], []).append(h)
        return False

    def rup(self, lits: list[int]) -> bool:
        """Is the clause RUP? The top-level assignment is restored afterwards."""
        mark, qhead = len(self.trail), self.qhead
        conflict = False
        for v in lits:
            val = self.value(v)
            if val == 1:
                conflict = True
                break
            if val == 0:
                self.assign(-v)
        if not conflict:
            conflict = self.propagate()
        for v in self.trail[mark:]:
            self.val[abs(v)] = 0
        del self.trail[mark:]
        self.qhead = qhead
        return conflict

    def delete(self, lits: list[int]) -> bool:
        hs = self.by_key.get(tuple(sorted(dict.fromkeys(lits))))
        if not hs:
            return False
        h = hs[-1]
        cl = self.clauses[h]
        if cl is None or len(cl) < 2 or any(self.value(v) == 1 for v in cl):
            return False  # a unit, or possibly the reason of a top-level unit: keep it
        hs.pop()
        self.clauses[h] = None  # watch lists drop it lazily
        return True


def check_rup(nvars: int, clauses: Sequence[Sequence[int]], proof: Sequence[tuple[bool, list[int]]], *,
              deadline: float | None = None) -> RupResult:
    """Check a DRUP proof that ``clauses`` is unsatisfiable.

    Parameters
    ----------
    nvars : int
    clauses : list of list of int
        DIMACS literals.
    proof : list of (is_deletion, literals)
        As :func:`parse_drup` returns.
    deadline : float, optional
        A :func:`time.perf_counter` time: past it the check stops with ``TimeoutError``
        (neither accepted nor rejected).

    Returns
    -------
    RupResult
        ``ok`` True iff every added clause is RUP and a contradiction is derived.

    Examples
    --------
    >>> check_rup(2, [[1, 2], [-1, 2], [1, -2], [-1, -2]], [(False, [2]), (False, [])]).ok
    True
    >>> check_rup(2, [[1, 2], [-1, 2], [1, -2]], [(False, [2]), (False, [])]).ok
    False
    """
    ck = _Checker(nvars)
    for cl in clauses:
        ck.grow(cl)
        if ck.add(list(cl)):
            return RupResult(True, 0, 0, 0, "the formula's own units propagate to a conflict")
    adds = dels = 0
    for step, (dele, lits) in enumerate(proof, 1):
        if deadline is not None and step % 64 == 0 and time.perf_counter() > deadline:
            raise TimeoutError(f"time limit reached at proof step {step}")
        ck.grow(lits)
        if dele:
            dels += ck.delete(lits)
            continue
        adds += 1
        if not ck.rup(lits):
            return RupResult(False, step, adds, dels,
                             f"step {step} ({' '.join(map(str, lits)) or 'empty clause'}) is not RUP")
        if not lits or ck.add(lits):
            return RupResult(True, step, adds, dels, f"contradiction derived at step {step}")
    return RupResult(False, len(proof), adds, dels, "the proof ends without deriving the empty clause")

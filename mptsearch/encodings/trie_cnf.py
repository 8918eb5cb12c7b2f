"""CNF of "a layout (or a global order) of trie cost at most B exists", straight from the trie.

The encoding restates the definition of the cost (the paper, Section 2) and
nothing else: no hierarchy, no Theorem 1, no DP. That is what makes an UNSAT answer at
B = V - 1, checked by an independent proof checker, a lower bound V that trusts neither our
solvers nor the SAT solver.

Variables (ids from one :class:`pysat.formula.IDPool`):

- ``x[i, c, t]``: request i has chunk c at position t (0-based). Each chunk of R_i takes
  exactly one position and each position exactly one chunk (a permutation of R_i).
- ``s[i, j, t]`` for j < i: the first t+1 chunks of requests i and j are the same sequence.
  Clauses: ``s[i,j,t] -> s[i,j,t-1]``; ``s[i,j,t] and x[i,c,t] -> x[j,c,t]`` for c in both;
  ``s[i,j,t] -> not x[i,c,t]`` for c in R_i but not R_j. So s can be true only when the
  prefixes really are equal (by induction on t).
- ``new[i, t]``: the trie node of request i at depth t+1 (its prefix of length t+1) is not the
  node of any earlier request: ``new[i,t] or s[i,j,t] for some j < i``.
- ``y[i, c, t] >= x[i, c, t] and new[i, t]``: that node is paid, with weight w(c) (a weight w
  is w unit copies of y in the cardinality bound).

The trie's nodes are the distinct nonempty prefixes, and each is counted once, at the first
request that has it, so the cost of a layout is sum w(c) y[i,c,t] when s is set truthfully and
``new``/``y`` as small as allowed. A satisfying assignment's layout costs at most its count
(s true only on equal prefixes, so a node marked not new really is shared); conversely every
layout of cost C gives an assignment of count C. Hence the CNF with the bound
``sum w(c) y[i,c,t] <= B`` (a PySAT cardinality encoding) is satisfiable iff some layout
costs at most B.

For a global order, booleans ``before[a, b]`` (a < b; its negation for the reverse) with a
transitivity clause per ordered triple form a linear order, and each request's positions must
follow it: ``before(a, c) and x[i, c, t] -> x[i, a, t'] for some t' < t``. Every transitive
tournament is a linear order, and a request sorted by it has exactly these positions.

Building (:func:`trie_cnf`) is separate from solving (:mod:`mptsearch.verify.satproof`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..instance import Instance, InstanceError

__all__ = ["TrieCnf", "trie_cnf", "decode_layout", "decode_order", "MAX_UNITS"]

MAX_UNITS = 200_000  # weight units in the cardinality bound (each is a variable)


@dataclass
class TrieCnf:
    """The clauses of the bounded-cost question and the handles to read a model back.

    Attributes
    ----------
    clauses : list of list of int
        DIMACS clauses (the structure and the cost bound together).
    nvars : int
        The largest variable id used (auxiliary variables of the cardinality encoding included).
    x : dict
        ``x[i, c, t]`` -> variable id.
    before : dict
        ``before[a, b]`` (a < b) -> variable id; empty for the free question.
    bound : int
        B: the CNF says "cost <= B".
    kind : {"free", "glob"}
    """

    clauses: list
    nvars: int
    x: dict
    bound: int
    kind: str
    before: dict = field(default_factory=dict)
    cost_terms: int = 0

    def dimacs(self) -> str:
        """The formula in DIMACS CNF text."""
        lines = [f"p cnf {self.nvars} {len(self.clauses)}"]
        lines += [" ".join(map(str, cl)) + " 0" for cl in self.clauses]
        return "\n".join(lines) + "\n"


def trie_cnf(inst: Instance, bound: int, kind: str = "free", *, card_encoding: str = "seqcounter") -> TrieCnf:
    """CNF that is satisfiable iff a layout (``kind="free"``) or a global order (``"glob"``)
    of trie cost at most ``bound`` exists.

    Parameters
    ----------
    inst : Instance
    bound : int
        B. A negative bound gives a trivially unsatisfiable formula (the empty clause).
    kind : {"free", "glob"}
    card_encoding : str
        The name of a :class:`pysat.card.EncType` for the bound on the (weight-expanded) count.

    Returns
    -------
    TrieCnf

    Notes
    -----
    sum_i k_i^2 position variables, one sharing variable per (pair of requests, depth) that
    can share it (O(m^2 k)), O(m^2 k^2) clauses, plus O(n^3) transitivity clauses for "glob"
    and the cardinality encoding of the bound (O(B * total weight)).
    """
    from pysat.card import CardEnc, EncType as CardType
    from pysat.formula import IDPool

    if kind not in ("free", "glob"):
        raise InstanceError(f"kind must be 'free' or 'glob', not {kind!r}")
    pool = IDPool()
    R = [tuple(sorted(o)) for o in inst.orders]
    sets = [frozenset(r) for r in R]
    w = [int(v) for v in inst.weights]
    cls: list[list[int]] = []
    x = {}
    for i, r in enumerate(R):
        k = len(r)
        for c in r:
            for t in range(k):
                x[i, c, t] = pool.id(("x", i, c, t))
        for c in r:  # each chunk exactly one position
            lits = [x[i, c, t] for t in range(k)]
            cls.append(lits)
            cls += [[-a, -b] for p, a in enumerate(lits) for b in lits[p + 1:]]
        for t in range(k):  # each position exactly one chunk
            lits = [x[i, c, t] for c in r]
            cls.append(lits)
            cls += [[-a, -b] for p, a in enumerate(lits) for b in lits[p + 1:]]

    terms = []  # (weight, y variable)
    for i, r in enumerate(R):
        for t in range(len(r)):
            new = pool.id(("new", i, t))
            alternatives = [new]
            for j in range(i):
                common = sets[i] & sets[j]
                if len(common) < t + 1:
                    continue
                s = pool.id(("s", i, j, t))
                alternatives.append(s)
                if t > 0:
                    cls.append([-s, pool.id(("s", i, j, t - 1))])
                for c in r:
                    if c in common:
                        cls.append([-s, -x[i, c, t], x[j, c, t]])
                    else:
                        cls.append([-s, -x[i, c, t]])
            cls.append(alternatives)
            for c in r:
                y = pool.id(("y", i, c, t))
                cls.append([-x[i, c, t], -new, y])
                terms.append((w[c], y))

    before = {}
    if kind == "glob":
        n = inst.n
        for a in range(n):
            for b in range(a + 1, n):
                before[a, b] = pool.id(("b", a, b))

        def lit(a, b):
            return before[a, b] if a < b else -before[b, a]

        for a in range(n):
            for b in range(n):
                for c in range(n):
                    if len({a, b, c}) == 3:
                        cls.append([-lit(a, b), -lit(b, c), lit(a, c)])
        for i, r in enumerate(R):
            for a in r:
                for c in r:
                    if a == c:
                        continue
                    for t in range(len(r)):  # a before c and c at t: a sits somewhere before t
                        cls.append([-lit(a, c), -x[i, c, t]] + [x[i, a, u] for u in range(t)])

    if bound < 0:
        cls.append([])
    elif bound < sum(wt for wt, _ in terms):
        # A weight w becomes w unit copies (y -> copy), so one cardinality bound covers the
        # weighted sum; copies only push the count up, so the bound stays exact.
        if sum(wt for wt, _ in terms) > MAX_UNITS:
            raise InstanceError(f"total weight {sum(wt for wt, _ in terms)} is too large for the CNF "
                                f"(at most {MAX_UNITS} weight units)")
        lits = []
        for wt, y in terms:
            if wt == 1:
                lits.append(y)
                continue
            for r in range(wt):
                z = pool.id(("w", y, r))
                cls.append([-y, z])
                lits.append(z)
        enc = CardEnc.atmost(lits=lits, bound=bound, vpool=pool, encoding=getattr(CardType, card_encoding))
        cls += [list(c) for c in enc.clauses]
    return TrieCnf(cls, pool.top, x, bound, kind, before, len(terms))


def decode_layout(inst: Instance, cnf: TrieCnf, model) -> list[tuple[int, ...]]:
    """The layout of a satisfying assignment (``model``: DIMACS literals, as PySAT returns)."""
    true = {v for v in model if v > 0}
    seqs = []
    for i, o in enumerate(inst.orders):
        pos = {}
        for c in o:
            hits = [t for t in range(len(o)) if cnf.x[i, c, t] in true]
            if len(hits) != 1:
                raise InstanceError(f"model does not place chunk {c} of request {i} exactly once")
            pos[hits[0]] = c
        seqs.append(tuple(pos[t] for t in range(len(o))))
    return seqs


def decode_order(inst: Instance, cnf: TrieCnf, model) -> list[int]:
    """The global order of a satisfying assignment of a ``kind="glob"`` formula."""
    true = {v for v in model if v > 0}
    n = inst.n
    preds = [sum(1 for a in range(n) if a != c and
                 ((cnf.before[a, c] in true) if a < c else (cnf.before[c, a] not in true)))
             for c in range(n)]
    return sorted(range(n), key=preds.__getitem__)

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
- ``p[i, c] >= x[i, c, t] and new[i, t]`` (for every t): chunk c of request i sits at a new
  node, which is paid with weight w(c).

The trie's nodes are the distinct nonempty prefixes, and each is counted once, at the first
request that has it, so the cost of a layout is sum w(c) p[i,c] when s is set truthfully and
``new``/``p`` as small as allowed. A satisfying assignment's layout costs at most its count
(s true only on equal prefixes, so a node marked not new really is shared); conversely every
layout of cost C gives an assignment of count C. Hence the CNF with the bound
``sum w(c) p[i,c] <= B`` is satisfiable iff some layout costs at most B.

The bound has two encodings (the ``encoding`` argument):

- ``"adder"`` (the default): the weighted sum as a binary number, built by full and half
  adders over the weights' bits (Warners' adder network; Een and Sorensson, "Translating
  pseudo-Boolean constraints into SAT", JSAT 2006, Section 5), then compared with B bit by
  bit. O(T log w_max) variables and clauses for the T = sum_i k_i terms: token-sized weights
  cost their bits, not their values.
- ``"seqcounter"``: the encoding of certificates written before the adder, kept so that
  :func:`mptsearch.verify.certify.check` can regenerate their CNF. It pays per position,
  ``y[i, c, t] >= x[i, c, t] and new[i, t]`` (sum_i k_i^2 terms), turns each weight w into w
  unit copies of its y and bounds their count by PySAT's sequential counter: O(B * total
  weight), gigabytes for four requests of token-sized weights.

:func:`cnf_size` counts a CNF's variables, clauses and literals without building it, and
:func:`trie_cnf` refuses (:class:`EncodingTooLarge`) one whose estimated memory exceeds what
the process has left, before allocating anything.

For a global order, booleans ``before[a, b]`` (a < b; its negation for the reverse) with a
transitivity clause per ordered triple form a linear order, and each request's positions must
follow it: ``before(a, c) and x[i, c, t] -> x[i, a, t'] for some t' < t``. Every transitive
tournament is a linear order, and a request sorted by it has exactly these positions.

Building (:func:`trie_cnf`) is separate from solving (:mod:`mptsearch.verify.satproof`).
"""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass, field

from ..instance import Instance, InstanceError

__all__ = ["TrieCnf", "trie_cnf", "decode_layout", "decode_order", "MAX_UNITS", "ENCODINGS", "CnfSize",
           "cnf_size", "EncodingTooLarge", "memory_left"]

MAX_UNITS = 200_000  # weight units of the "seqcounter" bound (each is a variable)

#: the encodings of the cost bound (module docstring); the first is the default
ENCODINGS = ("adder", "seqcounter")

#: bytes per clause and per literal while a CNF exists as Python lists, as a DIMACS text and
#: inside the SAT solver together (measured on the trie CNFs: about 140 and 45 with CaDiCaL's
#: copy; rounded up)
_BYTES_PER_CLAUSE = 200
_BYTES_PER_LITERAL = 60


class EncodingTooLarge(RuntimeError):
    """A CNF refused before it was built: its estimated memory is past what is left, or the
    deadline passed while it was being built. A limit of resources, not a fact about the
    instance: callers report it as skipped or undecided, never as a refutation."""


@dataclass(frozen=True)
class CnfSize:
    """The size of a trie CNF, counted without building it (:func:`cnf_size`)."""

    variables: int
    clauses: int
    literals: int

    @property
    def bytes(self) -> int:
        """Estimated peak memory of building it and handing it to a SAT solver."""
        return _BYTES_PER_CLAUSE * self.clauses + _BYTES_PER_LITERAL * self.literals

    def describe(self) -> str:
        return (f"{self.variables:,} variables, {self.clauses:,} clauses, about "
                f"{_fmt_bytes(self.bytes)}")


def _fmt_bytes(n: float) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} B"


def memory_left() -> int:
    """Bytes this process may still allocate: the least of the machine's ``MemAvailable``,
    the address-space limit (``ulimit -v``) less what is mapped already, and
    ``MPTSEARCH_MEMORY`` (bytes, or with a K/M/G suffix) when set."""
    out = []
    env = os.environ.get("MPTSEARCH_MEMORY")
    if env:
        t = env.strip().upper().removesuffix("B").removesuffix("I")
        mult = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}.get(t[-1:], 1)
        try:
            out.append(int(float(t[:-1] if mult > 1 else t) * mult))
        except ValueError:
            raise InstanceError(f"MPTSEARCH_MEMORY={env!r} is not a memory size (e.g. 4G, 512M)") from None
    try:
        with open("/proc/meminfo") as fh:
            out += [int(line.split()[1]) * 1024 for line in fh if line.startswith("MemAvailable:")]
    except (OSError, ValueError):
        pass
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        mapped = 0
        try:
            with open("/proc/self/status") as fh:
                mapped = next((int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize:")), 0)
        except (OSError, ValueError):
            pass
        out.append(soft - mapped)
    return max(0, min(out)) if out else 1 << 40


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
    encoding : str
        The encoding of the bound (one of :data:`ENCODINGS`).
    """

    clauses: list
    nvars: int
    x: dict
    bound: int
    kind: str
    before: dict = field(default_factory=dict)
    cost_terms: int = 0
    encoding: str = ENCODINGS[0]

    def dimacs(self) -> str:
        """The formula in DIMACS CNF text."""
        lines = [f"p cnf {self.nvars} {len(self.clauses)}"]
        lines += [" ".join(map(str, cl)) + " 0" for cl in self.clauses]
        return "\n".join(lines) + "\n"


def trie_cnf(inst: Instance, bound: int, kind: str = "free", *, encoding: str = ENCODINGS[0],
             max_bytes: int | None | str = "auto", deadline: float | None = None) -> TrieCnf:
    """CNF that is satisfiable iff a layout (``kind="free"``) or a global order (``"glob"``)
    of trie cost at most ``bound`` exists.

    Parameters
    ----------
    inst : Instance
    bound : int
        B. A negative bound gives a trivially unsatisfiable formula (the empty clause).
    kind : {"free", "glob"}
    encoding : str
        The encoding of the cost bound, one of :data:`ENCODINGS` (module docstring).
    max_bytes : int, None or "auto"
        Refuse (:class:`EncodingTooLarge`) a CNF whose estimated memory (:func:`cnf_size`)
        exceeds this, before building it; "auto" is 80% of :func:`memory_left`, None no limit.
    deadline : float, optional
        A :func:`time.perf_counter` time: :class:`EncodingTooLarge` if the build is still
        running then.

    Returns
    -------
    TrieCnf

    Notes
    -----
    sum_i k_i^2 position variables, one sharing variable per (pair of requests, depth) that
    can share it (O(m^2 k)), O(m^2 k^2) clauses, plus O(n^3) transitivity clauses for "glob"
    and the bound: O(T log w_max) for "adder" over T = sum_i k_i^2 terms, O(B * sum_i k_i
    w(R_i)) for "seqcounter". The build is plain Python, so Ctrl-C stops it at once.
    """
    import time

    from pysat.formula import IDPool

    if kind not in ("free", "glob"):
        raise InstanceError(f"kind must be 'free' or 'glob', not {kind!r}")
    if encoding not in ENCODINGS:
        raise InstanceError(f"unknown encoding {encoding!r}; choose from {', '.join(ENCODINGS)}")
    if max_bytes is not None:
        size = cnf_size(inst, bound, kind, encoding=encoding)
        limit = int(0.8 * memory_left()) if max_bytes == "auto" else int(max_bytes)
        if size.bytes > limit:
            raise EncodingTooLarge(f"the {kind} CNF at bound {bound} would need {size.describe()}, more than "
                                   f"the {_fmt_bytes(limit)} left for it")

    def on_time():
        if deadline is not None and time.perf_counter() >= deadline:
            raise EncodingTooLarge(f"time limit reached while building the {kind} CNF at bound {bound}")

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
        on_time()
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
                if encoding == "seqcounter":
                    y = pool.id(("y", i, c, t))
                    cls.append([-x[i, c, t], -new, y])
                    terms.append((w[c], y))
                else:  # one term per (request, chunk): chunk c of R_i starts a new node
                    cls.append([-x[i, c, t], -new, pool.id(("p", i, c))])
        if encoding != "seqcounter":
            terms += [(w[c], pool.id(("p", i, c))) for c in r]

    before = {}
    if kind == "glob":
        n = inst.n
        for a in range(n):
            for b in range(a + 1, n):
                before[a, b] = pool.id(("b", a, b))

        def lit(a, b):
            return before[a, b] if a < b else -before[b, a]

        for a in range(n):
            on_time()
            for b in range(n):
                for c in range(n):
                    if len({a, b, c}) == 3:
                        cls.append([-lit(a, b), -lit(b, c), lit(a, c)])
        for i, r in enumerate(R):
            on_time()
            for a in r:
                for c in r:
                    if a == c:
                        continue
                    for t in range(len(r)):  # a before c and c at t: a sits somewhere before t
                        cls.append([-lit(a, c), -x[i, c, t]] + [x[i, a, u] for u in range(t)])

    if bound < 0:
        cls.append([])
    elif bound < sum(wt for wt, _ in terms):
        if encoding == "adder":
            _adder_at_most(terms, bound, pool.id, cls)
        else:
            _unit_copies_at_most(terms, bound, pool, cls)
    return TrieCnf(cls, pool.top, x, bound, kind, before, len(terms), encoding)


# ---- the cost bound ------------------------------------------------------------------------------

def _adder_at_most(terms, bound: int, new_var, cls) -> None:
    """Clauses saying sum w * y <= bound over ``terms`` = [(w, y)], with ``new_var(key)`` giving
    fresh variables (or counting them) and ``cls.append`` taking each clause.

    Every weight puts its y into the bucket of each of its set bits. A bucket of three or more
    is reduced by a full adder (three literals in; the sum bit back into the bucket, the carry
    into the next bucket), of two by a half adder, first in first out so the adder tree stays
    shallow; the literal left in bucket j is bit j of the sum (none left: the bit is 0). The
    adders define their outputs exactly (s = a xor b xor c, carry = majority), so the bits
    spell the sum. Then "sum > bound" is forbidden bit by bit: for each j where the bound has a
    0, not (bit j and every higher bit where the bound has a 1) -- the highest position where
    sum and bound differ would be such a j."""
    from collections import deque

    buckets: list = []
    for wt, y in terms:
        for j in range(wt.bit_length()):
            if wt >> j & 1:
                while len(buckets) <= j:
                    buckets.append(deque())
                buckets[j].append(y)
    out: list = []  # out[j]: the literal of bit j of the sum, or None (always 0)
    j = 0
    while j < len(buckets):
        q = buckets[j]
        while len(q) >= 2:
            if j + 1 == len(buckets):
                buckets.append(deque())
            s, co = new_var(("sum", j, len(cls))), new_var(("carry", j, len(cls)))
            if len(q) >= 3:
                a, b, c = q.popleft(), q.popleft(), q.popleft()
                cls.append([-a, -b, -c, s])
                cls.append([-a, b, c, s])
                cls.append([a, -b, c, s])
                cls.append([a, b, -c, s])
                cls.append([a, b, c, -s])
                cls.append([a, -b, -c, -s])
                cls.append([-a, b, -c, -s])
                cls.append([-a, -b, c, -s])
                cls.append([-a, -b, co])
                cls.append([-a, -c, co])
                cls.append([-b, -c, co])
                cls.append([a, b, -co])
                cls.append([a, c, -co])
                cls.append([b, c, -co])
            else:
                a, b = q.popleft(), q.popleft()
                cls.append([-a, b, s])
                cls.append([a, -b, s])
                cls.append([a, b, -s])
                cls.append([-a, -b, -s])
                cls.append([-a, -b, co])
                cls.append([a, -co])
                cls.append([b, -co])
            q.append(s)
            buckets[j + 1].append(co)
        out.append(q[0] if q else None)
        j += 1
    width = max(len(out), bound.bit_length())
    out += [None] * (width - len(out))
    for j in range(width):
        if bound >> j & 1 or out[j] is None:
            continue
        higher = [out[i] for i in range(j + 1, width) if bound >> i & 1]
        if any(h is None for h in higher):  # a bit the bound has and the sum cannot: no excess here
            continue
        cls.append([-out[j]] + [-h for h in higher])


def _unit_copies_at_most(terms, bound: int, pool, cls) -> None:
    """The "seqcounter" bound: a weight w becomes w unit copies (y -> copy), so one
    cardinality bound (PySAT's sequential counter) covers the weighted sum; copies only push
    the count up, so the bound stays exact."""
    from pysat.card import CardEnc, EncType as CardType

    from .._signals import signal_seen

    units = sum(wt for wt, _ in terms)
    if units > MAX_UNITS:
        raise InstanceError(f"total weight {units} is too large for the CNF (at most {MAX_UNITS} weight units)")
    lits = []
    for wt, y in terms:
        if wt == 1:
            lits.append(y)
            continue
        for r in range(wt):
            z = pool.id(("w", y, r))
            cls.append([-y, z])
            lits.append(z)
    try:
        enc = CardEnc.atmost(lits=lits, bound=bound, vpool=pool, encoding=CardType.seqcounter)
    except Exception as exc:  # PySAT's C encoder turns Ctrl-C into its own error
        if signal_seen() is not None:
            raise KeyboardInterrupt from exc
        raise
    cls += [list(c) for c in enc.clauses]


class _Counter:
    """Stands for the clause list and the variable pool when :func:`cnf_size` counts."""

    def __init__(self):
        self.variables = self.clauses = self.literals = 0

    def __len__(self):
        return self.clauses

    def append(self, clause):
        self.clauses += 1
        self.literals += len(clause)

    def var(self, key=None):
        self.variables += 1
        return self.variables


def cnf_size(inst: Instance, bound: int, kind: str = "free", *, encoding: str = ENCODINGS[0]) -> CnfSize:
    """The exact numbers of variables, clauses and literals of :func:`trie_cnf` (for
    "seqcounter", upper bounds on the cardinality part), counted without building anything.

    Runs in O(m^2 k^2 + n^3) steps and O(m) memory (O(T log w_max) more for "adder")."""
    if kind not in ("free", "glob"):
        raise InstanceError(f"kind must be 'free' or 'glob', not {kind!r}")
    if encoding not in ENCODINGS:
        raise InstanceError(f"unknown encoding {encoding!r}; choose from {', '.join(ENCODINGS)}")
    R = [tuple(sorted(o)) for o in inst.orders]
    sets = [frozenset(r) for r in R]
    w = [int(v) for v in inst.weights]
    nv = ncl = nlit = 0
    weights = []
    for i, r in enumerate(R):
        k = len(r)
        nv += k * k
        ncl += 2 * k + k * k * (k - 1)  # 2k "at least one" clauses of k literals, the rest binary
        nlit += 2 * k * k + 2 * k * k * (k - 1)
        if encoding != "seqcounter":
            nv += k  # p[i, c]
        for t in range(k):
            nv += 1 + (k if encoding == "seqcounter" else 0)  # new[i, t] (and the y of each chunk)
            ncl += 1 + k  # the alternatives clause, one y clause per chunk
            nlit += 1 + 3 * k
            for j in range(i):
                common = len(sets[i] & sets[j])
                if common < t + 1:
                    continue
                nv += 1
                nlit += 1  # its literal in the alternatives clause
                ncl += k + (t > 0)
                nlit += 3 * common + 2 * (k - common) + 2 * (t > 0)
        weights += [w[c] for c in r] * (k if encoding == "seqcounter" else 1)
    if kind == "glob":
        n = inst.n
        nv += n * (n - 1) // 2
        ncl += n * (n - 1) * (n - 2)
        nlit += 3 * n * (n - 1) * (n - 2)
        for r in R:
            k = len(r)
            ncl += k * (k - 1) * k
            nlit += k * (k - 1) * sum(2 + t for t in range(k))
    if bound < 0:
        ncl += 1
    elif bound < sum(weights):
        if encoding == "adder":
            c = _Counter()
            _adder_at_most([(wt, 0) for wt in weights], bound, c.var, c)
            nv, ncl, nlit = nv + c.variables, ncl + c.clauses, nlit + c.literals
        else:
            units = sum(weights)
            copies = units - weights.count(1)
            nv += copies + units * bound  # the copies, the counter's registers
            ncl += copies + 2 * units * bound + units
            nlit += 2 * copies + 3 * (2 * units * bound + units)
    return CnfSize(nv, ncl, nlit)


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

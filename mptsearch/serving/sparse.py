"""The sparse trace model: request-chunk incidence in compressed sparse form.

A trace of M lines (arrivals) over n distinct chunks is held as

- ``labels`` (chunk labels, sorted, so chunk ids do not depend on arrival order, as in
  :class:`~mptsearch.instance.Instance`) and ``weights`` (int64 token counts per chunk id);
- ``indptr``/``chunks``: line j's chunk ids in relevance order, ``chunks[indptr[j]:indptr[j+1]]``;
- ``req_indptr``/``req_chunks``: the m distinct requests (chunk sets), each sorted by chunk id,
  and ``line_request`` (int64), the distinct request of every line.

A layout of the trace (:class:`Layout`, what every layout method returns) is one chunk order
per line in the same CSR form.

Memory is O(M + n + sum of request sizes); nothing of size m x m or m x n is ever built. Every
serving path (layout methods, the MST bound, online windows, pinning, ``simulate``) reads this
model; the dense :class:`~mptsearch.instance.Instance` is built only for the small-instance
methods (greedy, the global DP, the peer baseline) after a memory estimate (:mod:`.memory`).
"""

from __future__ import annotations

import json
from array import array
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from ..instance import InstanceError
from .trace import check_unique_ids, malformed_json

__all__ = ["SparseTrace", "Layout", "parse_sparse", "read_sparse", "sparse_from_lists", "lex_rank",
           "orders_cost", "mst_bound", "MSTBound", "MAX_CHUNK_TOKENS"]

#: the most tokens one chunk may have: sums over up to 2^31 distinct chunks stay within int64
MAX_CHUNK_TOKENS = 2**32


@dataclass(frozen=True, eq=False)
class SparseTrace:
    """A trace in compressed sparse form (see the module docstring)."""

    ids: list
    labels: tuple
    weights: np.ndarray
    indptr: np.ndarray
    chunks: np.ndarray
    req_indptr: np.ndarray
    req_chunks: np.ndarray
    line_request: np.ndarray

    @property
    def size(self) -> int:
        """Number of lines (arrivals)."""
        return len(self.indptr) - 1

    @property
    def m(self) -> int:
        """Number of distinct requests."""
        return len(self.req_indptr) - 1

    @property
    def n(self) -> int:
        """Number of distinct chunks."""
        return len(self.labels)

    @property
    def nnz(self) -> int:
        """Total chunk occurrences over the distinct requests."""
        return int(self.req_indptr[-1])

    def line(self, j: int) -> np.ndarray:
        return self.chunks[self.indptr[j]:self.indptr[j + 1]]

    def tokens(self) -> int:
        """Total tokens over all lines: the prefill with no cache at all."""
        return int(self.weights[self.chunks].sum())

    def request_weights(self) -> np.ndarray:
        """w(R_i) of every distinct request."""
        return np.add.reduceat(self.weights[self.req_chunks], self.req_indptr[:-1]) if self.m else \
            np.zeros(0, dtype=np.int64)

    def production_cost(self) -> int:
        """Prefill of relevance order under an unbounded cache."""
        return orders_cost(self.weights, self.indptr, self.chunks)

    def subset(self, rows: Sequence[int]) -> "SparseTrace":
        """The trace of the lines ``rows`` in that order (labels and weights kept)."""
        rows = np.asarray(rows, dtype=np.int64)
        lens = np.diff(self.indptr)[rows]
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lens, out=indptr[1:])
        take = np.concatenate([np.arange(self.indptr[r], self.indptr[r + 1]) for r in rows]) \
            if len(rows) else np.zeros(0, dtype=np.int64)
        return _assemble([self.ids[r] for r in rows], self.labels, self.weights, indptr,
                         self.chunks[take].astype(np.int32))

    def label_lists(self, indptr=None, chunks=None) -> list[list]:
        """Per-line chunk labels of ``chunks`` (default: relevance order)."""
        indptr = self.indptr if indptr is None else indptr
        chunks = self.chunks if chunks is None else chunks
        lab = self.labels
        flat = [lab[x] for x in chunks.tolist()]
        cuts = indptr.tolist()
        return [flat[cuts[j]:cuts[j + 1]] for j in range(len(cuts) - 1)]

    def to_instance(self):
        """The dense :class:`~mptsearch.instance.Instance` of the distinct requests (small
        traces only; callers check :func:`.memory.check` first). Chunk ids are kept."""
        from ..instance import Instance

        orders = []
        first = np.full(self.m, -1, dtype=np.int64)
        for j, r in enumerate(self.line_request.tolist()):
            if first[r] < 0:
                first[r] = j
        for r in range(self.m):
            orders.append(tuple(self.line(int(first[r])).tolist()))
        return Instance(labels=self.labels, weights=self.weights, orders=tuple(orders))


@dataclass(frozen=True)
class Layout:
    """Per-line chunk orders in CSR form (``seq[indptr[j]:indptr[j+1]]``, chunk ids)."""

    indptr: np.ndarray
    seq: np.ndarray

    def rows(self) -> list[tuple[int, ...]]:
        s = self.seq.tolist()
        c = self.indptr.tolist()
        return [tuple(s[c[j]:c[j + 1]]) for j in range(len(c) - 1)]

    def __len__(self) -> int:
        return len(self.indptr) - 1

    def __getitem__(self, j: int) -> tuple:
        return tuple(self.seq[self.indptr[j]:self.indptr[j + 1]].tolist())

    def __iter__(self):
        return iter(self.rows())


def _assemble(ids, labels, weights, indptr, chunks) -> SparseTrace:
    """Fill the distinct-request view: rows sorted by chunk id, duplicates merged."""
    lens = np.diff(indptr)
    # sort each row by chunk id (a request names a chunk once)
    from ._sparse_kernels import duplicate_groups, sort_rows, take_ranges

    srt = sort_rows(np.asarray(indptr, dtype=np.int64), np.asarray(chunks, dtype=np.int32))
    # duplicate sets (equal sorted rows), numbered by first arrival like Instance (first occurrence kept)
    line_request = duplicate_groups(indptr, srt)
    # group k's first line: where the running maximum of the group numbers reaches k
    reps = np.flatnonzero(np.diff(np.maximum.accumulate(line_request), prepend=-1) > 0)
    rl = lens[reps]
    req_indptr = np.zeros(len(reps) + 1, dtype=np.int64)
    np.cumsum(rl, out=req_indptr[1:])
    return SparseTrace(list(ids), tuple(labels), np.asarray(weights, dtype=np.int64),
                       np.asarray(indptr, dtype=np.int64), np.asarray(chunks, dtype=np.int32),
                       req_indptr, take_ranges(srt, np.asarray(indptr, dtype=np.int64)[reps], rl), line_request)


def _ranges(starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """Concatenated aranges [s, s+l) (vectorised)."""
    total = int(lens.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    off = np.repeat(starts - np.concatenate(([0], np.cumsum(lens)[:-1])), lens)
    return off + np.arange(total, dtype=np.int64)


def _bad(where: str, lineno: int, msg: str) -> InstanceError:
    return InstanceError(f"{where} line {lineno}: {msg}")


def parse_sparse(lines: Iterable[str], where: str = "trace") -> SparseTrace:
    """Parse JSONL text lines (the format of :mod:`.trace`) into a :class:`SparseTrace`.

    The whole input is read and checked before anything is returned, so a malformed line
    anywhere stops a command before it writes any output. Errors name the 1-based line.

    Notes
    -----
    One pass, O(total chunk occurrences) time; chunk labels are interned as they are read, so
    memory holds one string per distinct chunk, not one per occurrence.
    """
    index: dict = defaultdict()
    index.default_factory = index.__len__  # a new label gets the next id, in C
    intern = index.__getitem__
    flat = array("q")
    toks = array("q")
    where_line = array("q")
    lens = array("q")
    ids = []
    kind = None
    loads = json.loads
    for lineno, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            rec = loads(text)
        except json.JSONDecodeError as exc:
            raise _bad(where, lineno, malformed_json(exc, text)) from None
        except RecursionError:
            raise _bad(where, lineno, "malformed JSON (nested too deeply)") from None
        if type(rec) is not dict:
            raise _bad(where, lineno, "expected a JSON object with chunks and tokens")
        cs = rec.get("chunks")
        ts = rec.get("tokens")
        if cs is None or ts is None:
            raise _bad(where, lineno, 'needs both "chunks" and "tokens"')
        if type(cs) is not list or not cs:
            raise _bad(where, lineno, '"chunks" must be a nonempty list')
        if type(ts) is not list or len(ts) != len(cs):
            raise _bad(where, lineno, f'"tokens" must be a list of {len(cs)} counts, one per chunk')
        kinds = {type(c) for c in cs}
        if len(kinds) != 1 or not (kinds <= {str} or kinds <= {int}):
            bad = next((c for c in cs if type(c) not in (str, int)), None)
            if bad is not None:
                raise _bad(where, lineno, f"chunk {bad!r} is not a string or an integer")
            raise _bad(where, lineno, "chunk labels mix integers and strings across the trace")
        k = kinds.pop()
        if kind is None:
            kind = k
        elif k is not kind:
            raise _bad(where, lineno, "chunk labels mix integers and strings across the trace")
        if len(set(cs)) != len(cs):
            raise _bad(where, lineno, "a chunk appears twice in one request")
        if {type(t) for t in ts} != {int} or min(ts) <= 0 or max(ts) > MAX_CHUNK_TOKENS:
            t, c = next((t, c) for t, c in zip(ts, cs) if type(t) is not int or not 0 < t <= MAX_CHUNK_TOKENS)
            if type(t) is int and t > MAX_CHUNK_TOKENS:
                raise _bad(where, lineno, f"token count {t} of chunk {c!r} is more than {MAX_CHUNK_TOKENS:,} "
                                          "(2^32), the most one chunk may have")
            raise _bad(where, lineno, f"token count {t!r} of chunk {c!r} is not a positive integer")
        flat.extend(map(intern, cs))
        toks.extend(ts)
        where_line.append(lineno)
        lens.append(len(cs))
        ids.append(rec.get("id", lineno))
    if not lens:
        raise InstanceError(f"{where}: the trace has no requests")
    return _finish(list(index), np.frombuffer(flat, dtype=np.int64), np.frombuffer(toks, dtype=np.int64),
                   np.frombuffer(lens, dtype=np.int64), ids, where_line, where)


def _finish(seen: list, flat_a: np.ndarray, toks_a: np.ndarray, lens_a: np.ndarray, ids: list, where_line,
            where: str, order=None, tok_of=None, ids_unique: bool = False) -> SparseTrace:
    """The checks across lines (unique ids, one token count per chunk) and the sparse model,
    from the lines' interned chunk ids (``seen``: the labels in first-seen order, chunk id x
    being ``seen[x]``; or, with ``order`` given, the chunk ids in sorted label order, as
    ``sorted`` would give it, and ``seen`` the labels in that order, chunk id ``order[i]``
    being ``seen[i]``; ``tok_of``, if given, every chunk's token count, already checked
    against all its occurrences, and given whenever ``order`` is; ``ids_unique``: the ids
    are known to be distinct)."""
    if not ids_unique:
        check_unique_ids(ids, where_line, where)
    n = len(seen)
    indptr = np.zeros(len(lens_a) + 1, dtype=np.int64)
    np.cumsum(lens_a, out=indptr[1:])
    bad = ()
    if tok_of is None:
        # a chunk's token count must be the one its first line gave; ids are numbered in first-seen
        # order, so a chunk's first occurrence is where the running maximum of the ids grows
        grows = np.ones(len(flat_a), dtype=np.bool_)
        run = np.maximum.accumulate(flat_a)
        grows[1:] = run[1:] > run[:-1]
        first_pos = np.flatnonzero(grows)
        tok_of = toks_a[first_pos]
        bad = np.flatnonzero(toks_a != tok_of[flat_a])
    if len(bad):
        p = int(bad[0])
        row = int(np.searchsorted(indptr, p, side="right")) - 1
        x = int(flat_a[p])
        lab = seen[x]  # first-seen order: ``order`` comes only with ``tok_of``, so this is not reached then
        row0 = int(np.searchsorted(indptr, first_pos[x], side="right")) - 1
        raise _bad(where, where_line[row], f"chunk {lab!r} has {int(toks_a[p])} tokens but line "
                                           f"{where_line[row0]} gave it {int(tok_of[x])}")
    # chunk ids in sorted label order
    if order is None:
        srt = sorted(range(n), key=seen.__getitem__)
        labels = tuple(map(seen.__getitem__, srt))
    else:
        srt, labels = order, tuple(seen)
    remap = np.empty(n, dtype=np.int64)
    remap[np.asarray(srt, dtype=np.int64)] = np.arange(n, dtype=np.int64)
    weights = np.empty(n, dtype=np.int64)
    weights[remap] = tok_of
    return _assemble(ids, labels, weights, indptr, remap.astype(np.int32)[flat_a])  # int32 ids, no int64 copy


def read_sparse(path: str, stdin=None, progress=None) -> SparseTrace:
    """Read a JSONL trace file (``-``: standard input) into a :class:`SparseTrace`.

    A file is first read by :func:`.fastread.read_fast` (a compiled pass over its bytes, then
    orjson in batches); on anything they do not accept (a malformed or unusual line, a blank
    line, a read error) the file is read again by :func:`parse_sparse`, which names the offending
    line, so the result or the one-line error is the same either way. ``progress``, if given,
    is called now and then with the number of bytes of the file read so far (from 0 again when
    a reader starts over)."""
    if path == "-":
        import sys

        return parse_sparse(stdin if stdin is not None else sys.stdin, where="<stdin>")
    from .fastread import read_fast

    fast = read_fast(path, MAX_CHUNK_TOKENS, progress)
    if fast is not None:
        return _finish(fast.labels, fast.codes, fast.toks, fast.lens, fast.ids, fast.linenos, where=str(path),
                       order=fast.order, tok_of=fast.tok_of, ids_unique=fast.ids_unique)
    from .._files import read_errors

    with read_errors(path, "trace "), open(path, encoding="utf-8") as fh:
        return parse_sparse(fh if progress is None else _reporting(fh, progress), where=str(path))


def _reporting(fh, progress, every: int = 65536):
    """The lines of the text file ``fh``, calling ``progress`` with the bytes read every
    ``every`` lines."""
    for k, line in enumerate(fh, start=1):
        if k % every == 0:
            progress(fh.buffer.tell())
        yield line


def sparse_from_lists(chunks: Sequence[Sequence], tokens=None, ids=None) -> SparseTrace:
    """A :class:`SparseTrace` from per-line chunk labels (relevance order).

    ``tokens``: a mapping label -> token count, per-line lists of counts, or None (1 each)."""
    lines = []
    for j, cs in enumerate(chunks):
        if isinstance(cs, (str, bytes)) or not isinstance(cs, Sequence):
            raise InstanceError(f"request {j} is {cs!r}, not a list of chunk labels")
        cs = [c if isinstance(c, str) else (int(c) if isinstance(c, (int, np.integer))
                                           and not isinstance(c, bool) else c) for c in cs]
        if tokens is None:
            ts = [1] * len(cs)
        elif isinstance(tokens, dict):
            missing = next((c for c in cs if c not in tokens), None)
            if missing is not None:
                raise InstanceError(f"request {j}: chunk {missing!r} has no token count")
            ts = [tokens[c] for c in cs]
        else:
            ts = list(tokens[j])
        ts = [int(t) if isinstance(t, np.integer) else t for t in ts]
        lines.append(json.dumps({"id": j if ids is None else ids[j], "chunks": cs, "tokens": ts}))
    try:
        return parse_sparse(lines, where="requests")
    except InstanceError as exc:
        import re

        # the parser counts lines from 1; requests are numbered from 0
        msg = re.sub(r"(?:requests )?line (\d+)", lambda g: f"request {int(g.group(1)) - 1}", str(exc))
        raise InstanceError(msg) from None


# ---------------------------------------------------------------------------------------------


def lex_rank(indptr: np.ndarray, seq: np.ndarray) -> np.ndarray:
    """The rows in lexicographic order (a prefix before its extensions, ties in row order):
    the DFS order of their trie, the schedule of Theorem 7 (paper, Section 8)."""
    from ._sparse_kernels import lex_order

    return lex_order(np.asarray(indptr, dtype=np.int64), np.asarray(seq, dtype=np.int32))


def orders_cost(weights: np.ndarray, indptr: np.ndarray, seq: np.ndarray, order=None) -> int:
    """Total weight of the prefix trie of the rows: prefill under an unbounded cache.

    O(L log m) for L the total length (a lexicographic sort, then one pass)."""
    from ._sparse_kernels import trie_cost_sorted

    indptr = np.asarray(indptr, dtype=np.int64)
    seq = np.asarray(seq, dtype=np.int32)
    if order is None:
        order = lex_rank(indptr, seq)
    return int(trie_cost_sorted(indptr, seq, np.asarray(weights, dtype=np.int64), order))


@dataclass(frozen=True)
class MSTBound:
    """The MST lower bound and how it was computed."""

    value: int
    exact: bool  #: True when every overlap edge had its exact weight (no hot chunk)
    hot_chunks: int
    edges: int
    #: the trivial bound: every distinct chunk of the trace is computed at least once
    trivial: int = 0
    #: pairs of requests sharing a chunk, counted once per shared chunk: at most the edges the
    #: exact bound needs (the ``edge_budget`` that makes no chunk hot)
    all_pairs: int = 0

    @property
    def vacuous(self) -> bool:
        """Whether the bound says no more than the trivial one (each distinct chunk once)."""
        return self.value <= self.trivial


DEFAULT_EDGE_BUDGET = 10_000_000


def mst_bound(tr: SparseTrace, edge_budget: int = DEFAULT_EDGE_BUDGET, partner_cap: int = 64) -> MSTBound:
    """Lower bound on any layout's prefill: sum_i w(R_i) minus a maximum spanning tree of
    w(R_i ∩ R_j) over the sparse overlap graph (pairs sharing a chunk; paper, Section 6.4).

    Chunks held by so many requests that their pairs would pass ``edge_budget`` are *hot*.
    The tree's weight is then bounded from above in two ways, and the better bound is kept:

    - *stars*: a hot chunk's holders are joined by a star over-estimating every pair by the
      smaller of the two requests' best common weight with anyone
      (:func:`._sparse_kernels.partner_upper`, itself an upper bound when a holder list is cut
      at ``partner_cap``; see :func:`._sparse_kernels.overlap_edges`);
    - *per chunk*: the pair weights split as cold part + hot part, a tree's weight is at most
      the maximum tree of each part, and a tree has at most |S_x| - 1 edges inside S_x, so
      MaxST <= MaxST(cold parts only) + sum over hot x of w(x) (|S_x| - 1). With every chunk
      hot this is the trivial bound (each distinct chunk computed once), never below it.

    Both keep the bound valid but may lower it; the result says whether that happened. With
    no hot chunk it equals :func:`mptsearch.bounds.mst_lower_bound` on the distinct requests.

    Notes
    -----
    O(sum over cold chunks of |S_x|^2 * k + E log E) time, O(E) memory for E <= edge_budget
    edges; twice the kernel work when a chunk is hot.
    """
    from ._sparse_kernels import kruskal_max, overlap_edges, partner_upper

    m = tr.m
    rw = tr.request_weights()
    total = int(rw.sum())
    cptr, cidx = chunk_holders(tr)
    deg = np.diff(cptr)
    trivial = int(tr.weights[deg > 0].sum())
    pairs = deg * (deg - 1) // 2
    all_pairs = int(pairs.sum())
    if m == 1:
        return MSTBound(total, True, 0, 0, trivial, 0)
    # the coldest chunks get exact pairs until the budget is spent
    srt = np.argsort(deg, kind="stable")
    cum = np.cumsum(pairs[srt])
    cold = np.zeros(tr.n, dtype=np.bool_)
    cold[srt[cum <= edge_budget]] = True
    hot_mask = ~cold & (deg > 1)
    hot = int(hot_mask.sum())
    # hot stars use a per-request upper bound on its best common weight with anyone
    cap_w = partner_upper(tr.req_indptr, tr.req_chunks, tr.weights, cptr, cidx, partner_cap) if hot else rw
    _, ea, eb, ew = overlap_edges(tr.req_indptr, tr.req_chunks, cptr, cidx, tr.weights, cold, cap_w, False)
    value = total - int(kruskal_max(m, ea, eb, ew, np.argsort(-ew, kind="stable")))
    edges = len(ew)
    if hot:
        del ea, eb, ew
        w_cold = np.where(cold, tr.weights, 0)  # pair weights over their cold chunks only; stars weigh 0
        _, ea, eb, ew = overlap_edges(tr.req_indptr, tr.req_chunks, cptr, cidx, w_cold, cold,
                                      np.zeros(m, dtype=np.int64), False)
        tree = int(kruskal_max(m, ea, eb, ew, np.argsort(-ew, kind="stable")))
        value = max(value, total - tree - int((tr.weights[hot_mask] * (deg[hot_mask] - 1)).sum()))
    return MSTBound(value, hot == 0, hot, edges, trivial, all_pairs)


def chunk_holders(tr: SparseTrace) -> tuple[np.ndarray, np.ndarray]:
    """(cptr, cidx): the distinct requests holding each chunk, in request order (CSC view)."""
    rows = np.repeat(np.arange(tr.m, dtype=np.int32), np.diff(tr.req_indptr))
    order = np.argsort(tr.req_chunks, kind="stable")
    cptr = np.zeros(tr.n + 1, dtype=np.int64)
    np.cumsum(np.bincount(tr.req_chunks, minlength=tr.n), out=cptr[1:])
    return cptr, rows[order]

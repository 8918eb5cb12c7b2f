"""Retrieval traces: one request a line, chunks in relevance order with their token counts.

A trace is a JSONL file; each nonblank line is an object

    {"id": "q17", "chunks": ["Paris", "France", "Seine"], "tokens": [212, 340, 97]}

with the request's retrieved chunks in relevance order (most relevant first) and the token
count of each. A chunk's token count must be the same on every line that retrieves it, and
request ids must be unique (a line without ``id`` has its line number as id). The
trace becomes an :class:`~mptsearch.instance.Instance` (weights = token counts, production
order = relevance order); identical requests are merged there, so :class:`Trace` keeps, for
every line, the request it maps to.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from ..instance import Instance, InstanceError, from_lists

__all__ = ["Trace", "read_trace", "parse_trace", "trace_from_lists", "write_trace", "sequences_cost", "malformed_json",
           "line_orders", "check_unique_ids"]


@dataclass(frozen=True, eq=False)
class Trace:
    """A parsed trace.

    Attributes
    ----------
    ids : tuple
        The ``id`` of every line, in arrival (file) order.
    lines : tuple of tuple of int
        Every line's chunk ids (ids of ``instance``) in relevance order.
    instance : Instance
        The distinct requests; ``instance.orders[line_request[j]]`` is line j's first occurrence.
    line_request : numpy.ndarray
        int64, the instance request of every line.
    """

    ids: tuple
    lines: tuple
    instance: Instance
    line_request: np.ndarray

    @property
    def size(self) -> int:
        """Number of lines (arrivals)."""
        return len(self.lines)

    def subset(self, rows: Sequence[int]) -> "Trace":
        """The trace of the lines ``rows`` (in that order), e.g. a shuffled arrival order."""
        inst = self.instance
        return trace_from_lists([self.ids[j] for j in rows],
                                [[inst.labels[x] for x in self.lines[j]] for j in rows],
                                {lab: int(w) for lab, w in zip(inst.labels, inst.weights)})

    def tokens(self) -> int:
        """Total tokens over all lines: the prefill with no cache at all."""
        w = self.instance.weights
        return int(sum(int(w[list(s)].sum()) for s in self.lines))


def trace_from_lists(ids: Sequence, chunks: Sequence[Sequence], weights) -> Trace:
    """A :class:`Trace` from per-line ids, chunk labels (relevance order) and a weight map."""
    inst = from_lists(chunks, weights)
    index = {lab: x for x, lab in enumerate(inst.labels)}
    first = {frozenset(o): i for i, o in enumerate(inst.orders)}
    lines = tuple(tuple(index[lab] for lab in c) for c in chunks)
    line_request = np.array([first[frozenset(s)] for s in lines], dtype=np.int64)
    return Trace(tuple(ids), lines, inst, line_request)


def _bad(where: str, lineno: int, msg: str) -> InstanceError:
    return InstanceError(f"{where} line {lineno}: {msg}")


def malformed_json(exc: json.JSONDecodeError, text: str) -> str:
    """What is wrong with the JSON of one trace line ``text``, at its column within that line.

    ``json`` counts lines and columns in the text it was given, which holds the line's newline:
    a line cut short (a truncated file, a partial write) fails after it, at "line 2 column 1".
    """
    line = text.rstrip("\r\n")
    if exc.pos >= len(line.rstrip()):
        return f"malformed JSON: the line ends at column {len(line)} before its JSON value does (cut short?)"
    return f"malformed JSON ({exc.msg.removesuffix(' at')} at column {exc.pos + 1})"


def check_unique_ids(ids: Sequence, linenos: Sequence[int], where: str = "trace") -> None:
    """Raise :class:`InstanceError` naming both lines when two lines share a request id.

    A layout is written back keyed by id, so a repeated id would make two requests one.
    O(lines) expected time: one set of the ids, and a second pass only when it is short.
    """
    try:
        if len(set(ids)) == len(ids):
            return
    except TypeError:  # an id that is a JSON list or object
        pass
    first: dict = {}
    for rid, lineno in zip(ids, linenos):
        key = (type(rid).__name__, rid if isinstance(rid, (str, int, float)) else json.dumps(rid, sort_keys=True))
        if key in first:
            raise _bad(where, int(lineno), f"request id {rid!r} repeats the id of line {first[key]} "
                                           "(ids must be unique)")
        first[key] = int(lineno)


def parse_trace(lines: Iterable[str], where: str = "trace") -> Trace:
    """Parse JSONL text lines into a :class:`Trace`; errors name the (1-based) line.

    Raises
    ------
    InstanceError
        One line: malformed JSON, a missing or ill-typed field, chunks and tokens of different
        lengths, a repeated chunk, a token count that is not a positive integer or that differs
        from the one an earlier line gave the same chunk, labels mixing ints and strings, a
        request id that an earlier line has.
    """
    ids, linenos, chunks, tokens_of, seen_at = [], [], [], {}, {}
    kind = None
    for lineno, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            rec = json.loads(text)
        except json.JSONDecodeError as exc:
            raise _bad(where, lineno, malformed_json(exc, text)) from None
        if not isinstance(rec, dict):
            raise _bad(where, lineno, "expected a JSON object with chunks and tokens")
        if "chunks" not in rec or "tokens" not in rec:
            raise _bad(where, lineno, 'needs both "chunks" and "tokens"')
        cs, ts = rec["chunks"], rec["tokens"]
        if not isinstance(cs, list) or not cs:
            raise _bad(where, lineno, '"chunks" must be a nonempty list')
        if not isinstance(ts, list) or len(ts) != len(cs):
            raise _bad(where, lineno, f'"tokens" must be a list of {len(cs)} counts, one per chunk')
        if len(set(map(repr, cs))) != len(cs):
            raise _bad(where, lineno, "a chunk appears twice in one request")
        for c, t in zip(cs, ts):
            if isinstance(c, bool) or not isinstance(c, (int, str)):
                raise _bad(where, lineno, f"chunk {c!r} is not a string or an integer")
            k = str if isinstance(c, str) else int
            if kind is None:
                kind = k
            elif k is not kind:
                raise _bad(where, lineno, "chunk labels mix integers and strings across the trace")
            if isinstance(t, bool) or not isinstance(t, int) or t <= 0:
                raise _bad(where, lineno, f"token count {t!r} of chunk {c!r} is not a positive integer")
            if c in tokens_of and tokens_of[c] != t:
                raise _bad(where, lineno, f"chunk {c!r} has {t} tokens but line {seen_at[c]} gave it {tokens_of[c]}")
            if c not in tokens_of:
                tokens_of[c], seen_at[c] = t, lineno
        ids.append(rec.get("id", lineno))
        linenos.append(lineno)
        chunks.append(cs)
    if not chunks:
        raise InstanceError(f"{where}: the trace has no requests")
    check_unique_ids(ids, linenos, where)
    return trace_from_lists(ids, chunks, tokens_of)


def read_trace(path: str) -> Trace:
    """Read a JSONL trace file (see the module docstring)."""
    try:
        with open(path, encoding="utf-8") as fh:
            return parse_trace(fh, where=str(path))
    except OSError as exc:
        raise InstanceError(f"cannot read trace {path}: {exc.strerror}") from None


def write_trace(path: str, trace: Trace, orders: Sequence[Sequence[int]] | None = None) -> None:
    """Write ``trace`` (or the per-line chunk-id ``orders``) back as JSONL."""
    inst = trace.instance
    orders = trace.lines if orders is None else orders
    with open(path, "w", encoding="utf-8") as fh:
        for i, seq in zip(trace.ids, orders):
            rec = {"id": i, "chunks": [inst.labels[x] for x in seq],
                   "tokens": [int(inst.weights[x]) for x in seq]}
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")


def line_orders(trace: Trace, layout: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
    """Expand a layout of the (deduplicated) instance to every line of the trace."""
    return [tuple(layout[r]) for r in trace.line_request]


def sequences_cost(weights: np.ndarray, seqs: Iterable[Sequence[int]]) -> int:
    """Total weight of the prefix trie of the sequences: prefill under an unbounded cache.

    O(total length) time; the same ground truth as :func:`mptsearch.trie.trie_cost`, for
    sequences that may repeat (trace lines) and without validation against an instance.
    """
    root: dict = {}
    total = 0
    for seq in seqs:
        node = root
        for x in seq:
            nxt = node.get(x)
            if nxt is None:
                nxt = node[x] = {}
                total += int(weights[x])
            node = nxt
    return total


def read_layout(trace: Trace, path: str) -> list[tuple[int, ...]]:
    """Read per-line orders written by ``mptsearch layout --out`` for ``trace``.

    The file is itself a trace; line j must hold exactly the chunks of the trace's line j.
    Returns chunk-id sequences of ``trace.instance``.
    """
    lay = read_trace(path)
    if lay.size != trace.size:
        raise InstanceError(f"layout {path} has {lay.size} requests, the trace has {trace.size}")
    index = {lab: x for x, lab in enumerate(trace.instance.labels)}
    out = []
    for j, seq in enumerate(lay.lines):
        labs = [lay.instance.labels[x] for x in seq]
        ids = tuple(index.get(lab, -1) for lab in labs)
        if sorted(ids) != sorted(trace.lines[j]):
            raise InstanceError(f"{path} line {j + 1}: its chunks are not those of trace line {j + 1}")
        out.append(ids)
    return out

"""Writing a layout as JSONL (what ``mptsearch layout -o`` writes), streamed in batches.

One line per request, in arrival order::

    {"id": "q17", "chunks": ["Paris", "Seine", "France"], "tokens": [212, 97, 340], "serve": 4}

its chunks in layout order, their token counts, and ``serve``, its rank in the DFS order of the
layout's trie (the serving order of Theorem 7, paper Section 8). Every label, token count and
id is encoded once, as ``json.dumps(x, ensure_ascii=False)`` does, into one UTF-8 byte string;
each batch of lines is then copied together from those bytes by a compiled loop
(:func:`_fill`) and written with one call. O(output bytes) time, O(batch) memory besides the
encoded pieces.
"""

from __future__ import annotations

import json
import re
from json.encoder import encode_basestring

import numpy as np
from .._jit import njit

__all__ = ["write_layout", "encode_all", "BATCH_LINES"]

BATCH_LINES = 65536
_HEAD, _CHUNKS, _SEP, _TOKENS, _SERVE, _END = (np.frombuffer(s, dtype=np.uint8) for s in (
    b'{"id": ', b', "chunks": [', b", ", b'], "tokens": [', b'], "serve": ', b"}\n"))


def encode_all(values) -> list[str]:
    """``json.dumps(v, ensure_ascii=False)`` of every value (strings and ints without a call
    to ``dumps``)."""
    kinds = set(map(type, values))
    if kinds <= {str}:
        return list(map(encode_basestring, values))
    if kinds <= {int}:
        return list(map(int.__repr__, values))
    return [encode_basestring(v) if type(v) is str else (int.__repr__(v) if type(v) is int
                                                         else json.dumps(v, ensure_ascii=False)) for v in values]


#: the characters ``json.dumps(s, ensure_ascii=False)`` escapes in a string, but the newline
_ESCAPED = re.compile(r'[\x00-\x09\x0b-\x1f"\\]')


def _joined(values) -> str:
    """The encodings of :func:`encode_all` joined by newlines (a JSON encoding holds none),
    built in one piece when no string needs an escape."""
    if set(map(type, values)) <= {str}:
        text = "\n".join(values)
        if text.count("\n") == len(values) - 1 and not _ESCAPED.search(text):
            return '"' + text.replace("\n", '"\n"') + '"'
    return "\n".join(encode_all(values))


def _blob(values) -> tuple[np.ndarray, np.ndarray]:
    """(the UTF-8 bytes of every value's JSON encoding, concatenated; offsets, one more than
    values)."""
    off = np.zeros(len(values) + 1, dtype=np.int64)
    if not len(values):
        return np.zeros(0, dtype=np.uint8), off
    raw = np.frombuffer(_joined(values).encode("utf-8"), dtype=np.uint8)
    cuts = np.flatnonzero(raw == 10)
    off[1:-1] = cuts - np.arange(len(cuts))
    off[-1] = len(raw) - len(cuts)
    return raw[raw != 10], off


@njit(cache=True, inline="always")
def _put(out, p, src, s, e):
    for q in range(s, e):
        out[p] = src[q]
        p += 1
    return p


@njit(cache=True, inline="always")
def _items(out, p, seq, s, e, blob, off, sep):
    """The pieces of chunks ``seq[s:e]`` separated by ``sep``."""
    for q in range(s, e):
        if q > s:
            p = _put(out, p, sep, 0, len(sep))
        x = seq[q]
        p = _put(out, p, blob, off[x], off[x + 1])
    return p


@njit(cache=True, inline="always")
def _ndigits(v):
    d = 1
    while v >= 10:
        v //= 10
        d += 1
    return d


@njit(cache=True, inline="always")
def _digits(out, p, v):
    d = _ndigits(v)
    for q in range(p + d - 1, p - 1, -1):
        out[q] = 48 + v % 10
        v //= 10
    return p + d


@njit(cache=True)
def _fill(a, b, indptr, seq, lab, lab_off, tok, tok_off, ids, id_off, srv, head, chunks, sep, tokens, serve, end):
    """The bytes of lines a..b-1 (two passes: the size, then the copy); ``srv`` the serving
    ranks (nonnegative ints, written in decimal)."""
    size = 0
    for j in range(a, b):
        k = indptr[j + 1] - indptr[j]
        size += len(head) + id_off[j + 1] - id_off[j] + len(chunks) + len(tokens) + len(serve)
        size += _ndigits(srv[j]) + len(end) + 2 * len(sep) * max(k - 1, 0)
        for p in range(indptr[j], indptr[j + 1]):
            x = seq[p]
            size += lab_off[x + 1] - lab_off[x] + tok_off[x + 1] - tok_off[x]
    out = np.empty(size, dtype=np.uint8)
    p = 0
    for j in range(a, b):
        p = _put(out, p, head, 0, len(head))
        p = _put(out, p, ids, id_off[j], id_off[j + 1])
        p = _put(out, p, chunks, 0, len(chunks))
        p = _items(out, p, seq, indptr[j], indptr[j + 1], lab, lab_off, sep)
        p = _put(out, p, tokens, 0, len(tokens))
        p = _items(out, p, seq, indptr[j], indptr[j + 1], tok, tok_off, sep)
        p = _put(out, p, serve, 0, len(serve))
        p = _digits(out, p, srv[j])
        p = _put(out, p, end, 0, len(end))
    return out


def write_layout(fh, tr, lay, rank: np.ndarray) -> None:
    """Write ``lay`` (per-line orders of the :class:`.sparse.SparseTrace` ``tr``) with serving
    ranks ``rank`` to the binary file ``fh``, one line per request (see the module docstring)."""
    lab, lab_off = _blob(tr.labels)
    tok, tok_off = _blob(tr.weights.tolist())
    ids, id_off = _blob(tr.ids)
    srv = np.asarray(rank, dtype=np.int64)
    indptr = np.asarray(lay.indptr, dtype=np.int64)
    seq = np.asarray(lay.seq, dtype=np.int64)
    M = len(indptr) - 1
    for a in range(0, M, BATCH_LINES):
        fh.write(_fill(a, min(M, a + BATCH_LINES), indptr, seq, lab, lab_off, tok, tok_off, ids, id_off,
                       srv, _HEAD, _CHUNKS, _SEP, _TOKENS, _SERVE, _END))

"""Writing a layout as JSONL (what ``mptsearch layout -o`` writes), streamed in batches.

One line per request, in arrival order::

    {"id": "q17", "chunks": ["Paris", "Seine", "France"], "tokens": [212, 97, 340], "serve": 4}

its chunks in layout order, their token counts, and ``serve``, its rank in the DFS order of the
layout's trie (the serving order of Theorem 7, paper Section 8). Every label, token count and
id is encoded once, as ``json.dumps(x, ensure_ascii=False)`` does, into one UTF-8 byte string,
each label beside its token count (:func:`_records`); a compiled loop (:func:`_fill`) then
copies lines from those bytes into one buffer of :data:`BUFFER_BYTES`, reused, and each
fill is written with one call from a view of it (no second copy). O(output bytes) time,
O(buffer) memory besides the encoded pieces.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring

import numpy as np
from .._bits import prefetch
from .._jit import njit
from ._sparse_kernels import put

__all__ = ["write_layout", "encode_all", "BUFFER_BYTES"]

#: the bytes of lines written at once, from one buffer refilled each time (grown for a longer line)
BUFFER_BYTES = 1 << 22
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


@njit(cache=True)
def _quoted(raw, off):
    """The newline-separated strings of the UTF-8 bytes ``raw`` (``len(off) - 1`` of them)
    each in double quotes, concatenated, their offsets written into ``off``; and False instead
    if one holds a byte JSON escapes (a control character, a quote or a backslash): then
    the quotes alone are not their encoding."""
    n = len(off) - 1
    out = np.empty(len(raw) + n + 1, dtype=np.uint8)  # n - 1 separators become 2n quotes
    out[0] = 34
    p = 1
    k = 0
    for q in range(len(raw)):
        c = raw[q]
        if c == 10:
            out[p] = 34
            k += 1
            off[k] = p + 1
            out[p + 1] = 34
            p += 2
        elif c < 32 or c == 34 or c == 92:
            return out, False
        else:
            out[p] = c
            p += 1
    out[p] = 34
    off[n] = p + 1
    return out, True


def _blob(values) -> tuple[np.ndarray, np.ndarray]:
    """(the UTF-8 bytes of every value's JSON encoding, concatenated; offsets, one more than
    values). Strings that need no escape are quoted by a compiled pass over their joined
    bytes; anything else is encoded one by one (:func:`encode_all`). A string that is not
    UTF-8 (a lone surrogate, which a trace may spell ``"\\ud800"``) is written with JSON's
    ASCII escapes, so that the line reads back as the same string."""
    off = np.zeros(len(values) + 1, dtype=np.int64)
    if not len(values):
        return np.zeros(0, dtype=np.uint8), off
    try:
        text = "\n".join(values)  # a TypeError: not all strings
        if text.count("\n") == len(values) - 1:  # else a string holds a newline
            out, plain = _quoted(np.frombuffer(text.encode("utf-8"), dtype=np.uint8), off)
            if plain:
                return out, off
    except (TypeError, UnicodeEncodeError):
        pass
    parts = encode_all(values)
    try:
        raw = "\n".join(parts).encode("utf-8")
    except UnicodeEncodeError:
        raw = "\n".join(p if p.isascii() or _utf8(p) else json.dumps(v) for p, v in zip(parts, values)).encode("utf-8")
    raw = np.frombuffer(raw, dtype=np.uint8)
    cuts = np.flatnonzero(raw == 10)
    off[1:-1] = cuts - np.arange(len(cuts))
    off[-1] = len(raw) - len(cuts)
    return raw[raw != 10], off


def _utf8(text: str) -> bool:
    """Whether ``text`` encodes as UTF-8 (no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@njit(cache=True)
def _records(lab, lab_off, tok, tok_off):
    """Every label's encoding and its token count's side by side in one byte string, and per
    label one row (start, end of the label, end of the token count, 0): a chunk's two pieces
    and their offsets in one place, so writing it reads one row, not four scattered offsets."""
    n = len(lab_off) - 1
    rec = np.empty(len(lab) + len(tok), dtype=np.uint8)
    loc = np.zeros((n, 4), dtype=np.int64)
    p = 0
    for x in range(n):
        loc[x, 0] = p
        p = put(rec, p, lab, lab_off[x], lab_off[x + 1])
        loc[x, 1] = p
        p = put(rec, p, tok, tok_off[x], tok_off[x + 1])
        loc[x, 2] = p
    return rec, loc


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
def _decimal_blob(vals):
    """:func:`_blob` of nonnegative integers: their decimal digits, concatenated, and offsets."""
    off = np.zeros(len(vals) + 1, dtype=np.int64)
    for i in range(len(vals)):
        off[i + 1] = off[i] + _ndigits(vals[i])
    out = np.empty(off[-1], dtype=np.uint8)
    for i in range(len(vals)):
        _digits(out, off[i], vals[i])
    return out, off


def _int_blob(vals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_blob` of an integer array (compiled when no value is negative)."""
    if vals.dtype.kind == "i" and (not len(vals) or vals.min() >= 0):
        return _decimal_blob(vals.astype(np.int64))
    return _blob(vals.tolist())


@njit(cache=True, inline="always")
def _put_joined(out, p, rec, loc, seq, s, e, sep, col):
    """Write field ``col`` (0: the label, 1: the token count; bytes loc[x, col]:loc[x, col + 1]
    of ``rec``) of the chunks seq[s:e], joined by ``sep``; the new position."""
    for q in range(s, e):
        if q > s:
            p = put(out, p, sep, 0, len(sep))
        x = seq[q]
        p = put(out, p, rec, loc[x, col], loc[x, col + 1])
    return p


@njit(cache=True)
def _fill(out, a, indptr, seq, rec, loc, ids, id_off, srv, head, chunks, sep, tokens, serve, end):
    """Lines a, a+1, ... into ``out`` while they fit: (the first line not written, bytes
    written). Each line is measured, then copied, its chunks' rows still in cache; ``srv``
    the serving ranks (nonnegative ints, written in decimal)."""
    fixed = len(head) + len(chunks) + len(tokens) + len(serve) + len(end)
    p = 0
    M = len(indptr) - 1
    j = a
    while j < M:
        s, e = indptr[j], indptr[j + 1]
        # the rows of the chunks two lines on, and the bytes of the chunks of the next line, are
        # loaded while this line is written (random reads: the cache misses overlap)
        if j + 2 < M:
            for q in range(indptr[j + 2], indptr[j + 3]):
                prefetch(loc, seq[q])
        if j + 1 < M:
            for q in range(e, indptr[j + 2]):
                prefetch(rec, loc[seq[q], 0])
        size = fixed + id_off[j + 1] - id_off[j] + _ndigits(srv[j]) + 2 * len(sep) * max(e - s - 1, 0)
        for q in range(s, e):
            size += loc[seq[q], 2] - loc[seq[q], 0]
        if p + size > len(out):
            break
        p = put(out, p, head, 0, len(head))
        p = put(out, p, ids, id_off[j], id_off[j + 1])
        p = put(out, p, chunks, 0, len(chunks))
        p = _put_joined(out, p, rec, loc, seq, s, e, sep, 0)  # the labels
        p = put(out, p, tokens, 0, len(tokens))
        p = _put_joined(out, p, rec, loc, seq, s, e, sep, 1)  # their token counts
        p = put(out, p, serve, 0, len(serve))
        p = _digits(out, p, srv[j])
        p = put(out, p, end, 0, len(end))
        j += 1
    return j, p


def write_layout(fh, tr, lay, rank: np.ndarray) -> None:
    """Write ``lay`` (per-line orders of the :class:`.sparse.SparseTrace` ``tr``) with serving
    ranks ``rank`` to the binary file ``fh``, one line per request (see the module docstring)."""
    rec, loc = _records(*_blob(tr.labels), *_int_blob(np.asarray(tr.weights)))
    ids, id_off = _blob(tr.ids)
    srv = np.asarray(rank, dtype=np.int64)
    indptr = np.asarray(lay.indptr, dtype=np.int64)
    seq = np.asarray(lay.seq, dtype=np.int64)
    M = len(indptr) - 1
    out = np.empty(BUFFER_BYTES, dtype=np.uint8)
    view = memoryview(out)
    j = 0
    while j < M:
        j2, n = _fill(out, j, indptr, seq, rec, loc, ids, id_off, srv, _HEAD, _CHUNKS, _SEP, _TOKENS, _SERVE, _END)
        if j2 == j:  # a line longer than the buffer
            out = np.empty(2 * len(out), dtype=np.uint8)
            view = memoryview(out)
            continue
        fh.write(view[:n])
        j = j2

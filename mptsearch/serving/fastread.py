"""The fast paths of :func:`.sparse.read_sparse`: a JSONL trace read in batches of bytes.

Two readers, tried in turn, each taking a strict subset of what :func:`.sparse.parse_sparse`
accepts and returning None on anything else (the next one, and finally the line parser, which
names the offending line, then decides):

1. :func:`_read_scan`, the common case: the file's bytes parsed and the chunk labels interned
   by a compiled pass (:func:`._read_kernels.scan_lines`; the subset it takes is listed
   there: no backslash in labels, ids or keys, scalar values for other keys, integers of at
   most 18 digits), the distinct labels and the ids then decoded as one UTF-8 string each.
2. :func:`_read_orjson`, for escapes and other valid JSON the first refuses: each batch of
   whole lines (about 8 MiB) parsed by one ``orjson.loads`` call (the lines joined into a JSON
   array) and checked with whole-batch operations instead of per-line Python. It refuses a
   blank line, malformed JSON, a JSON value orjson and the ``json`` module read differently
   such as NaN or a float id, a missing or ill-typed field, a repeated chunk, a token count
   that is not a positive integer up to the limit, an unreadable file.

The checks across lines (unique ids, one token count per chunk) are the caller's, for every
path (the first path checks the token counts itself, and string ids distinct on their bytes,
and refuses a mismatch or leaves a repeated id to the caller's message).

O(file size) time. The first path holds one batch of the file at a time, the bytes of the
distinct labels and of the ids (an arena), and 8 bytes per chunk occurrence; the second
O(batch + sum of request sizes) memory, labels interned per batch, so only one string per
distinct chunk is kept.
"""

from __future__ import annotations

import codecs
import gc
import os
from collections import defaultdict
from itertools import chain
from typing import NamedTuple

import numpy as np
from .._jit import njit

__all__ = ["read_fast", "FastRead", "compile_kernels", "BATCH_BYTES"]

BATCH_BYTES = 8 << 20


@njit(cache=True)
def _repeats(lens, codes, n):
    """True if some line holds one chunk id twice (``codes`` in lines of ``lens``)."""
    mark = np.full(n, -1, dtype=np.int64)
    p = 0
    for j in range(len(lens)):
        for _ in range(lens[j]):
            x = codes[p]
            if mark[x] == j:
                return True
            mark[x] = j
            p += 1
    return False


def _batches(path: str):
    """Whole lines of the file, about BATCH_BYTES at a time, without their last newline."""
    with open(path, "rb") as fh:
        rest = b""
        while True:
            block = fh.read(BATCH_BYTES)
            if not block:
                break
            data = rest + block
            cut = data.rfind(b"\n")
            if cut < 0:
                rest = data
                continue
            rest = data[cut + 1:]
            yield data[:cut]
        if rest:
            yield rest


def compile_kernels() -> None:
    """Compile (or load from numba's on-disk cache) the reader's kernels on a few bytes, so
    that a command does so before its clock starts. The arguments have the types
    :func:`_read_scan` passes (numba compiles once per signature: a read-only buffer here
    would leave the writable one of a real read to compile inside the command's clock)."""
    from ._read_kernels import distinct, gather, grow, keep_bytes, label_order, new_table, scan_lines

    arena = np.empty(256, dtype=np.uint8)
    toks = np.empty(64, dtype=np.int64)
    for text in (b'{"id": "a", "chunks": ["x", "y"], "tokens": [1, 2], "k": null}\n', b'{"chunks": [1], "tokens": [1]}'):
        buf = np.frombuffer(text, dtype=np.uint8).copy()  # writable, as _read_scan's buffer is
        table, lab = new_table(4)
        cols = [np.zeros(8, dtype=np.int64) for _ in range(6)]
        _, _, nl, no, _, kind, nlab, _ = scan_lines(buf, 0, len(buf), 0, 0, table, lab, 0, 0, arena, 2**32, toks, *cols,
                                                    0, 0)
        table, lab = grow(table, lab, nlab)
        keep_bytes(buf, kind, lab, 0, nlab, *cols[3:], 0, nl, arena, 0)
    gather(arena, cols[4][:1], cols[5][:1])
    distinct(arena, cols[4][:2], cols[5][:2])
    label_order(arena, lab[:2, 0], lab[:2, 1])
    _repeats(cols[1][:1], cols[0][:1], 2)


class _Fallback(Exception):
    """Something the fast path does not take: the slow parser decides."""


class FastRead(NamedTuple):
    """What a fast reader read (the arguments of :func:`.sparse._finish`)."""

    #: with ``order`` None, in first-seen order (chunk id x is ``labels[x]``); else in sorted
    #: order, ``order`` holding the chunk ids in that order (chunk id ``order[i]`` is ``labels[i]``)
    labels: list
    codes: np.ndarray  #: chunk ids of the occurrences, line after line
    toks: np.ndarray  #: their token counts
    lens: np.ndarray  #: the lines' lengths
    ids: list  #: the lines' request ids
    linenos: np.ndarray  #: the lines' 1-based line numbers in the file
    order: np.ndarray | None
    tok_of: np.ndarray | None  #: every chunk's token count, if checked against all its occurrences
    ids_unique: bool  #: True if the ids were checked to be distinct (False: not checked)


def read_fast(path: str, max_tokens: int, progress=None) -> FastRead | None:
    """The trace at ``path`` as a :class:`FastRead`, or None to leave it to
    :func:`.sparse.parse_sparse` (also when a token count passes ``max_tokens``,
    :data:`.sparse.MAX_CHUNK_TOKENS`).

    ``progress``, if given, is called with the number of bytes read so far (from 0 again when
    the second reader starts over)."""
    got = _read_scan(path, max_tokens, progress)
    return got if got is not None else _read_orjson(path, max_tokens, progress)


def _read_orjson(path: str, max_tokens: int, progress=None):
    """:func:`read_fast`'s second reader (orjson, see the module docstring)."""
    try:
        import orjson
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    index: dict = defaultdict()
    index.default_factory = index.__len__  # a new label gets the next id, as in parse_sparse
    intern = index.__getitem__
    codes, toks, lens, ids = [], [], [], []
    kind = None
    nlines = 0
    gc_was = gc.isenabled()
    gc.disable()  # a batch is a million fresh containers: the cyclic collector would rescan them all
    done = 0
    try:
        for data in _batches(path):
            if not data or data[:1] == b"\n" or b"\n\n" in data:
                raise _Fallback  # blank lines (or lines of spaces, which orjson refuses below)
            if data.count(b"\r") != data.count(b"\r\n"):
                raise _Fallback  # a lone carriage return ends a line for the text reader
            recs = orjson.loads(b"[" + data.replace(b"\n", b",") + b"]")
            if set(map(type, recs)) != {dict}:
                raise _Fallback
            cs = [r.get("chunks") for r in recs]
            ts = [r.get("tokens") for r in recs]
            if set(map(type, cs)) != {list} or set(map(type, ts)) != {list}:
                raise _Fallback
            ln = list(map(len, cs))
            if ln != list(map(len, ts)) or min(ln) == 0:
                raise _Fallback
            flat = list(chain.from_iterable(cs))
            before = len(index)
            code = np.fromiter(map(intern, flat), dtype=np.int64, count=len(flat))  # TypeError: a list
            # a string equals only strings, so string labels are checked once each; an int label
            # may stand for an equal bool or float occurrence, so those are checked one by one
            kinds = set(map(type, list(index)[before:])) if kind is str else set(map(type, flat))
            if kinds not in ({str}, {int}, set()) or (kind is not None and kinds - {kind}):
                raise _Fallback
            kind = kind or next(iter(kinds))
            flat_t = list(chain.from_iterable(ts))
            if set(map(type, flat_t)) != {int}:
                raise _Fallback
            t = np.array(flat_t, dtype=np.int64)  # OverflowError past int64
            if t.min() <= 0 or t.max() > max_tokens:
                raise _Fallback
            rid = [r.get("id", nlines + i) for i, r in enumerate(recs, start=1)]
            if not set(map(type, rid)) <= {str, int}:
                raise _Fallback  # a float, list or object id: orjson and json may read it differently
            codes.append(code)
            toks.append(t)
            lens.append(np.array(ln, dtype=np.int64))
            ids.extend(rid)
            nlines += len(recs)
            done += len(data) + 1
            if progress is not None:
                progress(done)
    except (_Fallback, orjson.JSONDecodeError, OverflowError, TypeError, OSError, MemoryError):
        return None
    finally:
        if gc_was:
            gc.enable()
    if not nlines:
        return None
    codes_a, lens_a = np.concatenate(codes), np.concatenate(lens)
    if _repeats(lens_a, codes_a, len(index)):
        return None
    return FastRead(list(index), codes_a, np.concatenate(toks), lens_a, ids, np.arange(1, nlines + 1, dtype=np.int64),
                    None, None, False)


def _read_scan(path: str, max_tokens: int, progress=None):
    """:func:`read_fast`'s first reader (the compiled pass, see the module docstring).

    The file is read in batches of whole lines into one buffer of :data:`BATCH_BYTES`, reused
    (doubled for a longer line); after each batch the bytes of its new labels and its string
    ids are copied into an arena (:func:`._read_kernels.keep_bytes`), so memory holds the
    labels and ids, not the file, and no fresh page is touched for the file's bytes."""
    from ._read_kernels import GROW, OK, distinct, gather, grow, keep_bytes, label_order, new_table, scan_lines

    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            buf = np.empty(max(BATCH_BYTES, 64), dtype=np.uint8)
            view = memoryview(buf)
            arena = np.empty(min(size, BATCH_BYTES) + 64, dtype=np.uint8)
            toks = np.empty(0, dtype=np.int64)  # one line's token counts at a time
            table, lab = new_table()
            out = _Columns()
            nlab = na = kind = lineno = longest = nl = no = 0
            keep = done = total = 0  # bytes of a partial line at the buffer's start; of the file handled; read
            while True:
                if keep == len(buf):  # a line longer than the buffer
                    buf = _grown(buf, keep, 2 * len(buf))
                    view = memoryview(buf)
                n = fh.readinto(view[keep:])
                total += n
                if total > size:
                    return None  # the file grew while read: the line parser reads it as it is then
                got = keep + n
                end = _last_newline(view, 0, got) if n else got
                if end > 0:
                    if buf[:end].max() >= 128:
                        codecs.utf_8_decode(view[:end], "strict", True)  # UnicodeDecodeError: not UTF-8
                    out.reserve(nl, no, end, size / max(done, 1))
                    if len(toks) < end // 4 + 2:
                        toks = np.empty(end // 4 + 2, dtype=np.int64)
                    at, nlab0, nl0 = 0, nlab, nl
                    while True:
                        status, at, nl, no, lineno, kind, nlab, big = scan_lines(
                            buf, at, end, lineno, kind, table, lab, nlab, nlab0, arena, max_tokens, toks, *out.arrays,
                            nl, no)
                        longest = max(longest, big)
                        if status != GROW:
                            break
                        table, lab = grow(table, lab, nlab)
                    if status != OK:
                        return None
                    if na + end > len(arena):  # the batch's new labels and ids take at most its bytes
                        arena = _grown(arena, na, max(na + end, 2 * len(arena)))
                    na = keep_bytes(buf, kind, lab, nlab0, nlab, *out.arrays[3:], nl0, nl, arena, na)
                    done += end
                    if progress is not None:
                        progress(done)
                keep = got - end
                buf[:keep] = buf[end:got].copy()
                if not n:
                    break
    except (OSError, UnicodeDecodeError, MemoryError):
        return None
    if not nl:
        return None
    codes, lens, linenos, id_kind, id_a, id_b = (a[:no] if k < 1 else a[:nl] for k, a in enumerate(out.arrays))
    if longest > 32 and _repeats(lens, codes, nlab):  # the scan compared shorter lines' chunks itself
        return None
    # the labels in sorted order, decoded in that order (no list of them in first-seen order)
    if kind == 1:
        order = label_order(arena, lab[:nlab, 0], lab[:nlab, 1])
        labels = _decode_joined(gather(arena, lab[order, 0], lab[order, 1]))
    else:
        order = np.argsort(lab[:nlab, 0], kind="stable")
        labels = lab[order, 0].tolist()
    strs = id_kind == 1
    unique = False
    if strs.all():
        ids = _decode_joined(gather(arena, id_a, id_b))
        unique = distinct(arena, id_a, id_b)  # equal strings without escapes are equal bytes
    else:
        ids = np.where(id_kind == 2, id_a, linenos).tolist()
        if strs.any():
            at = np.flatnonzero(strs)
            for j, rid in zip(at.tolist(), _decode_joined(gather(arena, id_a[at], id_b[at]))):
                ids[j] = rid
    return FastRead(labels, codes, None, lens, ids, linenos, order, lab[:nlab, 2].copy(), unique)


def _grown(a: np.ndarray, used: int, size: int) -> np.ndarray:
    """A new array of ``size`` entries of ``a``'s type holding ``a``'s first ``used``."""
    b = np.empty(size, dtype=a.dtype)
    b[:used] = a[:used]
    return b


class _Columns:
    """The scan's output arrays (occurrences: chunk ids; lines: lengths, line numbers, id
    kinds, id fields), grown ahead of each batch to hold anything it may add."""

    def __init__(self):
        self.arrays = tuple(np.empty(0, dtype=np.int64) for _ in range(6))

    def reserve(self, nl: int, no: int, nbytes: int, scale: float) -> None:
        """Room for ``nbytes`` more bytes after ``nl`` lines and ``no`` occurrences, which
        came from a part of the file ``scale`` times smaller than the whole."""
        need_o, need_l = no + nbytes // 4 + 2, nl + nbytes // 20 + 2
        if need_o <= len(self.arrays[0]) and need_l <= len(self.arrays[1]):
            return
        # the rest of the file as dense as what was read, then half as much again each time
        want_o = max(int(no * scale * 1.1) + need_o - no, len(self.arrays[0]) * 3 // 2)
        want_l = max(int(nl * scale * 1.1) + need_l - nl, len(self.arrays[1]) * 3 // 2)
        grown = []
        for k, a in enumerate(self.arrays):
            used, want = (no, want_o) if k < 1 else (nl, want_l)
            grown.append(_grown(a, used, max(want, len(a))))
        self.arrays = tuple(grown)


def _last_newline(view: memoryview, lo: int, hi: int) -> int:
    """One past the last newline in ``view[lo:hi]`` (``lo`` if none), looking at the end first."""
    start = max(lo, hi - 65536)
    while True:
        k = bytes(view[start:hi]).rfind(b"\n")
        if k >= 0:
            return start + k + 1
        if start == lo:
            return lo
        hi, start = start, max(lo, start - 65536)


def _decode_joined(blob: np.ndarray) -> list[str]:
    """The strings of :func:`._read_kernels.gather`'s newline-joined UTF-8 bytes."""
    return codecs.utf_8_decode(blob, "strict", True)[0].split("\n")

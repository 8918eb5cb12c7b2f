"""The fast path of :func:`.sparse.read_sparse`: a JSONL trace read with orjson, in batches.

Each batch of whole lines (about 8 MiB) is parsed by one ``orjson.loads`` call (the lines
joined into a JSON array) and checked with whole-batch operations instead of per-line
Python. The reader accepts a strict subset of what :func:`.sparse.parse_sparse` accepts and
returns None on anything else (a blank line, malformed JSON, a JSON value orjson and the
``json`` module read differently such as NaN or a float id, a missing or ill-typed field, a
repeated chunk, a token count that is not a positive integer up to the limit, an unreadable file): the caller
then reads the file with :func:`.sparse.parse_sparse`, which names the line. The checks
across lines (unique ids, one token count per chunk) are the caller's, for both paths.

O(file size) time and O(batch + sum of request sizes) memory: labels are interned per batch,
so only one string per distinct chunk is kept.
"""

from __future__ import annotations

import gc
from collections import defaultdict
from itertools import chain

import numpy as np
from .._jit import njit

__all__ = ["read_fast", "BATCH_BYTES"]

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


class _Fallback(Exception):
    """Something the fast path does not take: the slow parser decides."""


def read_fast(path: str, max_tokens: int):
    """(labels in first-seen order, chunk ids, token counts, line lengths, ids, line numbers)
    of the trace at ``path``, or None to leave it to :func:`.sparse.parse_sparse` (also when a
    token count passes ``max_tokens``, :data:`.sparse.MAX_CHUNK_TOKENS`)."""
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
    return list(index), codes_a, np.concatenate(toks), lens_a, ids, np.arange(1, nlines + 1, dtype=np.int64)

"""Compiled byte-level reading of a JSONL trace (the common case of :mod:`.fastread`).

:func:`scan_lines` parses whole lines of the file's bytes, a batch at a time, for the plain
form every writer of the project produces (``{"id": ..., "chunks": [...], "tokens": [...]}``)
and interns chunk labels in an open-addressing hash table as it goes. It accepts a strict subset
of JSON and returns :data:`FALLBACK` on anything else, so that what it does accept it reads
exactly as ``json.loads`` does:

- one object per line, keys and values separated by spaces or tabs only; a line of spaces and
  tabs is blank; one carriage return may end a line (CRLF), any other is refused;
- keys without backslashes; ``"id"``, ``"chunks"``, ``"tokens"`` at most once each; any other
  key's value is a string (escapes checked as JSON has them), a number, ``true``, ``false`` or
  ``null``, and is skipped (an array or object there is refused);
- ``"id"``: a string without backslashes or an integer of at most 18 digits;
- ``"chunks"``: a nonempty array of strings without backslashes, or of integers of at most 18
  digits, the same kind on every line (a string without escapes equals another exactly when
  their bytes are equal; integers are compared by value, so ``-0`` is ``0``);
- ``"tokens"``: as many integers, each from 1 to ``max_tokens``, and every occurrence of a
  chunk with the token count its first occurrence had.

Control characters inside strings, leading zeros, fractions and exponents where an integer is
wanted, ``NaN``, duplicate key names and everything else are refused. Bytes of 128 and above
are taken inside strings as they are: the caller checks that the batch is UTF-8 first.

Labels get ids in first-seen order, as :func:`.sparse.parse_sparse` numbers them. Per label
the row ``lab[x]`` holds (the offset of its bytes in the arena, or its integer value; its byte
length; its token count). Expected O(bytes) time; the table keeps fewer than three quarters
of its slots in use (:data:`_LOAD`), so 1.1 million labels fit in 2^21 slots of 32 bytes.
"""

from __future__ import annotations

import numpy as np
from .._bits import prefetch
from .._jit import njit
from .._kernels.arrays import copy_into, copy_rows
from ._sparse_kernels import empty_slots, put

__all__ = ["scan_lines", "keep_bytes", "gather", "distinct", "label_order", "label_keys", "settle_runs", "new_table",
           "grow", "OK", "FALLBACK", "GROW"]

OK = 0
FALLBACK = 1
GROW = 2

_KEY_OTHER, _KEY_ID, _KEY_CHUNKS, _KEY_TOKENS = 0, 1, 2, 3
_KIND_NONE, _KIND_STR, _KIND_INT = 0, 1, 2
_GROUP = 16  # string labels interned together
_LOAD = 3  # quarters of the table's slots in use before it doubles
_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)


def new_table(cap: int = 1 << 16) -> tuple[np.ndarray, np.ndarray]:
    """An empty label table: (slots, each (id or -1, hash, 16 bytes); label rows)."""
    return np.full((cap, 4), -1, dtype=np.int64), np.zeros((_LOAD * cap // 4 + 1, 3), dtype=np.int64)


@njit(cache=True)
def _full(nlab, cap):
    """Whether a table of ``cap`` slots holding ``nlab`` labels should grow: :data:`_LOAD`
    quarters in use (it has that many label rows, plus one)."""
    return 4 * nlab >= _LOAD * cap


@njit(cache=True)
def _skip_ws(buf, p, e):
    while p < e and (buf[p] == 32 or buf[p] == 9):
        p += 1
    return p


@njit(cache=True)
def _next_item(buf, p, e, close):
    """After an item of a list or object: (1, position after the comma and spaces) if another
    item follows, (0, position after ``close``) if the list ends there, (-1, p) otherwise."""
    p = _skip_ws(buf, p, e)
    if p < e and buf[p] == 44:
        return 1, _skip_ws(buf, p + 1, e)
    if p < e and buf[p] == close:
        return 0, p + 1
    return -1, p


@njit(cache=True)
def _is_digit(c):
    return 48 <= c <= 57


@njit(cache=True)
def _int(buf, p, e):
    """(ok, value, end) of a JSON integer at p: ``-?(0|[1-9][0-9]*)`` of at most 18 digits,
    not followed by a fraction or exponent (then ok is False)."""
    neg = False
    if p < e and buf[p] == 45:
        neg = True
        p += 1
    if p >= e or not _is_digit(buf[p]):
        return False, 0, p
    v = 0
    if buf[p] == 48:
        p += 1
        if p < e and _is_digit(buf[p]):
            return False, 0, p
    else:
        d = 0
        while p < e and _is_digit(buf[p]):
            v = v * 10 + (buf[p] - 48)
            p += 1
            d += 1
            if d > 18:
                return False, 0, p
    if p < e and (buf[p] == 46 or buf[p] == 101 or buf[p] == 69):
        return False, 0, p
    return True, -v if neg else v, p


@njit(cache=True)
def _plain_string(buf, p, e):
    """End (the closing quote) of a string opened at p - 1 with no backslash and no control
    character, or -1."""
    while p < e:
        c = buf[p]
        if c == 34:
            return p
        if c == 92 or c < 32:
            return -1
        p += 1
    return -1


@njit(cache=True)
def _skip_string(buf, p, e):
    """Position after a JSON string opened at p - 1 (escapes checked), or -1."""
    while p < e:
        c = buf[p]
        if c == 34:
            return p + 1
        if c < 32:
            return -1
        if c == 92:
            p += 1
            if p >= e:
                return -1
            c = buf[p]
            if c == 117:
                if p + 4 >= e:
                    return -1
                for q in range(p + 1, p + 5):
                    h = buf[q]
                    if not (_is_digit(h) or 97 <= h <= 102 or 65 <= h <= 70):
                        return -1
                p += 4
            elif not (c == 34 or c == 92 or c == 47 or c == 98 or c == 102 or c == 110 or c == 114 or c == 116):
                return -1
        p += 1
    return -1


@njit(cache=True)
def _skip_number(buf, p, e):
    """Position after a JSON number at p (``-?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?``, at most 100
    characters), or -1."""
    s = p
    if p < e and buf[p] == 45:
        p += 1
    if p >= e or not _is_digit(buf[p]):
        return -1
    if buf[p] == 48:
        p += 1
    else:
        while p < e and _is_digit(buf[p]):
            p += 1
    if p < e and buf[p] == 46:
        p += 1
        if p >= e or not _is_digit(buf[p]):
            return -1
        while p < e and _is_digit(buf[p]):
            p += 1
    if p < e and (buf[p] == 101 or buf[p] == 69):
        p += 1
        if p < e and (buf[p] == 43 or buf[p] == 45):
            p += 1
        if p >= e or not _is_digit(buf[p]):
            return -1
        while p < e and _is_digit(buf[p]):
            p += 1
    if p - s > 100 or (p < e and _is_digit(buf[p])):
        return -1
    return p


@njit(cache=True)
def _word(buf, p, e, w0, w1, w2, w3, w4, n):
    """Whether the n <= 5 bytes at p are w0..w(n-1)."""
    if p + n > e:
        return False
    ws = (w0, w1, w2, w3, w4)
    for i in range(n):
        if buf[p + i] != ws[i]:
            return False
    return True


@njit(cache=True)
def _skip_scalar(buf, p, e):
    """Position after a string, number, true, false or null at p, or -1."""
    c = buf[p]
    if c == 34:
        return _skip_string(buf, p + 1, e)
    if c == 45 or _is_digit(c):
        return _skip_number(buf, p, e)
    if _word(buf, p, e, 116, 114, 117, 101, 0, 4):  # true
        return p + 4
    if _word(buf, p, e, 102, 97, 108, 115, 101, 5):  # false
        return p + 5
    if _word(buf, p, e, 110, 117, 108, 108, 0, 4):  # null
        return p + 4
    return -1


@njit(cache=True)
def _key(buf, s, t):
    """Which key the bytes buf[s:t] name."""
    n = t - s
    if n == 2 and buf[s] == 105 and buf[s + 1] == 100:
        return _KEY_ID
    if n == 6:
        if buf[s] == 99 and buf[s + 1] == 104 and buf[s + 2] == 117 and buf[s + 3] == 110 \
                and buf[s + 4] == 107 and buf[s + 5] == 115:
            return _KEY_CHUNKS
        if buf[s] == 116 and buf[s + 1] == 111 and buf[s + 2] == 107 and buf[s + 3] == 101 \
                and buf[s + 4] == 110 and buf[s + 5] == 115:
            return _KEY_TOKENS
    return _KEY_OTHER


@njit(cache=True)
def _hash_bytes(buf, s, t):
    h = _FNV_OFFSET
    for q in range(s, t):
        h = (h ^ np.uint64(buf[q])) * _FNV_PRIME
    return np.int64(h >> np.uint64(1))


@njit(cache=True)
def _hash_int(v):
    return np.int64(_fmix(v) >> np.uint64(1))


@njit(cache=True)
def grow(table, lab, nlab):
    """Double the table (moving every slot) and the label rows."""
    cap = 2 * len(table)
    mask = cap - 1
    out = np.full((cap, 4), -1, dtype=np.int64)
    for k in range(len(table)):
        if table[k, 0] >= 0:
            i = table[k, 1] & mask
            while out[i, 0] >= 0:
                i = (i + 1) & mask
            copy_rows(out, i, table, k, 1)
    rows = np.zeros((_LOAD * cap // 4 + 1, 3), dtype=np.int64)
    copy_rows(rows, 0, lab, 0, nlab)
    return out, rows


@njit(cache=True)
def _pack8(buf, s):
    """The 8 bytes at s as one little-endian integer."""
    return np.int64(np.uint64(buf[s]) | (np.uint64(buf[s + 1]) << np.uint64(8))
                    | (np.uint64(buf[s + 2]) << np.uint64(16)) | (np.uint64(buf[s + 3]) << np.uint64(24))
                    | (np.uint64(buf[s + 4]) << np.uint64(32)) | (np.uint64(buf[s + 5]) << np.uint64(40))
                    | (np.uint64(buf[s + 6]) << np.uint64(48)) | (np.uint64(buf[s + 7]) << np.uint64(56)))


@njit(cache=True)
def _pack(buf, s, t):
    """The t - s <= 8 bytes at s as one little-endian integer, zero padded."""
    if t - s == 8:
        return _pack8(buf, s)
    v = np.uint64(0)
    for q in range(t - 1, s - 1, -1):
        v = (v << np.uint64(8)) | np.uint64(buf[q])
    return np.int64(v)


@njit(cache=True)
def _fmix(v):
    """MurmurHash3's 64-bit finaliser (every input bit moves every output bit)."""
    h = np.uint64(v)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xC4CEB9FE1A85EC53)
    h ^= h >> np.uint64(33)
    return h


@njit(cache=True)
def _string_key(buf, s, t):
    """(hash, first 8 bytes, next 8 bytes) of the label ``buf[s:t]`` (words zero padded)."""
    n = t - s
    if n <= 8:
        w0 = _pack(buf, s, t)
        w1 = 0
        rest = np.uint64(0)
    else:
        w0 = _pack8(buf, s)
        w1 = _pack(buf, s + 8, min(t, s + 16))
        rest = np.uint64(0) if n <= 16 else np.uint64(_hash_bytes(buf, s + 16, t))
    h = np.int64(_fmix(np.uint64(w0) ^ _fmix(np.uint64(w1) ^ rest ^ np.uint64(n))) >> np.uint64(1))
    return h, w0, w1


@njit(cache=True)
def _intern_string(buf, s, t, h, w0, w1, table, lab, nlab, nlab0, arena):
    """(id, labels) of the string label ``buf[s:t]`` of key (h, w0, w1), added with the next
    id if new (its row holding its offset in ``buf`` until :func:`keep_bytes` copies it to
    the arena). A slot holds (id, hash, first 8 bytes, next 8 bytes), so a label of at most
    16 bytes is found without reading its bytes again."""
    mask = len(table) - 1
    n = t - s
    i = h & mask
    while True:
        x = table[i, 0]
        if x < 0:
            break
        if table[i, 1] == h and table[i, 2] == w0 and table[i, 3] == w1:
            # no label holds a NUL byte, so the zero-padded words settle a label of <= 16 bytes;
            # a longer one is compared with its bytes: in this batch (ids from nlab0) or the arena
            if n <= 16:
                return x, nlab
            src = buf if x >= nlab0 else arena
            o = lab[x, 0]
            same = lab[x, 1] == n
            for u in range(16, n if same else 16):
                if src[o + u] != buf[s + u]:
                    same = False
                    break
            if same:
                return x, nlab
        i = (i + 1) & mask
    table[i, 0] = nlab
    table[i, 1] = h
    table[i, 2] = w0
    table[i, 3] = w1
    lab[nlab, 0] = s
    lab[nlab, 1] = n
    lab[nlab, 2] = 0
    return nlab, nlab + 1


@njit(cache=True)
def _intern_pending(buf, pend, npend, codes, end, table, lab, nlab, nlab0, arena):
    """Intern the ``npend`` string labels waiting in ``pend`` (their slots prefetched when
    they were read), in order, into ``codes[end - npend:end]``; the new label count. Stops
    early when the label rows are full (``nlab == len(lab)``: the caller grows the table
    and reads the line again)."""
    for k in range(npend):
        x, nlab = _intern_string(buf, pend[k, 0], pend[k, 1], pend[k, 2], pend[k, 3], pend[k, 4], table, lab, nlab,
                                 nlab0, arena)
        codes[end - npend + k] = x
        prefetch(lab, x)  # its token count is checked at the end of the line, after the tokens are read
        if nlab >= len(lab):
            break
    return nlab


@njit(cache=True)
def keep_bytes(buf, kind, lab, nlab0, nlab, id_kind, id_a, id_b, nl0, nl, arena, na):
    """After a batch: copy the bytes of its new string labels (ids nlab0..nlab-1) and of its
    lines' string ids (lines nl0..nl-1) from ``buf``, which the next batch reuses, to
    ``arena[na:]`` (the caller made room: at most the batch's bytes), and point their rows
    there. The arena bytes used after."""
    if kind == _KIND_STR:
        for x in range(nlab0, nlab):
            s = lab[x, 0]
            lab[x, 0] = na
            na = put(arena, na, buf, s, s + lab[x, 1])
    for j in range(nl0, nl):
        if id_kind[j] == 1:
            s = id_a[j]
            id_a[j] = na
            na = put(arena, na, buf, s, s + id_b[j])
    return na


@njit(cache=True)
def _intern_int(v, table, lab, nlab):
    """(id, labels) of the integer label ``v``, added with the next id if new."""
    mask = len(table) - 1
    h = _hash_int(v)
    i = h & mask
    while True:
        x = table[i, 0]
        if x < 0:
            break
        if table[i, 2] == v:
            return x, nlab
        i = (i + 1) & mask
    table[i, 0] = nlab
    table[i, 1] = h
    table[i, 2] = v
    table[i, 3] = 0
    lab[nlab, 0] = v
    lab[nlab, 1] = 0
    lab[nlab, 2] = 0
    return nlab, nlab + 1


@njit(cache=True)
def scan_lines(buf, a, b, lineno, kind, table, lab, nlab, nlab0, arena, max_tokens, toks, codes, lens, linenos,
               id_kind, id_a, id_b, nl, no):
    """Parse the lines of ``buf[a:b]`` (whole lines; the last may lack its newline).

    ``lineno`` is the number of lines before ``a``; ``kind`` the label kind so far (0 none yet,
    1 strings, 2 integers); ``table``/``lab``/``nlab`` the label table (:func:`new_table`),
    labels from ``nlab0`` on first seen in this batch (their rows hold offsets in ``buf``;
    the earlier ones' offsets in ``arena``, see :func:`keep_bytes`). Occurrences go to
    ``codes`` (label ids); each nonblank line to ``lens``, ``linenos`` (1-based), ``id_kind``
    (0 none, 1 string, 2 integer) and ``id_a``/``id_b`` (the string's offset in ``buf`` and
    length, or the integer in ``id_a``), from line ``nl`` and occurrence ``no`` on; ``toks``
    holds one line's token counts at a time. The output arrays must hold every line and
    occurrence of the batch (a line takes at least 20 bytes, an occurrence 4) and ``toks`` a
    quarter of its bytes.

    Returns (status, position, lines, occurrences, lineno, kind, nlab, longest line). With
    status :data:`GROW` the table is full (:func:`_full`) or its label rows are: the caller
    grows it (:func:`grow`) and calls again from the position returned (the start of a line;
    the counts are those before it).
    """
    longest = 0
    pend = np.empty((_GROUP, 5), dtype=np.int64)  # string labels waiting: start, end, hash, 2 words
    p = a
    while p < b:
        if _full(nlab, len(table)):
            return GROW, p, nl, no, lineno, kind, nlab, longest
        start = p
        lineno += 1
        p = _skip_ws(buf, p, b)
        if p >= b or buf[p] == 10 or (buf[p] == 13 and (p + 1 == b or buf[p + 1] == 10)):
            if p < b and buf[p] == 13:
                p += 1
            p += 1
            continue  # a blank line
        if buf[p] != 123:
            return FALLBACK, p, nl, no, lineno, kind, nlab, longest
        p = _skip_ws(buf, p + 1, b)
        seen_id = False
        nc = -1
        nt = -1
        q0 = no
        idk = 0
        ida = 0
        idb = 0
        line_kind = _KIND_NONE
        if p < b and buf[p] == 125:
            return FALLBACK, p, nl, no, lineno, kind, nlab, longest  # {}: no chunks
        while True:
            if p >= b or buf[p] != 34:
                return FALLBACK, p, nl, no, lineno, kind, nlab, longest
            t = _plain_string(buf, p + 1, b)
            if t < 0:
                return FALLBACK, p, nl, no, lineno, kind, nlab, longest
            key = _key(buf, p + 1, t)
            p = _skip_ws(buf, t + 1, b)
            if p >= b or buf[p] != 58:
                return FALLBACK, p, nl, no, lineno, kind, nlab, longest
            p = _skip_ws(buf, p + 1, b)
            if p >= b:
                return FALLBACK, p, nl, no, lineno, kind, nlab, longest
            if key == _KEY_ID:
                if seen_id:
                    return FALLBACK, p, nl, no, lineno, kind, nlab, longest
                seen_id = True
                if buf[p] == 34:
                    t = _plain_string(buf, p + 1, b)
                    if t < 0:
                        return FALLBACK, p, nl, no, lineno, kind, nlab, longest
                    idk, ida, idb = 1, p + 1, t - p - 1
                    p = t + 1
                else:
                    ok, v, p = _int(buf, p, b)
                    if not ok:
                        return FALLBACK, p, nl, no, lineno, kind, nlab, longest
                    idk, ida, idb = 2, v, 0
            elif key == _KEY_CHUNKS:
                if nc >= 0 or buf[p] != 91:
                    return FALLBACK, p, nl, no, lineno, kind, nlab, longest
                p = _skip_ws(buf, p + 1, b)
                nc = 0
                npend = 0
                while True:
                    if p >= b or no + nc >= len(codes):
                        return FALLBACK, p, nl, no, lineno, kind, nlab, longest
                    if buf[p] == 34:
                        if line_kind == _KIND_INT:
                            return FALLBACK, p, nl, no, lineno, kind, nlab, longest
                        line_kind = _KIND_STR
                        t = _plain_string(buf, p + 1, b)
                        if t < 0:
                            return FALLBACK, p, nl, no, lineno, kind, nlab, longest
                        # interned in groups (_intern_pending), at the latest where the list ends: the slot is
                        # loaded meanwhile
                        h, w0, w1 = _string_key(buf, p + 1, t)
                        prefetch(table, h & (len(table) - 1))
                        pend[npend, 0] = p + 1
                        pend[npend, 1] = t
                        pend[npend, 2] = h
                        pend[npend, 3] = w0
                        pend[npend, 4] = w1
                        npend += 1
                        p = t + 1
                        x = -1
                    else:
                        if line_kind == _KIND_STR:
                            return FALLBACK, p, nl, no, lineno, kind, nlab, longest
                        line_kind = _KIND_INT
                        ok, v, p = _int(buf, p, b)
                        if not ok:
                            return FALLBACK, p, nl, no, lineno, kind, nlab, longest
                        x, nlab = _intern_int(v, table, lab, nlab)
                    codes[no + nc] = x
                    nc += 1
                    p = _skip_ws(buf, p, b)
                    closing = p < b and buf[p] == 93
                    if npend == _GROUP or (closing and npend):
                        nlab = _intern_pending(buf, pend, npend, codes, no + nc, table, lab, nlab, nlab0, arena)
                        npend = 0
                    if nlab >= len(lab):  # the label rows are full: grow them and read this line again
                        return GROW, start, nl, no, lineno - 1, kind, nlab, longest
                    if p < b and buf[p] == 44:
                        p = _skip_ws(buf, p + 1, b)
                    elif closing:
                        p += 1
                        break
                    else:
                        return FALLBACK, p, nl, no, lineno, kind, nlab, longest
            elif key == _KEY_TOKENS:
                if nt >= 0 or buf[p] != 91:
                    return FALLBACK, p, nl, no, lineno, kind, nlab, longest
                p = _skip_ws(buf, p + 1, b)
                nt = 0
                while True:
                    if nt >= len(toks):
                        return FALLBACK, p, nl, no, lineno, kind, nlab, longest
                    ok, v, p = _int(buf, p, b)
                    if not ok or v <= 0 or v > max_tokens:
                        return FALLBACK, p, nl, no, lineno, kind, nlab, longest
                    toks[nt] = v
                    nt += 1
                    more, p = _next_item(buf, p, b, 93)
                    if more < 0:
                        return FALLBACK, p, nl, no, lineno, kind, nlab, longest
                    if more == 0:
                        break
            else:
                p = _skip_scalar(buf, p, b)
                if p < 0:
                    return FALLBACK, p, nl, no, lineno, kind, nlab, longest
            more, p = _next_item(buf, p, b, 125)
            if more < 0:
                return FALLBACK, p, nl, no, lineno, kind, nlab, longest
            if more == 0:
                break
        # the end of the line: spaces, then a newline, CRLF or the end of the batch
        p = _skip_ws(buf, p, b)
        if p < b and buf[p] == 13:
            p += 1
            if p < b and buf[p] != 10:
                return FALLBACK, p, nl, no, lineno, kind, nlab, longest
        if p < b:
            if buf[p] != 10:
                return FALLBACK, p, nl, no, lineno, kind, nlab, longest
            p += 1
        if nc <= 0 or nt != nc or nl >= len(lens):
            return FALLBACK, p, nl, no, lineno, kind, nlab, longest
        if kind == _KIND_NONE:
            kind = line_kind
        elif kind != line_kind:
            return FALLBACK, p, nl, no, lineno, kind, nlab, longest
        # a chunk's token count is the one its first occurrence gave; no chunk twice in a line
        for u in range(nc):
            x = codes[q0 + u]
            if lab[x, 2] == 0:
                lab[x, 2] = toks[u]
            elif lab[x, 2] != toks[u]:
                return FALLBACK, p, nl, no, lineno, kind, nlab, longest
        if nc <= 32:
            for u in range(q0 + 1, q0 + nc):
                for w in range(q0, u):
                    if codes[w] == codes[u]:
                        return FALLBACK, p, nl, no, lineno, kind, nlab, longest
        if nc > longest:
            longest = nc
        lens[nl] = nc
        linenos[nl] = lineno
        id_kind[nl] = idk
        id_a[nl] = ida
        id_b[nl] = idb
        nl += 1
        no += nc
    return OK, p, nl, no, lineno, kind, nlab, longest


@njit(cache=True)
def gather(buf, starts, lengths):
    """The byte strings ``buf[s:s+l]`` joined by newlines (none of them holds one)."""
    n = len(starts)
    total = n - 1 if n else 0
    for i in range(n):
        total += lengths[i]
    out = np.empty(total, dtype=np.uint8)
    p = 0
    for i in range(n):
        if i:
            out[p] = 10
            p += 1
        p = put(out, p, buf, starts[i], starts[i] + lengths[i])
    return out


@njit(cache=True)
def distinct(buf, starts, lengths):
    """Whether the byte strings ``buf[s:s+l]`` are pairwise distinct (an open-addressing table
    of their keys, :func:`_string_key`; equal keys compared byte by byte). Expected O(total
    length)."""
    n = len(starts)
    slot = empty_slots(n)
    mask = len(slot) - 1
    keys = np.empty(n, dtype=np.int64)
    for x in range(n):
        h, w0, w1 = _string_key(buf, starts[x], starts[x] + lengths[x])
        keys[x] = h
    for x in range(n):
        if x + 8 < n:
            prefetch(slot, keys[x + 8] & mask)
        i = keys[x] & mask
        while slot[i] >= 0:
            y = slot[i]
            if keys[y] == keys[x] and lengths[y] == lengths[x]:
                same = True
                for u in range(lengths[x]):
                    if buf[starts[x] + u] != buf[starts[y] + u]:
                        same = False
                        break
                if same:
                    return False
            i = (i + 1) & mask
        slot[i] = x
    return True


@njit(cache=True)
def _bytes_less(buf, sa, la, sb, lb, start):
    """Whether ``buf[sa:sa+la]`` sorts before ``buf[sb:sb+lb]``, their first ``start`` bytes
    being equal (a prefix first)."""
    k = la if la < lb else lb
    for t in range(start, k):
        x = buf[sa + t]
        y = buf[sb + t]
        if x != y:
            return x < y
    return la < lb


@njit(cache=True)
def _key8(buf, s, n, off):
    """Bytes off..off+7 of the label ``buf[s:s+n]`` as a big-endian key, zero padded."""
    k = np.uint64(0)
    for q in range(off, off + 8):
        k = k << np.uint64(8)
        if q < n:
            k |= np.uint64(buf[s + q])
    return k


@njit(cache=True)
def label_keys(buf, starts, lengths):
    """The first 8 bytes of every label ``buf[s:s+l]`` as a big-endian key (:func:`label_order`)."""
    n = len(starts)
    key = np.empty(n, dtype=np.uint64)
    for x in range(n):
        key[x] = _key8(buf, starts[x], lengths[x], 0)
    return key


@njit(cache=True)
def settle_runs(buf, starts, lengths, key, a):
    """Finish :func:`label_order` in place: ``a`` holds the labels sorted by ``key`` (their
    first 8 bytes); each run of equal keys is sorted by the next 8 bytes, and so on (a run of
    at most 16 by insertion sort). Labels are distinct, so every run is settled in full and the
    order ``a`` came in within a run does not matter."""
    n = len(a)
    stack = [(0, n, 0)]
    while stack:
        lo, hi, off = stack.pop()
        if off:  # a run equal in its first off bytes: sort it by the next 8
            sub = np.empty(hi - lo, dtype=np.uint64)
            for u in range(lo, hi):
                sub[u - lo] = _key8(buf, starts[a[u]], lengths[a[u]], off)
            srt = np.argsort(sub)
            copy_into(a, lo, a[lo:hi][srt], 0, hi - lo)
            for u in range(lo, hi):
                key[a[u]] = sub[srt[u - lo]]
        i = lo
        while i < hi:
            j = i + 1
            while j < hi and key[a[j]] == key[a[i]]:
                j += 1
            if j - i > 16:
                stack.append((i, j, off + 8))
            else:
                for u in range(i + 1, j):  # insertion sort of a short run
                    x = a[u]
                    v = u
                    while v > i and _bytes_less(buf, starts[x], lengths[x], starts[a[v - 1]], lengths[a[v - 1]],
                                                off + 8):
                        a[v] = a[v - 1]
                        v -= 1
                    a[v] = x
            i = j


def label_order(buf, starts, lengths) -> np.ndarray:
    """The distinct labels ``buf[s:s+l]`` (no NUL byte in any) in sorted order: byte order is
    code point order for UTF-8, so this is the order ``sorted`` gives their strings.

    Most significant bytes first: sorted by 8 bytes packed into one key (numpy's sort, several
    times faster than a compiled loop's), then each run of equal keys by the next 8
    (:func:`settle_runs`). O(total length + n log n) for labels that differ early,
    O(n * longest / 8 * log n) at worst."""
    # contiguous, writable copies: one compiled signature whatever slices the caller passes (numba
    # types a read-only array apart, and compiles everything again for it)
    starts, lengths = np.ascontiguousarray(starts, dtype=np.int64), np.ascontiguousarray(lengths, dtype=np.int64)
    if not buf.flags.writeable:
        buf = buf.copy()
    key = label_keys(buf, starts, lengths)
    a = np.argsort(key)  # not stable, and need not be: the labels are distinct and every run is settled
    settle_runs(buf, starts, lengths, key, a)
    return a

"""Compiled CSV helpers for the table readers and writer (private; arrays and scalars only).

:func:`csv_shape` runs the state machine of Python's ``csv`` reader (default dialect: comma,
double quote, doubled quotes inside a quoted field, non-strict, a record ending at ``\\n``,
``\\r`` or ``\\r\\n`` outside quotes) over a file's bytes and counts the fields of every record,
so that a fast parser's result is kept only when the ``csv`` module would read the same shape.
:func:`csv_lines` copies pre-encoded cells into output lines.
"""

from __future__ import annotations

import numpy as np

from .._jit import njit
from ..serving.fastwrite import _ndigits

START_RECORD, START_FIELD, IN_FIELD, IN_QUOTED, QUOTE_IN_QUOTED = 0, 1, 2, 3, 4


@njit(cache=True)
def csv_shape(buf, k):
    """(nonempty records after the first, whether every record, the first included, has ``k``
    fields) of the UTF-8 bytes ``buf`` (no byte of a multi-byte character is a comma, a quote or
    a line end, so bytes suffice). An empty line is no record, as the ``csv`` module's empty
    list that the reader skips. O(len(buf))."""
    state = START_RECORD
    fields = 0
    records = 0
    ok = True
    for p in range(len(buf)):
        c = buf[p]
        if state == IN_QUOTED:
            if c == 34:
                state = QUOTE_IN_QUOTED
            continue
        nl = c == 10 or c == 13
        if state == START_RECORD:
            if nl:
                continue
            state = START_FIELD
            fields = 0
        end = False
        if state == START_FIELD:
            if nl:
                end = True
            elif c == 34:
                state = IN_QUOTED
            elif c == 44:
                fields += 1
            else:
                state = IN_FIELD
        elif state == IN_FIELD:
            if nl:
                end = True
            elif c == 44:
                fields += 1
                state = START_FIELD
        else:  # QUOTE_IN_QUOTED: a doubled quote, the field's end, or (non-strict) more text
            if c == 34:
                state = IN_QUOTED
            elif c == 44:
                fields += 1
                state = START_FIELD
            elif nl:
                end = True
            else:
                state = IN_FIELD
        if end:
            records += 1
            if fields + 1 != k:
                ok = False
            state = START_RECORD
    if state != START_RECORD:  # the last record, without a line end (or inside quotes: non-strict)
        records += 1
        if fields + 1 != k:
            ok = False
    return max(0, records - 1), ok


@njit(cache=True)
def csv_lines_bytes(codes, base, boff, serve, a, b, extra):
    """Bytes of the lines of ranks ``a..b-1`` that :func:`csv_lines` writes."""
    k = codes.shape[0]
    total = 0
    for r in range(a, b):
        i = serve[r]
        for j in range(k):
            g = base[j] + codes[j, i]
            total += boff[g + 1] - boff[g]
        g = extra[i]
        total += k + 1 + _ndigits(r) + boff[g + 1] - boff[g] + 1
    return total


@njit(cache=True)
def csv_lines(out, codes, base, boff, blob, serve, a, b, extra):
    """Write into ``out`` the lines of ranks ``a..b-1``: row ``i = serve[r]``'s cells (column j's
    encoded cell number ``codes[j, i]``, at ``blob[boff[g]:boff[g + 1]]`` with ``g = base[j] +
    codes[j, i]``), then the rank r, then the encoded cell ``extra[i]``, comma-separated, a
    ``\\n`` at the end; returns the bytes written."""
    k = codes.shape[0]
    p = 0
    for r in range(a, b):
        i = serve[r]
        for j in range(k):
            g = base[j] + codes[j, i]
            for q in range(boff[g], boff[g + 1]):
                out[p] = blob[q]
                p += 1
            out[p] = 44
            p += 1
        d = _ndigits(r)
        v = r
        for t in range(d - 1, -1, -1):
            out[p + t] = 48 + v % 10
            v //= 10
        p += d
        out[p] = 44
        p += 1
        g = extra[i]
        for q in range(boff[g], boff[g + 1]):
            out[p] = blob[q]
            p += 1
        out[p] = 10
        p += 1
    return p

"""A table as a retrieval trace: row = request, field = chunk labelled (column, value).

A field's weight is the token count of its rendered text (``template``, by default
``"{column}: {value}\\n"``): the prompt of a row is the concatenation of its rendered fields, so
two rows share a prefix exactly as far as their leading fields are equal.

Columns are of four kinds:

- *first* and *last* columns keep their place (the instruction first, the question last), in the
  order given;
- *excluded* columns are not in the prompt (an id column, a label);
- the other columns are *free*: each row's free fields are ordered by the layout.

*Functional dependencies.* Free columns in one-to-one correspondence (value a of column A occurs
in exactly the rows holding value b of column B, for every value: an FD both ways) are merged
into one chunk whose weight is the sum of theirs. This is exact: the two chunks are held by the
same requests, so in every closure set of Theorem 1 both are or neither is, and every layout's
cost depends only on their summed weight (the "identical chunk columns" lemma of
:mod:`mptsearch.exact.closure`); the merged chunk is written as the group's columns side by
side, in table order.

*Fixed columns and the free trace.* The first columns form a trie of their own; rows with
different first-column values share nothing after it, so the free chunks are labelled
(first-column group, column, value) and the free trace's components never cross groups. Rows
with equal first values and equal free fields get the same free order (identical requests get one
order), so their last fields share exactly as far as they are equal whatever the layout: the
layout's cost is ``first + free + last`` with ``first`` and ``last`` fixed numbers, and any lower
bound on the free trace's cost is one on the table's after adding them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..instance import InstanceError
from ..serving.sparse import SparseTrace, _assemble, lex_rank, orders_cost
from .io import Table, factorize
from .tokenize import count_fields

__all__ = ["TableModel", "table_model", "DEFAULT_TEMPLATE", "detect_fd_groups", "factorize"]

DEFAULT_TEMPLATE = "{column}: {value}\n"


def _bijective(a: np.ndarray, na: int, b: np.ndarray, nb: int) -> bool:
    if na != nb:
        return False
    f = np.full(na, -1, dtype=np.int64)
    f[a] = b
    return bool(np.array_equal(f[a], b))  # a function onto nb = na values: a bijection


def detect_fd_groups(codes: list, ndistinct: list, cols: list) -> list[list[int]]:
    """Partition ``cols`` into groups of columns in one-to-one correspondence (each group in
    ``cols`` order). O(rows) per pair of columns with equal distinct counts."""
    parent = {c: c for c in cols}

    def find(c):
        while parent[c] != c:
            c = parent[c]
        return c

    for i, a in enumerate(cols):
        for b in cols[i + 1:]:
            if find(b) != b or find(a) == find(b):
                continue
            if _bijective(codes[a], ndistinct[a], codes[b], ndistinct[b]):
                parent[b] = find(a)
    groups: dict = {}
    for c in cols:
        groups.setdefault(find(c), []).append(c)
    return list(groups.values())


@dataclass
class TableModel:
    """The table's prompt model (module docstring).

    Attributes
    ----------
    columns : list of str
        All column names of the table.
    first, last, free : list of int
        Column indices; ``groups`` partitions ``free`` (functional-dependency groups).
    fid : numpy.ndarray
        (rows, len(first) + len(free) + len(last)) int32: the field id of every prompt cell, the
        columns in the order ``first + free + last``; ``fweights`` the tokens of each field id,
        ``fchars`` the characters of its value (GGR's length), ``fcol`` its column.
    trace : SparseTrace
        The free trace: one line per row, one chunk per group; ``chunk_group`` the group of each
        chunk, ``chunk_chars`` its characters (of the group's values, GGR's length).
    """

    columns: list
    first: list
    last: list
    free: list
    groups: list
    fid: np.ndarray
    fweights: np.ndarray
    fchars: np.ndarray
    fcol: np.ndarray
    trace: SparseTrace | None
    chunk_group: np.ndarray
    template: str
    chunk_chars: np.ndarray | None = None

    @property
    def rows(self) -> int:
        return self.fid.shape[0]

    @property
    def prompt_columns(self) -> list:
        return self.first + self.free + self.last

    def field_orders(self, free_layout) -> np.ndarray:
        """(rows, prompt columns) column indices in prompt order, from per-row orders of the free
        trace's chunks (a :class:`~mptsearch.serving.sparse.Layout`; None: free columns in table
        order)."""
        rows, nf, nl = self.rows, len(self.first), len(self.last)
        free = np.asarray(self.free, dtype=np.int64)
        if free_layout is None or not len(free):
            mid = np.broadcast_to(free, (rows, len(free)))
        else:
            g = len(self.groups)
            pos = np.empty((rows, g), dtype=np.int64)  # pos[r, group] = its place in row r
            order = self.chunk_group[np.asarray(free_layout.seq).reshape(rows, g)]
            np.put_along_axis(pos, order, np.arange(g, dtype=np.int64)[None, :].repeat(rows, 0), axis=1)
            col_group = np.empty(len(self.columns), dtype=np.int64)
            for k, grp in enumerate(self.groups):
                col_group[grp] = k
            key = pos[:, col_group[free]] * len(self.columns) + free[None, :]
            mid = free[np.argsort(key, axis=1, kind="stable")]
        parts = [np.broadcast_to(np.asarray(self.first, dtype=np.int64), (rows, nf)), mid,
                 np.broadcast_to(np.asarray(self.last, dtype=np.int64), (rows, nl))]
        return np.concatenate(parts, axis=1)

    def sequences(self, field_orders: np.ndarray) -> np.ndarray:
        """(rows, prompt columns) field ids in the order ``field_orders`` (column indices)."""
        place = np.empty(len(self.columns), dtype=np.int64)
        place[self.prompt_columns] = np.arange(len(self.prompt_columns))
        return np.take_along_axis(self.fid, place[field_orders], axis=1)

    def cost(self, seqs: np.ndarray) -> int:
        """Prefill of the rows' prompts ``seqs`` under an unbounded prefix cache (trie tokens)."""
        rows, k = seqs.shape
        return orders_cost(self.fweights, np.arange(0, rows * k + 1, k, dtype=np.int64),
                           np.ascontiguousarray(seqs, dtype=np.int32).ravel())

    def serve_order(self, seqs: np.ndarray) -> np.ndarray:
        """Row indices in the DFS order of the prompts' trie (Theorem 7)."""
        rows, k = seqs.shape
        return lex_rank(np.arange(0, rows * k + 1, k, dtype=np.int64), np.ascontiguousarray(seqs, dtype=np.int32).ravel())

    def tokens(self) -> int:
        return int(self.fweights[self.fid].sum())


def _resolve(table: Table, names, what: str) -> list[int]:
    index = {c: i for i, c in enumerate(table.columns)}
    out = []
    for name in names or ():
        if name not in index:
            raise InstanceError(f"{what}: unknown column {name!r} (the table has {', '.join(map(repr, table.columns[:8]))}"
                                + (", ..." if len(table.columns) > 8 else "") + ")")
        out.append(index[name])
    return out


def table_model(table: Table, *, first=(), last=(), exclude=(), fd="auto", tokenizer="whitespace",
                template: str = DEFAULT_TEMPLATE) -> TableModel:
    """The prompt model of ``table`` (module docstring).

    Parameters
    ----------
    first, last, exclude : sequences of column names
    fd : "auto" (detect one-to-one columns among the free ones), "none", or a list of lists of
        column names, each a group that must be in one-to-one correspondence
    tokenizer : a name of :data:`.tokenize.TOKENIZERS` or a callable text -> count
    template : how one field is rendered, with ``{column}`` and ``{value}``

    Raises
    ------
    InstanceError
        An unknown column, a column named in two of first/last/exclude or twice in one, a given
        FD group that is not one-to-one, a template that does not format, no prompt column.
    """
    first_i = _resolve(table, first, "--first")
    last_i = _resolve(table, last, "--last")
    excl_i = _resolve(table, exclude, "--exclude")
    named = first_i + last_i + excl_i
    if len(set(named)) != len(named):
        dup = next(c for c in named if named.count(c) > 1)
        raise InstanceError(f"the column {table.columns[dup]!r} is named twice in --first/--last/--exclude")
    taken = set(named)
    free_i = [c for c in range(len(table.columns)) if c not in taken]
    prompt = first_i + free_i + last_i
    if not prompt:
        raise InstanceError("every column is excluded: the prompt would be empty")
    try:
        template.format(column="c", value="v")
    except (KeyError, IndexError, ValueError) as exc:
        raise InstanceError(f"the template {template!r} does not format with {{column}} and {{value}} ({exc})") from None
    k = len(table.columns)
    codes: list = [None] * k
    nd: list = [0] * k
    fweights, fchars, fcol = [], [], []
    offset = np.zeros(k, dtype=np.int64)
    total = 0
    for c in prompt:
        codes[c], uniq = table.column_codes(c)
        nd[c] = len(uniq)
        offset[c] = total
        total += len(uniq)
        fweights.append(count_fields(tokenizer, template, table.columns[c], uniq))
        fchars.append(np.fromiter(map(len, uniq), dtype=np.int64, count=len(uniq)))
        fcol.append(np.full(len(uniq), c, dtype=np.int64))
    if total >= 2**31:
        raise InstanceError(f"{total} distinct fields: more than 2^31")
    fid = np.empty((table.size, len(prompt)), dtype=np.int32)
    for j, c in enumerate(prompt):
        fid[:, j] = codes[c] + offset[c]
    groups = _fd_groups(table, fd, free_i, codes, nd)
    model = TableModel(list(table.columns), first_i, last_i, free_i, groups, fid,
                       np.concatenate(fweights).astype(np.int64), np.concatenate(fchars), np.concatenate(fcol), None, np.zeros(0, dtype=np.int64), template)
    if free_i:
        model.trace, model.chunk_group, model.chunk_chars = _free_trace(model, codes)
    return model


def _fd_groups(table: Table, fd, free_i: list, codes: list, nd: list) -> list[list[int]]:
    if fd == "auto":
        return detect_fd_groups(codes, nd, free_i)
    if fd in (None, "none"):
        return [[c] for c in free_i]
    given = [_resolve(table, grp, "--fd") for grp in fd]
    seen: set = set()
    for grp in given:
        for c in grp:
            if c not in free_i:
                raise InstanceError(f"--fd: the column {table.columns[c]!r} is fixed or excluded; FD groups are of free columns")
            if c in seen:
                raise InstanceError(f"--fd: the column {table.columns[c]!r} is in two groups")
            seen.add(c)
        for c in grp[1:]:
            if not _bijective(codes[grp[0]], nd[grp[0]], codes[c], nd[c]):
                raise InstanceError(f"--fd: the columns {table.columns[grp[0]]!r} and {table.columns[c]!r} are not "
                                    "in one-to-one correspondence")
    groups = [sorted(g) for g in given if g] + [[c] for c in free_i if c not in seen]
    return sorted(groups, key=lambda g: g[0])


def _free_trace(model: TableModel, codes: list) -> tuple[SparseTrace, np.ndarray, np.ndarray]:
    """The free trace: chunk = (first-column group, FD group, value), weight = the group's tokens."""
    rows = model.rows
    place = {c: j for j, c in enumerate(model.prompt_columns)}
    nf = len(model.first)
    if nf:
        pg = np.unique(model.fid[:, :nf], axis=0, return_inverse=True)[1].reshape(-1).astype(np.int64)
    else:
        pg = np.zeros(rows, dtype=np.int64)
    G = len(model.groups)
    keys = np.empty((rows, G), dtype=np.int64)
    wsum = np.empty((rows, G), dtype=np.int64)
    csum = np.empty((rows, G), dtype=np.int64)
    for g, grp in enumerate(model.groups):
        lead = model.fid[:, place[grp[0]]].astype(np.int64)
        keys[:, g] = lead  # field ids of different columns never collide
        wsum[:, g] = sum(model.fweights[model.fid[:, place[c]]] for c in grp)
        csum[:, g] = sum(model.fchars[model.fid[:, place[c]]] for c in grp)
    span = int(model.fweights.shape[0])
    if nf:
        keys = pg[:, None] * span + keys
        uniq, inv = np.unique(keys.ravel(), return_inverse=True)
        inv = inv.reshape(-1).astype(np.int32)
        n = len(uniq)
    else:  # field ids are already small integers: number the used ones in increasing order, no sort
        used = np.zeros(span, dtype=np.bool_)
        used[keys.ravel()] = True
        new_id = np.cumsum(used, dtype=np.int64) - 1
        inv = new_id[keys.ravel()].astype(np.int32)
        n = int(used.sum())
    weights = np.empty(n, dtype=np.int64)
    weights[inv] = wsum.ravel()
    chars = np.empty(n, dtype=np.int64)
    chars[inv] = csum.ravel()
    chunk_group = np.empty(n, dtype=np.int64)
    chunk_group[inv] = np.broadcast_to(np.arange(G, dtype=np.int64), (rows, G)).ravel()
    indptr = np.arange(0, rows * G + 1, G, dtype=np.int64)
    tr = _assemble(list(range(rows)), tuple(range(n)), weights, indptr, inv)
    return tr, chunk_group, chars

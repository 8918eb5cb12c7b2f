"""Online layout: a streaming layouter a server feeds one request at a time.

Arrivals are taken in batches of W against a trie of what was served recently. Each arrival
is placed at its *deepest usable prefix*: the heaviest (most tokens) path from the root of the
trie whose chunks all belong to the request. The requests of one batch that stop at the same
trie node share nothing above it with the rest of the stream, so their *residuals* (the chunks
not yet placed) are laid out together by the agglomerative hierarchy (Theorem 1's savings
form, the paper's Section 6 heuristic, here :mod:`.sparse_agglomerative`); a request alone at
its node keeps its residual in chunk-id order, the hierarchy layout's own convention. After
the batch, every sequence is added to the trie. Paper, Section 7.2.

Memory is bounded: the trie holds the sequences served since the last rebuild; every
``history`` arrivals (default 64 W) it is rebuilt from the last ``history`` of them, and chunk
labels no longer in it are forgotten, so memory is O(history * k) whatever the stream's length. W = 1 is pure deepest-match
placement; W and history at least the stream length reproduce the offline agglomerative
layout on an empty trie.

With ``pin=T`` a request's top-T chunks (the first T in relevance order) stay last in that
order and only the rest is laid out (:mod:`.pinning`).
"""

from __future__ import annotations

from collections import deque
from typing import Any, Iterable, Sequence

import numpy as np

from ..instance import InstanceError

__all__ = ["OnlineLayouter", "online_layout", "online_orders", "deepest_prefix"]


def deepest_prefix(trie: dict, chunks: set, weights) -> list:
    """The heaviest root path of ``trie`` (nested dicts) using only chunks of ``chunks``.

    Ties: the first found, exploring chunks in increasing id. Explores only the paths inside
    the request, so it costs O(number of such trie nodes * |chunks|).
    """
    best, best_w = (), 0
    stack = [(trie, (), 0, frozenset(chunks))]
    while stack:
        node, path, wt, rest = stack.pop()
        if wt > best_w:
            best, best_w = path, wt
        if not node or not rest:
            continue
        hits = node.keys() & rest
        if hits:
            for x in sorted(hits, reverse=True):
                stack.append((node[x], path + (x,), wt + int(weights[x]), rest - {x}))
    return list(best)


class OnlineLayouter:
    """Streaming prompt layout: feed requests with :meth:`add`, drain with :meth:`flush`.

    Parameters
    ----------
    window : int
        W, the batch of arrivals laid out together (W = 1: every request is answered at once).
    pin : int
        T >= 0: keep each request's first T chunks (its most relevant) last, in their order.
    history : int, optional
        Served sequences the trie remembers (default 64 W); bounds memory.
    tokens : mapping or callable, optional
        Token count of a chunk label, used when :meth:`add` is given no counts (default 1).

    Notes
    -----
    The trie is arrays with an open-addressing child table, and a batch is laid out by one
    compiled kernel (:func:`._online_kernels.online_batch`); Python only maps labels to ids.

    Examples
    --------
    >>> lay = OnlineLayouter(window=2)
    >>> lay.add(["a", "b", "c"], tokens=[100, 200, 50], id="q1")
    []
    >>> lay.add(["c", "b", "d"], tokens=[50, 200, 80], id="q2")
    [('q1', ['b', 'c', 'a']), ('q2', ['b', 'c', 'd'])]
    >>> lay.add(["d", "b"], tokens=[80, 200], id="q3")
    []
    >>> lay.flush()
    [('q3', ['b', 'd'])]
    """

    def __init__(self, window: int = 64, pin: int = 0, history: int | None = None, tokens=None):
        if int(window) < 1:
            raise InstanceError(f"window must be >= 1, got {window}")
        if int(pin) < 0:
            raise InstanceError(f"pin must be >= 0, got {pin}")
        self.window = int(window)
        self.pin = int(pin)
        self.history = int(history) if history is not None else 64 * self.window
        if self.history < 1:
            raise InstanceError(f"history must be >= 1, got {history}")
        self._tokens = tokens
        self._index: dict = {}
        self._labels: list = []
        self._w = np.zeros(1024, dtype=np.int64)
        self._mark = np.full(1024, -1, dtype=np.int64)
        self._ring: deque = deque()  # (outptr, out) of the batches served since the last rebuild
        self._ring_rows = 0
        self._since = 0
        self._pending_ids: list = []
        self._pending_free: list = []
        self._pending_pin: list = []
        self._fl: list = []
        self._pl: list = []
        self._recent_ids: deque = deque()  # ids of the last ``history`` served requests, oldest first
        self._live_ids: set = set()  # those and the queued requests' ids
        self.served = 0
        self._reset_trie(1024)

    # ---- the trie -------------------------------------------------------------------------
    def _reset_trie(self, nodes: int) -> None:
        cap = 1 << max(10, int(2 * nodes).bit_length())
        self._hkeys = np.full(cap, -1, dtype=np.int64)
        self._hvals = np.zeros(cap, dtype=np.int64)
        self._tw = np.zeros(max(1024, nodes + 1), dtype=np.int64)
        self._nnodes = 1

    def _room(self, extra: int) -> None:
        """Grow the node arrays and the child table for ``extra`` more nodes."""
        from ._online_kernels import insert_rows

        need = self._nnodes + extra
        if need > len(self._tw):
            tw = np.zeros(2 * need, dtype=np.int64)
            tw[:self._nnodes] = self._tw[:self._nnodes]
            self._tw = tw
        if 2 * need > len(self._hkeys):  # keep the table at most half full: rehash the paths
            rows = list(self._ring)
            self._reset_trie(need)
            for ip, seq in rows:
                self._nnodes = insert_rows(ip, seq, self._w, self._hkeys, self._hvals, self._tw, self._nnodes)

    def _intern(self, label, t: int) -> int:
        x = self._index.get(label)
        if x is None:
            x = self._index[label] = len(self._labels)
            self._labels.append(label)
            if x >= len(self._w):
                w = np.zeros(2 * len(self._w), dtype=np.int64)
                w[:x] = self._w[:x]
                self._w = w
            self._w[x] = t
        elif self._w[x] != t:
            raise InstanceError(f"chunk {label!r} has {t} tokens but was given {self._w[x]} before")
        return x

    def _count(self, label) -> int:
        tk = self._tokens
        if tk is None:
            return 1
        t = tk(label) if callable(tk) else tk.get(label)
        if t is None:
            raise InstanceError(f"chunk {label!r} has no token count")
        return t

    def add(self, chunks: Sequence, tokens: Sequence[int] | None = None, id: Any = None) -> list:
        """Queue one request (chunk labels in relevance order; their token counts, or None to
        use the constructor's ``tokens``). Returns the (id, chunk order) pairs laid out by
        this call: the whole batch when it reaches W requests, else nothing.

        ``id`` (default: the request's arrival number) must be hashable and differ from the ids
        of the queued requests and of the last ``history`` served ones (memory stays bounded);
        a repeat raises :class:`~mptsearch.instance.InstanceError`."""
        if isinstance(chunks, (str, bytes)) or len(chunks) == 0:
            raise InstanceError("a request needs a nonempty list of chunk labels")
        if tokens is not None and len(tokens) != len(chunks):
            raise InstanceError(f"{len(chunks)} chunks but {len(tokens)} token counts")
        if len(set(chunks)) != len(chunks):
            raise InstanceError("a chunk appears twice in one request")
        rid = self.served + len(self._pending_ids) if id is None else id
        try:
            repeated = rid in self._live_ids
        except TypeError:
            raise InstanceError(f"request id {rid!r} is not hashable (use a string or an integer)") from None
        if repeated:
            raise InstanceError(f"request id {rid!r} repeats the id of a request queued or among the last "
                                f"{self.history} served (ids must be unique: each order is returned under its id)")
        # a label seen before under the constructor's fixed token mapping (or unit weights) was
        # validated when first interned and its count cannot differ now: skip the lookup (most
        # chunks of a retrieval stream are repeats; this is the hot path of add())
        known = self._index.get if tokens is None and not callable(self._tokens) else None
        ids = []
        for p, c in enumerate(chunks):
            x = known(c) if known is not None else None
            if x is None:
                t = self._count(c) if tokens is None else tokens[p]
                if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or t <= 0:
                    raise InstanceError(f"token count {t!r} of chunk {c!r} is not a positive integer")
                x = self._intern(c, int(t))
            ids.append(x)
        T = self.pin
        free = sorted(ids[T:])
        self._pending_free.extend(free)
        self._pending_pin.extend(ids[:T])
        self._fl.append(len(free))
        self._pl.append(min(T, len(ids)))
        self._pending_ids.append(rid)
        self._live_ids.add(rid)
        if len(self._pending_ids) >= self.window:
            return self._run()
        return []

    def flush(self) -> list:
        """Lay out whatever is queued; returns its (id, chunk order) pairs."""
        return self._run() if self._pending_ids else []

    def _run(self) -> list:
        B = len(self._pending_ids)
        fptr = np.zeros(B + 1, dtype=np.int64)
        np.cumsum(np.array(self._fl, dtype=np.int64), out=fptr[1:])
        pptr = np.zeros(B + 1, dtype=np.int64)
        np.cumsum(np.array(self._pl, dtype=np.int64), out=pptr[1:])
        outptr, out = self._batch(fptr, np.array(self._pending_free, dtype=np.int64), pptr,
                                  np.array(self._pending_pin, dtype=np.int64))
        labels = self._labels
        flat = [labels[x] for x in out.tolist()]
        cuts = outptr.tolist()
        res = [(rid, flat[cuts[b]:cuts[b + 1]]) for b, rid in enumerate(self._pending_ids)]
        self._recent_ids.extend(self._pending_ids)
        while len(self._recent_ids) > self.history:
            self._live_ids.discard(self._recent_ids.popleft())
        self._pending_ids, self._pending_free, self._pending_pin, self._fl, self._pl = [], [], [], [], []
        if self._since >= self.history:
            self._rebuild()  # renumbers the labels: after they were read
        return res

    def _batch(self, fptr, fidx, pptr, pidx) -> tuple[np.ndarray, np.ndarray]:
        """Lay out one batch given as internal ids (free chunks sorted per request, pinned ones
        in relevance order); add it to the trie. Returns (outptr, out), the orders in CSR form.
        The caller rebuilds the trie when ``history`` is reached (:meth:`_rebuild` renumbers)."""
        from ._online_kernels import online_batch

        B = len(fptr) - 1
        outptr = fptr + pptr
        out = np.empty(int(outptr[-1]), dtype=np.int64)
        self._room(len(out))
        if len(self._mark) < len(self._labels):  # scratch the kernel leaves all -1
            self._mark = np.full(2 * len(self._labels), -1, dtype=np.int64)
        self._nnodes = online_batch(fptr, fidx, pptr, pidx, self._w, self._hkeys, self._hvals, self._tw,
                                    self._nnodes, self._mark, outptr, out)
        self._ring.append((outptr, out))
        self._ring_rows += B
        self.served += B
        self._since += B
        return outptr, out

    def _rebuild(self) -> None:
        """Keep only the last ``history`` sequences (and their chunk labels)."""
        from ._online_kernels import insert_rows

        ips, seqs, left = [], [], self.history
        for ip, seq in reversed(self._ring):
            if left <= 0:
                break
            take = min(left, len(ip) - 1)
            lo = len(ip) - 1 - take
            ips.append(ip[lo:] - ip[lo])
            seqs.append(seq[ip[lo]:])
            left -= take
        ips.reverse()
        seqs.reverse()
        flat = np.concatenate(seqs) if seqs else np.zeros(0, dtype=np.int64)
        used = np.unique(flat)
        remap = np.full(len(self._labels), -1, dtype=np.int64)
        remap[used] = np.arange(len(used))
        self._labels = [self._labels[x] for x in used.tolist()]
        self._index = {lab: x for x, lab in enumerate(self._labels)}
        w = np.zeros(max(1024, 2 * len(used)), dtype=np.int64)
        w[:len(used)] = self._w[used]
        self._w = w
        self._ring = deque((ip, remap[s]) for ip, s in zip(ips, seqs))
        self._ring_rows = sum(len(ip) - 1 for ip in ips)
        self._reset_trie(len(flat) + 1)
        for ip, seq in self._ring:
            self._nnodes = insert_rows(ip, seq, self._w, self._hkeys, self._hvals, self._tw, self._nnodes)
        self._since = 0

    @property
    def trie_nodes(self) -> int:
        """Nodes of the trie of recently served sequences (memory is proportional to it)."""
        return self._nnodes - 1


def online_orders(indptr: np.ndarray, seq: np.ndarray, weights, window: int, pin: int = 0) -> np.ndarray:
    """The orders :func:`online_layout` gives the lines ``seq[indptr[j]:indptr[j+1]]`` (chunk
    ids, each line without repeats), as one array in the same CSR form; nothing forgotten.

    The batches go straight to the layouter's compiled step, without :meth:`OnlineLayouter.add`'s
    per-request checks and label mapping (chunk ids are the internal ids here)."""
    from ._sparse_kernels import sort_rows

    indptr = np.asarray(indptr, dtype=np.int64)
    seq = np.asarray(seq, dtype=np.int64)
    M = len(indptr) - 1
    w = np.asarray(weights, dtype=np.int64)
    lay = OnlineLayouter(window, pin, history=max(1, M))  # never rebuilt: ids stay chunk ids
    lay._labels = list(range(len(w)))
    lay._index = {x: x for x in range(len(w))}
    lay._w = np.zeros(max(1024, len(w)), dtype=np.int64)
    lay._w[:len(w)] = w
    out = np.empty(len(seq), dtype=np.int64)
    W, T = lay.window, lay.pin
    for a in range(0, M, W):
        b = min(M, a + W)
        lens = np.diff(indptr[a:b + 1])
        part = seq[indptr[a]:indptr[b]]
        i = np.arange(len(part), dtype=np.int64) - np.repeat(indptr[a:b] - indptr[a], lens)
        pinned = i < T
        pl = np.minimum(T, lens)
        pptr = np.zeros(b - a + 1, dtype=np.int64)
        np.cumsum(pl, out=pptr[1:])
        fptr = np.zeros(b - a + 1, dtype=np.int64)
        np.cumsum(lens - pl, out=fptr[1:])
        _, got = lay._batch(fptr, sort_rows(fptr, part[~pinned]), pptr, part[pinned])
        out[indptr[a]:indptr[b]] = got
    return out


def online_layout(lines: Sequence[Sequence[int]], weights, window: int, pin: int = 0,
                  history: int | None = None) -> list[tuple[int, ...]]:
    """Per-line chunk orders (ids in, ids out) produced by :class:`OnlineLayouter` with
    batches of ``window`` arrivals; ``history`` defaults to the whole stream (nothing forgotten).

    Notes
    -----
    O(m / W) agglomerative runs on at most W residuals each, plus the prefix searches.
    """
    w = [int(v) for v in weights]
    lay = OnlineLayouter(window, pin, history=history if history is not None else max(1, len(lines)),
                         tokens=w.__getitem__)
    for x, t in enumerate(w):  # internal ids = chunk ids, so ties break by chunk id
        lay._intern(x, t)
    out: list = [None] * len(lines)
    for j, s in enumerate(lines):
        for rid, seq in lay.add([int(x) for x in s], id=j):
            out[rid] = tuple(seq)
    for rid, seq in lay.flush():
        out[rid] = tuple(seq)
    return out

"""The instance model: requests as sets of weighted chunks.

An *instance* of MPT (minimum prefix trie) is a family of m requests R_1..R_m, each a
nonempty set of chunks drawn from a universe of n chunks; chunk x has a positive integer
weight w(x) (its token count). Every public function of mptsearch takes an
:class:`Instance` first. Parsing (JSON, the paper's compact notation, Python lists) and
validation live here and nowhere else.

Chunks are numbered 0..n-1 in sorted order of their labels, so that the numbering does not
depend on the order in which requests are given. Each request keeps the order it came with
(its *production order*: retrieval relevance order) in :attr:`Instance.orders`.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

__all__ = ["Instance", "InstanceError", "parse_instance", "compact", "read_text", "looks_like_path"]

# The largest total weight sum_i w(R_i) any solver accepts: every DP value is bounded by it
# (savings never exceed the total), so int64 arithmetic cannot overflow below this.
MAX_TOTAL_WEIGHT = 2**62


class InstanceError(ValueError):
    """Raised for input that is not a valid instance; the message is one line for the user."""


@dataclass(frozen=True, eq=False)
class Instance:
    """A validated MPT instance.

    Attributes
    ----------
    labels : tuple
        Chunk labels (all ints or all strings), sorted; chunk id ``x`` has label ``labels[x]``.
    weights : numpy.ndarray
        int64 array of length n, ``weights[x] = w(x) >= 1``.
    orders : tuple of tuple of int
        Each request's chunk ids in production order.
    notes : tuple of str
        What was changed on input (duplicate requests merged), to be shown to the user.
    """

    labels: tuple
    weights: np.ndarray
    orders: tuple
    notes: tuple = field(default=())

    # ---- sizes -------------------------------------------------------------------------
    @property
    def n(self) -> int:
        """Number of chunks."""
        return len(self.labels)

    @property
    def m(self) -> int:
        """Number of requests."""
        return len(self.orders)

    @property
    def requests(self) -> tuple:
        """Each request as a frozenset of chunk ids."""
        return tuple(frozenset(o) for o in self.orders)

    @property
    def unit_weights(self) -> bool:
        return bool(np.all(self.weights == 1))

    # ---- bitset views --------------------------------------------------------------------
    @property
    def nwords(self) -> int:
        return max(1, (self.n + 63) // 64)

    def request_bits(self) -> np.ndarray:
        """Requests as bitsets over chunks: uint64 array of shape (m, ceil(n/64))."""
        bits = np.zeros((self.m, self.nwords), dtype=np.uint64)
        for i, order in enumerate(self.orders):
            for x in order:
                bits[i, x >> 6] |= np.uint64(1) << np.uint64(x & 63)
        return bits

    def request_masks(self) -> list[int]:
        """Requests as Python-int bitmasks over chunk ids (any n)."""
        return [sum(1 << x for x in o) for o in self.orders]

    def chunk_sets(self) -> np.ndarray:
        """S_x for every chunk: the requests containing x, as uint64 bitmasks (m <= 64)."""
        if self.m > 64:
            raise InstanceError(f"chunk request sets need m <= 64 requests, got m={self.m}")
        s = np.zeros(self.n, dtype=np.uint64)
        for i, order in enumerate(self.orders):
            for x in order:
                s[x] |= np.uint64(1) << np.uint64(i)
        return s

    def request_weights(self) -> np.ndarray:
        """w(R_i) for every request (int64)."""
        return np.array([int(self.weights[list(o)].sum()) for o in self.orders], dtype=np.int64)

    def total_weight(self) -> int:
        """sum_i w(R_i): the cost with no sharing at all."""
        return int(sum(int(self.weights[list(o)].sum()) for o in self.orders))

    # ---- conversions -------------------------------------------------------------------
    def label_orders(self, orders: Iterable[Sequence[int]] | None = None) -> list[list]:
        """Chunk-id sequences (default: production order) as lists of labels."""
        orders = self.orders if orders is None else orders
        return [[self.labels[x] for x in o] for o in orders]

    def to_json(self) -> dict:
        """The JSON form accepted by :func:`parse_instance` (production order kept)."""
        out: dict[str, Any] = {"requests": self.label_orders()}
        if not self.unit_weights:
            out["weights"] = {str(lab): int(w) for lab, w in zip(self.labels, self.weights)}
        return out

    def relabel(self, perm: Sequence[int]) -> "Instance":
        """The instance with chunk x renamed to perm[x] (labels become the ints perm[x])."""
        perm = list(perm)
        w = {perm[x]: int(self.weights[x]) for x in range(self.n)}
        return from_lists([[perm[x] for x in o] for o in self.orders], w)

    def __repr__(self) -> str:
        w = "" if self.unit_weights else f", weights={[int(v) for v in self.weights]}"
        return f"Instance(n={self.n}, m={self.m}, {compact(self)!r}{w})"


# ---- construction and parsing ---------------------------------------------------------------

def _check_weight(label, w) -> int:
    if isinstance(w, bool) or not isinstance(w, (int, np.integer)):
        raise InstanceError(f"weight of chunk {label!r} is {w!r}, not a positive integer")
    if w <= 0:
        raise InstanceError(f"weight of chunk {label!r} is {w}, not a positive integer")
    return int(w)


def from_lists(requests: Sequence[Sequence], weights: Mapping | Sequence | None = None) -> Instance:
    """Build an :class:`Instance` from lists of chunk labels.

    Parameters
    ----------
    requests : sequence of sequences
        Each request's chunk labels in production order; labels are all ints or all strings.
    weights : mapping, sequence or None
        ``{label: w}``, or a list indexed by integer label, or None for unit weights.

    Raises
    ------
    InstanceError
        On an empty family or request, a duplicate chunk in a request, mixed label types, a
        chunk without a weight or a weight that is not a positive integer.
    """
    if isinstance(requests, (str, bytes)) or not isinstance(requests, Sequence):
        raise InstanceError("requests must be a list of lists of chunk labels")
    if len(requests) == 0:
        raise InstanceError("the instance has no requests")
    kinds = set()
    seqs = []
    for i, req in enumerate(requests):
        if isinstance(req, (str, bytes)) or not isinstance(req, Sequence):
            raise InstanceError(f"request {i} is {req!r}, not a list of chunk labels")
        if len(req) == 0:
            raise InstanceError(f"request {i} is empty")
        for lab in req:
            if isinstance(lab, bool) or not isinstance(lab, (int, np.integer, str)):
                raise InstanceError(f"request {i} has chunk {lab!r}: labels must be ints or strings")
            kinds.add(str if isinstance(lab, str) else int)
        seq = [lab if isinstance(lab, str) else int(lab) for lab in req]
        if len(set(seq)) != len(seq):
            dup = next(lab for lab in seq if seq.count(lab) > 1)
            raise InstanceError(f"request {i} lists chunk {dup!r} twice")
        seqs.append(seq)
    if len(kinds) > 1:
        raise InstanceError("chunk labels mix integers and strings")
    labels = tuple(sorted({lab for s in seqs for lab in s}))
    index = {lab: x for x, lab in enumerate(labels)}

    if weights is None:
        w = [1] * len(labels)
    elif isinstance(weights, Mapping):
        by_str = {str(k): v for k, v in weights.items()}
        w = []
        for lab in labels:
            if lab in weights:
                w.append(_check_weight(lab, weights[lab]))
            elif str(lab) in by_str:
                w.append(_check_weight(lab, by_str[str(lab)]))
            else:
                raise InstanceError(f"chunk {lab!r} has no weight")
    elif isinstance(weights, (Sequence, np.ndarray)) and not isinstance(weights, (str, bytes)):
        if kinds == {str}:
            raise InstanceError("weights given as a list need integer chunk labels 0..n-1; use a mapping")
        w = []
        for lab in labels:
            if not 0 <= lab < len(weights):
                raise InstanceError(f"chunk {lab!r} has no weight (the weight list has {len(weights)} entries)")
            w.append(_check_weight(lab, weights[lab]))
    else:
        raise InstanceError("weights must be a list or a mapping from chunk label to weight")

    orders, seen, notes = [], {}, []
    for i, seq in enumerate(seqs):
        ids = tuple(index[lab] for lab in seq)
        key = frozenset(ids)
        if key in seen:
            notes.append(f"request {i} repeats request {seen[key]} and was merged with it")
            continue
        seen[key] = i
        orders.append(ids)
    if len(notes) > 3:
        notes = [f"{len(notes)} duplicate requests were merged (identical requests share one trie path)"]
    total = sum(w[x] for ids in orders for x in ids)
    if total >= MAX_TOTAL_WEIGHT:
        raise InstanceError(f"total weight sum_i w(R_i) = {total} is too large (the limit is 2^62)")
    return Instance(labels=labels, weights=np.array(w, dtype=np.int64), orders=tuple(orders),
                    notes=tuple(notes))


def from_compact(text: str) -> Instance:
    """Parse the paper's compact notation, one character per chunk: ``"0145 0236 1236"``.

    Requests are separated by spaces (or commas). When every character is a digit the labels
    are the integers 0..9; otherwise they are the characters themselves.
    """
    words = [w for w in text.replace(",", " ").split() if w]
    if not words:
        raise InstanceError("the instance has no requests")
    chars = {c for w in words for c in w}
    digits = all(c.isdigit() for c in chars)
    return from_lists([[int(c) if digits else c for c in w] for w in words])


def from_json(data: Any) -> Instance:
    """Build an instance from parsed JSON: ``{"requests": [[...], ...], "weights": ...}``."""
    if isinstance(data, list):
        data = {"requests": data}
    if not isinstance(data, dict) or "requests" not in data:
        raise InstanceError('JSON instance must be an object with a "requests" list')
    unknown = set(data) - {"requests", "weights", "name", "note", "labels"}
    if unknown:
        raise InstanceError(f"unknown key(s) in JSON instance: {', '.join(sorted(unknown))}")
    return from_lists(data["requests"], data.get("weights"))


def parse_instance(source: Any, *, stdin=None) -> Instance:
    """Read an instance from anything a user may hand over.

    ``source`` is an :class:`Instance` (returned as is), a list of requests, a dict in the JSON
    form, a path to a file (JSON, or compact notation in a text file), ``"-"`` for the same on
    ``stdin``, inline JSON, or compact notation such as ``"012 013 023 123"``.

    An argument that looks like a path (it contains a path separator or a dot, or starts with
    ``~``) and names no file is "no such file", never compact notation; binary or non-UTF-8
    data is refused (see :func:`read_text`).

    Examples
    --------
    >>> inst = parse_instance("012 013 023 123")
    >>> inst.n, inst.m
    (4, 4)
    >>> parse_instance("inst.txt")
    Traceback (most recent call last):
    ...
    mptsearch.instance.InstanceError: no such file: inst.txt
    """
    if isinstance(source, Instance):
        return source
    if isinstance(source, dict) or (isinstance(source, list) and source and not isinstance(source[0], str)):
        return from_json(source)
    if isinstance(source, list):
        return from_lists(source)
    if hasattr(source, "__fspath__"):
        source = os.fspath(source)
    if not isinstance(source, str):
        raise InstanceError(f"cannot read an instance from {type(source).__name__}")
    text = source.strip()
    if text == "-":
        return _from_json_text(read_text("-", "instance", stdin=stdin), "<stdin>")
    if os.path.exists(source):
        return _from_json_text(read_text(source, "instance"), source)
    if text.startswith("{") or text.startswith("["):
        return _from_json_text(text, "<argument>")
    if looks_like_path(text):
        raise InstanceError(f"no such file: {source}")
    return from_compact(text)


def looks_like_path(text: str) -> bool:
    """Whether a command-line argument is meant as a file name rather than compact notation:
    one word containing a path separator or a dot, or starting with ``~``."""
    text = text.strip()
    if not text or any(c.isspace() for c in text):
        return False
    return text.startswith("~") or "." in text or "/" in text or os.sep in text


def read_text(source: str, what: str = "input", *, stdin=None) -> str:
    """The text of a file named ``source``, or of ``stdin`` when ``source`` is ``"-"``.

    Raises
    ------
    InstanceError
        One line for a missing file, a folder, a file that cannot be read (permission denied)
        and binary data (a NUL byte, or bytes that are not UTF-8).
    """
    if source == "-":
        stream = stdin if stdin is not None else sys.stdin
        if stream is None:
            raise InstanceError(f"no {what} on stdin (stdin is closed)")
        buffer = getattr(stream, "buffer", None)
        data = buffer.read() if buffer is not None else stream.read()
        where = "stdin"
    else:
        where = source
        if os.path.isdir(source):
            raise InstanceError(f"{source} is a folder, not a file")
        try:
            with open(source, "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            raise InstanceError(f"no such file: {source}") from None
        except PermissionError:
            raise InstanceError(f"cannot read {source}: permission denied") from None
        except OSError as exc:
            raise InstanceError(f"cannot read {source}: {exc.strerror or exc}") from None
    if isinstance(data, str):
        text = data
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InstanceError(f"{where} is not UTF-8 text (a binary file?)") from None
    if "\x00" in text:
        raise InstanceError(f"{where} is not text (it holds NUL bytes; a binary file?)")
    return text


def _from_json_text(text: str, where: str) -> Instance:
    text = text.strip()
    if not text.startswith(("{", "[")):
        return from_compact(text)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InstanceError(f"malformed JSON in {where}: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    return from_json(data)


def compact(inst: Instance, orders: Iterable[Sequence[int]] | None = None) -> str:
    """The compact notation of an instance (one character per chunk) when its labels allow it,
    else a JSON list of requests. Requests appear in sorted chunk order unless ``orders`` given."""
    orders = [sorted(o) for o in inst.orders] if orders is None else orders
    labs = [str(lab) for lab in inst.labels]
    if all(len(s) == 1 and s != "," and not s.isspace() for s in labs):
        return " ".join("".join(labs[x] for x in o) for o in orders)
    return json.dumps(inst.label_orders(orders))

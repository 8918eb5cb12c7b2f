"""One call for practitioners: the chunk order of every request and the order to serve them.

>>> from mptsearch.serving.api import order_contexts
>>> r = order_contexts([["faq", "pricing", "refunds"], ["refunds", "faq", "shipping"],
...                     ["pricing", "faq"]], tokens={"faq": 300, "pricing": 120,
...                     "refunds": 200, "shipping": 90})
>>> r.orders
[['faq', 'refunds', 'pricing'], ['faq', 'refunds', 'shipping'], ['faq', 'pricing']]
>>> r.serving_order      # Theorem 7: serve in this order to get the unbounded-cache prefill
[2, 0, 1]
>>> r.prefill, r.production_prefill, r.no_cache
(830, 1630, 1630)

Serving the requests in ``serving_order`` (the DFS order of the layout's trie) with a cache
that holds one request makes the prefill equal to ``prefill``, the unbounded-cache cost
(paper, Section 8, Theorem 7). :func:`prompts` and :func:`prompt_tokens` build the prompts
themselves, in serving order:

>>> texts = {"faq": "FAQ ...", "pricing": "Prices ...", "refunds": "Refunds ...",
...          "shipping": "Shipping ..."}
>>> ps = prompts(r, texts, template="Context: {context} | Q: {question}", separator=" | ",
...              questions=["cost?", "return?", "plans?"])
>>> ps[0]                # request 2 is served first
'Context: FAQ ... | Prices ... | Q: plans?'

A prefix cache matches token prefixes: everything before the chunks must be the same for
every request, and the chunk texts are best tokenized one by one and concatenated
(:func:`prompt_tokens`), since a tokenizer may merge tokens across a chunk boundary.
"""

from __future__ import annotations

import os
import string
import warnings
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from ..instance import InstanceError

__all__ = ["order_contexts", "ContextOrder", "prompts", "prompt_tokens", "read_texts"]


@dataclass(frozen=True)
class ContextOrder:
    """What :func:`order_contexts` returns.

    Attributes
    ----------
    orders : list of lists
        Every request's chunk labels in the order to put them in the prompt.
    serving_order : list of int
        Request indices in the order to serve them (DFS order of the layout's trie).
    rank : list of int
        Each request's position in ``serving_order``.
    prefill, production_prefill, no_cache : int
        Tokens computed under an unbounded prefix cache with ``orders``, with the given
        (relevance) order, and with no cache at all.
    note : str
        What the method reported (e.g. nearest-neighbour searches cut at scale).
    """

    orders: list
    serving_order: list
    rank: list
    prefill: int
    production_prefill: int
    no_cache: int
    note: str = ""


def order_contexts(requests: Sequence[Sequence], tokens: Mapping | Sequence | None = None,
                   method: str = "agglomerative", pin: int = 0, window: int | None = None) -> ContextOrder:
    """Order the retrieved chunks of every request so that a prefix (KV) cache shares the most.

    Parameters
    ----------
    requests : sequence of sequences of chunk labels (str or int), each in relevance order, or
        an instance in any form :func:`~mptsearch.instance.parse_instance` reads (an
        ``Instance``, a JSON dict, compact notation, a path; its weights are the token counts)
    tokens : mapping label -> token count, or one list of counts per request; ``1`` weighs every
        chunk 1 (a chunk count, not tokens). Omitted (None), every chunk weighs 1 too, with a
        ``UserWarning``: a layout that ignores token counts can be far from the best one.
    method : one of ``production``, ``popularity``, ``global``, ``greedy``, ``agglomerative``,
        ``peer``, ``online`` (see :mod:`.layout`)
    pin : keep each request's ``pin`` most relevant chunks last, in relevance order
    window : batch size W of the ``online`` method (required by it: the arrivals it may reorder
        at a time)

    Returns
    -------
    ContextOrder

    Raises
    ------
    InstanceError
        On malformed input (one line naming the request), or a method refused for memory.

    Notes
    -----
    Runs on the sparse model (:mod:`.sparse`): O(total chunks) memory for the default method.
    """
    from ..instance import Instance
    from ..labelled import TAKES, as_instance
    from .layout import METHODS, method_orders, serving_rank
    from .sparse import orders_cost, sparse_from_lists

    if method not in METHODS:
        raise InstanceError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")
    if isinstance(requests, (Instance, Mapping, str, os.PathLike)):  # what parse_instance reads
        if tokens is not None:
            raise TypeError("order_contexts(): tokens come with an instance (its weights); pass tokens only "
                            "with a list of requests")
        inst = as_instance(requests, "order_contexts")
        requests, tokens = inst.label_orders(), {lab: int(w) for lab, w in zip(inst.labels, inst.weights)}
    elif isinstance(requests, bytes) or not isinstance(requests, Sequence):
        raise TypeError(f"order_contexts() takes a list of requests (lists of chunk labels) or an instance: "
                        f"{TAKES}; got {type(requests).__name__}")
    if tokens is None:
        warnings.warn("order_contexts(): no tokens given, so every chunk weighs 1 and the layout ignores how "
                      "long the chunks are; pass tokens= (a {chunk: token count} map or one list per request), or "
                      "tokens=1 to ask for unit weights", UserWarning, stacklevel=2)
    elif isinstance(tokens, int) and not isinstance(tokens, bool):
        if tokens != 1:
            raise TypeError(f"order_contexts(): tokens=1 asks for unit weights; got tokens={tokens}")
        tokens = None
    elif not isinstance(tokens, Mapping):
        tokens = list(tokens)
        if len(tokens) != len(requests):
            raise InstanceError(f"{len(requests)} requests but {len(tokens)} token lists")
    tr = sparse_from_lists(requests, tokens)
    lay, note = method_orders(tr, method, window=window, pin=int(pin))
    rank = serving_rank(lay)
    order = np.argsort(rank, kind="stable")
    return ContextOrder(tr.label_lists(lay.indptr, lay.seq), order.tolist(), rank.tolist(),
                        orders_cost(tr.weights, lay.indptr, lay.seq), tr.production_cost(),
                        tr.tokens(), note)


_FIELDS = ("context", "question", "id")


def _served(order) -> tuple[list, list[int]]:
    """(per-request chunk labels, request indices in serving order) of a ContextOrder or of a
    plain list of per-request label lists (served as given)."""
    if isinstance(order, ContextOrder):
        return order.orders, list(order.serving_order)
    if isinstance(order, (str, bytes)) or not isinstance(order, Sequence):
        raise TypeError(f"expected what order_contexts() returns, or a list of per-request chunk label lists; "
                        f"got {type(order).__name__}")
    rows = [list(r) for r in order]
    return rows, list(range(len(rows)))


def _per_request(values, n: int, what: str):
    """``values[i]`` for every request i (a sequence of n, or a mapping index -> value)."""
    if values is None:
        return None
    if isinstance(values, Mapping):
        missing = next((i for i in range(n) if i not in values), None)
        if missing is not None:
            raise InstanceError(f"no {what} for request {missing}")
        return [values[i] for i in range(n)]
    values = list(values)
    if len(values) != n:
        raise InstanceError(f"{n} requests but {len(values)} {what}s")
    return values


def _chunk(table: Mapping, label, i: int, what: str):
    try:
        return table[label]
    except KeyError:
        raise InstanceError(f"request {i}: no {what} for chunk {label!r}") from None


def prompts(order, texts: Mapping, *, template: str = "{context}", separator: str = "\n\n",
            questions=None, ids=None) -> list[str]:
    """The prompt strings of every request, in serving order.

    Parameters
    ----------
    order : what :func:`order_contexts` returns (its ``orders`` and ``serving_order``), or a
        list of per-request chunk label lists, served in the order given
    texts : mapping chunk label -> its text
    template : a :meth:`str.format` string with ``{context}`` (the request's chunk texts in
        layout order, joined by ``separator``) and optionally ``{question}`` and ``{id}``
    questions, ids : per-request values for ``{question}`` and ``{id}`` (a sequence in request
        order, or a mapping request index -> value)

    Returns
    -------
    list of str
        Prompt k is request ``order.serving_order[k]``'s: submit them in this order.

    Raises
    ------
    InstanceError
        A chunk without a text, or a per-request list of the wrong length.
    ValueError
        A template without ``{context}`` or with a field other than context, question, id.

    Notes
    -----
    O(total text length). A template with ``{question}`` or ``{id}`` before ``{context}``
    gives every request a different start, so no prefix is shared: that warns.
    """
    rows, served = _served(order)
    fields = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    bad = [f for f in fields if f not in _FIELDS]
    if bad or "context" not in fields:
        raise ValueError(f"template fields are {{context}} (required), {{question}} and {{id}}; got "
                         f"{', '.join('{' + f + '}' for f in fields) or 'none'}")
    if fields.index("context") > 0:
        warnings.warn(f"prompts(): the template puts {{{fields[0]}}} before {{context}}: every prompt starts "
                      "differently, so no prefix is shared", UserWarning, stacklevel=2)
    qs = _per_request(questions, len(rows), "question")
    idv = _per_request(ids, len(rows), "id")
    for f, v in (("question", qs), ("id", idv)):
        if f in fields and v is None:
            raise ValueError(f"the template has {{{f}}}: pass {f}s=")
    out = []
    for i in served:
        context = separator.join(_chunk(texts, c, i, "text") for c in rows[i])
        out.append(template.format(context=context, question=qs[i] if qs is not None else "",
                                   id=idv[i] if idv is not None else ""))
    return out


def read_texts(path: str) -> dict:
    """The chunk texts of a JSONL file: lines ``{"chunk": label, "text": "..."}``, or objects
    mapping labels to texts (a whole ``{label: text, ...}`` object on one line is such a file).

    Raises :class:`InstanceError` (one line, with the file and line) on a missing or unreadable
    file, malformed JSON, a text that is not a string, or a label given twice."""
    import json

    from .._files import read_errors
    from .trace import malformed_json

    texts: dict = {}
    with read_errors(path, "texts file "), open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InstanceError(f"{path} line {lineno}: {malformed_json(exc, line)}") from None
            if not isinstance(obj, dict):
                raise InstanceError(f"{path} line {lineno}: expected a JSON object, got {type(obj).__name__}")
            pairs = [(obj["chunk"], obj["text"])] if set(obj) == {"chunk", "text"} else list(obj.items())
            for label, text in pairs:
                if not isinstance(text, str):
                    raise InstanceError(f"{path} line {lineno}: the text of chunk {label!r} is not a string")
                if label in texts:
                    raise InstanceError(f"{path} line {lineno}: chunk {label!r} has a text already")
                texts[label] = text
    return texts


def prompt_tokens(order, token_ids: Mapping, *, prefix: Sequence[int] = (), separator: Sequence[int] = (),
                  questions=None) -> list[list[int]]:
    """The prompts as token id lists, in serving order: ``prefix``, then the request's chunks'
    token ids in layout order (``separator`` between two chunks), then its question's ids.

    Parameters
    ----------
    order : as for :func:`prompts`
    token_ids : mapping chunk label -> its token ids, each chunk tokenized on its own
        (e.g. ``tok.encode(text, add_special_tokens=False)``)
    prefix : token ids every prompt starts with (a system prompt)
    separator : token ids between two chunks
    questions : per-request token id lists appended last (a sequence in request order, or a
        mapping request index -> ids)

    Returns
    -------
    list of lists of int
        Prompt k is request ``order.serving_order[k]``'s (vLLM: ``{"prompt_token_ids": ...}``).

    Notes
    -----
    O(total tokens). Concatenating ids chunk by chunk keeps every shared chunk sequence a
    shared token prefix, which tokenizing the joined text does not guarantee.
    """
    rows, served = _served(order)
    qs = _per_request(questions, len(rows), "question")
    head, sep = [int(t) for t in prefix], [int(t) for t in separator]
    out = []
    for i in served:
        ids = list(head)
        for p, c in enumerate(rows[i]):
            if p and sep:
                ids.extend(sep)
            ids.extend(int(t) for t in _chunk(token_ids, c, i, "token ids"))
        if qs is not None:
            ids.extend(int(t) for t in qs[i])
        out.append(ids)
    return out

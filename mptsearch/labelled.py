"""The functions exported by the package itself (``mptsearch.opt_free`` and so on): any input
:func:`~mptsearch.instance.parse_instance` accepts, results in the instance's own labels.

The modules below them (:mod:`mptsearch.exact.free`, :mod:`mptsearch.trie`, ...) take a
validated :class:`~mptsearch.instance.Instance` and speak chunk *ids* (``0..n-1``, the index of
a label in ``inst.labels``), which is what the solvers and the command line use. The
package-level names wrap them for a library user: the instance may be an ``Instance``, a list
of requests (lists of chunk labels), a dict in the JSON form, compact notation such as
``"012 013 023 123"`` or a path to an instance file, and every layout and order goes in and
comes back as chunk *labels*. Requests keep the instance's numbering (duplicates merged, see
``Instance.notes``), so ``hierarchy`` and ``R<i>`` refer to ``inst.orders[i]``.

>>> import mptsearch
>>> r = mptsearch.opt_free([["sys", "doc1", "q1"], ["sys", "doc1", "q2"]])
>>> r.value, r.layout
(4, [['doc1', 'sys', 'q1'], ['doc1', 'sys', 'q2']])
>>> mptsearch.trie_cost([["sys", "doc1", "q1"], ["sys", "doc1", "q2"]], r.layout)
4
>>> mptsearch.opt_glob("ab ac").order
['a', 'c', 'b']
>>> mptsearch.opt_free(17)
Traceback (most recent call last):
...
TypeError: opt_free() takes an instance: an Instance, a list of requests (lists of chunk labels), a dict in the JSON form, compact notation such as "012 013" or a path to an instance file; got int
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Sequence

from .instance import Instance, InstanceError, parse_instance

__all__ = ["opt_free", "opt_glob", "agglomerative", "greedy", "trie_cost", "order_cost", "draw_trie",
           "as_instance"]

TAKES = ("an Instance, a list of requests (lists of chunk labels), a dict in the JSON form, compact "
         'notation such as "012 013" or a path to an instance file')


def as_instance(source: Any, function: str = "this function") -> Instance:
    """``source`` as an :class:`Instance` (see :func:`parse_instance`); a value of another type
    is a :class:`TypeError` saying what is accepted. O(size of the input)."""
    if isinstance(source, tuple):
        source = list(source)
    if not isinstance(source, (Instance, list, dict, str, os.PathLike)):
        raise TypeError(f"{function}() takes an instance: {TAKES}; got {type(source).__name__}")
    return parse_instance(source)


def _ids(inst: Instance, seq: Sequence, what: str) -> list[int]:
    index = {lab: x for x, lab in enumerate(inst.labels)}
    if isinstance(seq, (str, bytes)):
        raise TypeError(f"{what} must be a sequence of chunk labels, not a string")
    try:
        return [index[lab] for lab in seq]
    except KeyError as exc:
        raise InstanceError(f"{what}: chunk label {exc.args[0]!r} is not in the instance "
                            f"(labels {list(inst.labels)[:8]}{'...' if inst.n > 8 else ''})") from None
    except TypeError:  # an unhashable item
        raise TypeError(f"{what} must be a sequence of chunk labels") from None


def _label_layout(inst: Instance, layout) -> list[list]:
    return [[inst.labels[x] for x in seq] for seq in layout]


def _id_layout(inst: Instance, layout) -> list[list[int]]:
    if isinstance(layout, (str, bytes)) or not isinstance(layout, Sequence):
        raise TypeError("a layout is a list with one sequence of chunk labels per request")
    return [_ids(inst, seq, f"layout of request {i}") for i, seq in enumerate(layout)]


def opt_free(instance, **kwargs):
    """OPT_free (:func:`mptsearch.exact.free.opt_free`, Theorem 1 of the paper, O(3^m)) with
    its optimal layout in labels."""
    from .exact.free import opt_free as run

    inst = as_instance(instance, "opt_free")
    r = run(inst, **kwargs)
    return dataclasses.replace(r, layout=_label_layout(inst, r.layout))


def opt_glob(instance, **kwargs):
    """OPT_glob (:func:`mptsearch.exact.glob.opt_glob`, O(2^n (m + n))) with an optimal global
    order of the chunk labels."""
    from .exact.glob import opt_glob as run

    inst = as_instance(instance, "opt_glob")
    r = run(inst, **kwargs)
    return dataclasses.replace(r, order=[inst.labels[x] for x in r.order])


def agglomerative(instance, **kwargs):
    """The agglomerative heuristic (:func:`mptsearch.heuristics.agglomerative.agglomerative`,
    O(m^2 n) for ``tie_break="first"``) with its layout in labels."""
    from .heuristics.agglomerative import agglomerative as run

    inst = as_instance(instance, "agglomerative")
    r = run(inst, **kwargs)
    return dataclasses.replace(r, layout=_label_layout(inst, r.layout))


def greedy(instance):
    """The greedy heuristic (:func:`mptsearch.heuristics.greedy.greedy`) with its layout in
    labels."""
    from .heuristics.greedy import greedy as run

    inst = as_instance(instance, "greedy")
    r = run(inst)
    return dataclasses.replace(r, layout=_label_layout(inst, r.layout))


def trie_cost(instance, layout) -> int:
    """Total weight of the prefix trie of ``layout`` (one sequence of chunk labels per request,
    each a permutation of its chunks): :func:`mptsearch.trie.trie_cost`, O(sum |R_i|)."""
    from .trie import trie_cost as run

    inst = as_instance(instance, "trie_cost")
    return run(inst, _id_layout(inst, layout))


def order_cost(instance, order) -> int:
    """Trie cost of the layout one global order of the chunk labels induces
    (:func:`mptsearch.trie.order_cost`)."""
    from .trie import order_cost as run

    inst = as_instance(instance, "order_cost")
    return run(inst, _ids(inst, order, "order"))


def draw_trie(instance, layout, **kwargs) -> str:
    """The trie of ``layout`` (labels) as an indented text tree (:func:`mptsearch.draw.draw_trie`)."""
    from .draw import draw_trie as run

    inst = as_instance(instance, "draw_trie")
    return run(inst, _id_layout(inst, layout), **kwargs)

"""The heuristics by name: what ``mptsearch anneal --objective cost-ratio --heuristic NAME``
searches against, and what the experiments compare with OPT_free.

Each entry maps a name to the public function (``inst -> result``: an object with
``.layout`` in chunk ids and ``.value``, the trie cost of that layout, or a pair (layout in
the instance's labels, cost); deterministic tie-breaking; :func:`layout_and_cost` reads
either) and, when the
annealer can evaluate it, the code of its compiled twin in
:mod:`mptsearch._kernels.layouts` (``tests/test_heuristic_kernels.py`` checks the twin's
value equals the public function's cost on random instances). Registering a heuristic is one
line, ``register("name", function)``; searching it also needs a branch of
:func:`mptsearch._kernels.layouts.heuristic_cost` and its code here.
"""

from __future__ import annotations

from functools import partial
from typing import Callable, NamedTuple

from . import approximation
from .._kernels.layouts import AGGLOMERATIVE, BEST_OF, CLASS_ORDERS, GREEDY, HEAVIEST_FIRST
from ..instance import InstanceError
from .agglomerative import agglomerative
from .greedy import greedy

__all__ = ["Heuristic", "HEURISTICS", "register", "heuristic", "searchable", "layout_and_cost"]


class Heuristic(NamedTuple):
    """A registered heuristic: its public function and its kernel code (None: no twin)."""

    name: str
    function: Callable
    kernel: int | None = None


HEURISTICS: dict[str, Heuristic] = {}


def register(name: str, function: Callable, kernel: int | None = None) -> None:
    """Register ``function`` (``inst -> result`` with ``.layout`` and ``.value``) as ``name``."""
    HEURISTICS[name] = Heuristic(name, function, kernel)


register("greedy", greedy, GREEDY)
register("agglomerative", partial(agglomerative, tie_break="first"), AGGLOMERATIVE)
# the algorithms with proved factors of docs/approximation.md (interval-dp has no compiled twin)
_TWINS = {"heaviest-first": HEAVIEST_FIRST, "best-of": BEST_OF, "class-orders": CLASS_ORDERS}
for _name, _function in approximation.HEURISTICS.items():
    register(_name, _function, _TWINS.get(_name))


def heuristic(name: str) -> Heuristic:
    """The registered heuristic ``name``; :class:`~mptsearch.instance.InstanceError` if none."""
    if name not in HEURISTICS:
        raise InstanceError(f"unknown heuristic {name!r}; use one of {', '.join(HEURISTICS)}")
    return HEURISTICS[name]


def searchable() -> tuple[str, ...]:
    """Names of the heuristics the annealer can evaluate (those with a compiled twin)."""
    return tuple(h.name for h in HEURISTICS.values() if h.kernel is not None)


def layout_and_cost(inst, result) -> tuple[list[tuple[int, ...]], int]:
    """(layout in chunk ids, cost) of a heuristic's ``result``: an object with ``.layout`` (ids)
    and ``.value``, or a pair (layout in ``inst``'s labels, cost)."""
    if isinstance(result, tuple) and len(result) == 2:
        index = {lab: x for x, lab in enumerate(inst.labels)}
        layout, cost = result
        return [tuple(index[lab] for lab in seq) for seq in layout], int(cost)
    return [tuple(int(x) for x in seq) for seq in result.layout], int(result.value)

"""mptsearch: exact solvers, heuristics, search and verification for the minimum prefix trie.

Order the chunks of many prompts so that a prefix (KV) cache shares the most work ("Prefix
Sharing Is a Sorting Problem"; README.md for the command line, docs/ for each command).

The main functions are importable from the package itself; each is loaded on first use, so
``import mptsearch`` stays fast and does not load numba. They take any instance
:func:`~mptsearch.instance.parse_instance` accepts (an ``Instance``, a list of requests, a dict,
compact notation, a path) and give layouts and orders in the instance's own chunk labels
(:mod:`mptsearch.labelled`; the modules below them speak chunk ids):

>>> import mptsearch
>>> inst = mptsearch.parse_instance("012 013 023 123")
>>> mptsearch.opt_free(inst).value, mptsearch.opt_glob(inst).value
(8, 9)
>>> r = mptsearch.agglomerative(inst)
>>> mptsearch.trie_cost(inst, r.layout) == r.cost
True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> module that defines it (loaded by __getattr__ on first access)
_LAZY: dict[str, str] = {
    "Instance": "mptsearch.instance",
    "InstanceError": "mptsearch.instance",
    "parse_instance": "mptsearch.instance",
    "trie_cost": "mptsearch.labelled",
    "order_cost": "mptsearch.labelled",
    "opt_free": "mptsearch.labelled",
    "opt_glob": "mptsearch.labelled",
    "agglomerative": "mptsearch.labelled",
    "greedy": "mptsearch.labelled",
    "draw_trie": "mptsearch.labelled",
    "order_contexts": "mptsearch.serving.api",
    "OnlineLayouter": "mptsearch.serving.online",
}

__all__ = ["__version__", *_LAZY]

if TYPE_CHECKING:  # for type checkers and IDEs; at run time __getattr__ does the importing
    from .instance import Instance, InstanceError, parse_instance
    from .labelled import agglomerative, draw_trie, greedy, opt_free, opt_glob, order_cost, trie_cost
    from .serving.api import order_contexts
    from .serving.online import OnlineLayouter


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mptsearch' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

"""mptsearch: exact solvers, heuristics, search and verification for the minimum prefix trie.

Order the chunks of many prompts so that a prefix (KV) cache shares the most work ("Prefix
Sharing Is a Sorting Problem"; README.md for the command line, docs/ for each command).

The main functions are importable from the package itself; each is loaded on first use, so
``import mptsearch`` stays fast and does not load numba:

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
    "trie_cost": "mptsearch.trie",
    "order_cost": "mptsearch.trie",
    "opt_free": "mptsearch.exact.free",
    "opt_glob": "mptsearch.exact.glob",
    "agglomerative": "mptsearch.heuristics.agglomerative",
    "greedy": "mptsearch.heuristics.greedy",
    "draw_trie": "mptsearch.draw",
    "order_contexts": "mptsearch.serving.api",
    "OnlineLayouter": "mptsearch.serving.online",
}

__all__ = ["__version__", *_LAZY]

if TYPE_CHECKING:  # for type checkers and IDEs; at run time __getattr__ does the importing
    from .draw import draw_trie
    from .exact.free import opt_free
    from .exact.glob import opt_glob
    from .heuristics.agglomerative import agglomerative
    from .heuristics.greedy import greedy
    from .instance import Instance, InstanceError, parse_instance
    from .serving.api import order_contexts
    from .serving.online import OnlineLayouter
    from .trie import order_cost, trie_cost


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mptsearch' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

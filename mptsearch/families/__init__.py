"""Families of instances, one concept per module:

- :mod:`.named`: the paper's named families and random instance generators (K4^(3), L_n, the
  ratio record, S(c,k), ...); their names are importable from this package too;
- :mod:`.heuristic`: families on which a heuristic's cost / OPT_free grows without bound;
- :mod:`.online`: adversary families for online layout with a reorder window.
"""

from .named import *  # noqa: F401,F403
from .named import __all__  # noqa: F401

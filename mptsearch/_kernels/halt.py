"""A deadline and a node budget that a long compiled search checks from the inside (private).

A *halt* is a float64[4] array: the deadline (a ``time.time()`` value, inf for none), the
nodes the search may still visit (inf for no budget), the nodes left before the next clock
reading, and a flag set once the search is stopped. The search calls :func:`halted` once per
node and, when it returns True, unwinds without storing anything it had not finished: its
caller reads the flag and treats the value as *unfinished*. The clock is read once every
:data:`CLOCK_EVERY` nodes (a reading enters object mode; a node takes microseconds), so a
search stops within about a millisecond of its deadline.
"""

import math
import time
import warnings

import numpy as np
from numba import objmode
from numba.core.errors import NumbaWarning

from .._jit import njit

# the clock is read in object mode, which numba notes at compile time: the search still runs
# without the GIL between readings
warnings.filterwarnings("ignore", message="Code running in object mode", category=NumbaWarning)

__all__ = ["new_halt", "arm", "halted", "unfinished", "clock", "CLOCK_EVERY"]

CLOCK_EVERY = 128  # nodes between clock readings
DEADLINE, NODES, TICK, STOPPED = 0, 1, 2, 3


def new_halt(deadline: float = math.inf, nodes: float = math.inf) -> np.ndarray:
    """A halt for one search: stop at ``deadline`` (``time.time()`` seconds) or after ``nodes``
    nodes, whichever comes first (inf: never)."""
    return np.array([deadline, nodes, 0.0, 0.0], dtype=np.float64)


@njit(cache=True)
def clock():
    """Seconds since the epoch (``time.time``: one clock for every process and machine)."""
    with objmode(now="float64"):
        now = time.time()
    return now


@njit(cache=True)
def arm(halt, deadline, nodes):
    """Reuse ``halt`` for a new search with this deadline and node budget."""
    halt[DEADLINE] = deadline
    halt[NODES] = nodes
    halt[TICK] = 0.0
    halt[STOPPED] = 0.0


@njit(cache=True, inline="always")
def unfinished(halt):
    """Whether the search was stopped (its value is unfinished)."""
    return halt[STOPPED] != 0.0


@njit(cache=True)
def halted(halt):
    """Count one node; True (and the flag set) once the budget or the deadline is passed."""
    if halt[STOPPED] != 0.0:
        return True
    halt[NODES] -= 1.0
    if halt[NODES] < 0.0:
        halt[STOPPED] = 1.0
        return True
    if halt[DEADLINE] < np.inf:
        halt[TICK] -= 1.0
        if halt[TICK] <= 0.0:
            halt[TICK] = CLOCK_EVERY
            if clock() >= halt[DEADLINE]:
                halt[STOPPED] = 1.0
                return True
    return False

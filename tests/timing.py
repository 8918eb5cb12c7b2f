"""Time bounds that hold on a loaded machine and still fail on the bug they guard.

A test that checks "this stops soon" should prefer CPU time (:func:`cpu_seconds`): a deadline
ignored shows as CPU burnt after it, and other processes do not add to it. Where only wall time
can show the bug (a signal answered, a process gone), :func:`wall_bound` stretches a quiet
machine's bound by the run queue per core, but never to half of what the bug takes, so the
test keeps its power at any load.
"""

import os
import resource
import sys
import time


def cpu_seconds(children: bool = False) -> float:
    """CPU seconds (user + system) of this process, every thread, or of its reaped children."""
    if not children:
        return time.process_time()
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def wall_bound(quiet: float, bug: float) -> float:
    """``quiet`` seconds times the 1-minute load per core (at least 1), capped at ``bug / 2``,
    where ``bug`` is the wall time the guarded bug takes."""
    per_core = os.getloadavg()[0] / (os.cpu_count() or 1)
    return min(quiet * max(1.0, per_core), bug / 2)


def _kernels_in_process() -> int:
    """How many compiled signatures the module-level numba kernels of mptsearch hold in this
    process (compiled here or loaded from numba's cache)."""
    from numba.core.dispatcher import Dispatcher

    return sum(len(v.overloads) for name, mod in list(sys.modules.items())
               if name.startswith("mptsearch") and mod is not None
               for v in vars(mod).values() if isinstance(v, Dispatcher))


def warm_up(call, tries: int = 8) -> None:
    """Call ``call()`` until one call brings no new kernel into the process (at most ``tries``
    times), so that a timed call after it pays for neither a compilation nor a cache load.

    One warm-up call is not enough for a call with a time limit: on an empty cache its
    compilations spend the limit, the call stops early, and the next call reaches kernels the
    first never did (or waits for another process compiling them)."""
    for _ in range(tries):
        before = _kernels_in_process()
        call()
        if _kernels_in_process() == before:
            return

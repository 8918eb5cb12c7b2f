"""Time bounds that hold on a loaded machine and still fail on the bug they guard.

A test that checks "this stops soon" should prefer CPU time (:func:`cpu_seconds`): a deadline
ignored shows as CPU burnt after it, and other processes do not add to it. Where only wall time
can show the bug (a signal answered, a process gone), :func:`wall_bound` stretches a quiet
machine's bound by the run queue per core, but never to half of what the bug takes, so the
test keeps its power at any load.
"""

import os
import resource
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

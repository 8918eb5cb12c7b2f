"""Memory estimates: what a serving method needs, checked before it allocates.

Past the memory available to the process, a method is refused with a one-line
:class:`MemoryRefusal` (exit code 2 from the CLI) naming its estimate and the size it can
handle, never the out-of-memory killer. The available memory is the smallest of the machine's
``MemAvailable``, the cgroup (container) limit left, and ``MPTSEARCH_MEMORY`` if set (bytes,
or with a K/M/G suffix, e.g. ``4G``: the budget a deployment grants).

Estimates are upper estimates from the data structures' sizes (bytes per element), measured
against peak RSS on synthetic traces (``benchmarks/bench_serving_scale.py``).
"""

from __future__ import annotations

import math
import os

from ..instance import InstanceError

__all__ = ["MemoryRefusal", "available", "estimate", "check", "parse_size", "fmt"]

#: reading a JSONL trace: peak bytes per byte of file (parsing buffers, the sparse arrays)
READ_BYTES_PER_FILE_BYTE = 5
#: bytes per (distinct) chunk occurrence / per request, of the sparse methods
_SPARSE_PER_NNZ = 120
_SPARSE_PER_REQ = 150
#: the dense small-instance methods (the exact global DP) build Python sets and tuples per occurrence
_DENSE_PER_NNZ = 400
#: the peer baseline's m x m float64 matrices (distances, common counts, shifts, condensed copy)
_PEER_MATRICES = 7


class MemoryRefusal(InstanceError):
    """A method refused because it would not fit in memory (one line, with the estimate)."""


def parse_size(text: str) -> int:
    t = str(text).strip().upper().removesuffix("B").removesuffix("I")
    mult = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
    try:
        if t and t[-1] in mult:
            return int(float(t[:-1]) * mult[t[-1]])
        return int(float(t))
    except ValueError:
        raise InstanceError(f"cannot read a memory size from {text!r} (e.g. 4G, 512M)") from None


def fmt(nbytes: float) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= size:
            return f"{nbytes / size:.1f} {unit}"
    return f"{int(nbytes)} B"


def available() -> int:
    """Bytes this process may still allocate (see the module docstring)."""
    out = []
    env = os.environ.get("MPTSEARCH_MEMORY")
    if env:
        out.append(parse_size(env))
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    out.append(int(line.split()[1]) * 1024)
    except OSError:
        pass
    try:
        with open("/sys/fs/cgroup/memory.max") as fh:
            lim = fh.read().strip()
        if lim != "max":
            with open("/sys/fs/cgroup/memory.current") as fh:
                out.append(int(lim) - int(fh.read().strip()))
    except (OSError, ValueError):
        pass
    if not out:
        try:
            out.append(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        except (ValueError, OSError):
            out.append(2**40)
    return max(0, min(out))


def estimate(method: str, m: int, nnz: int, *, edges: int = 0) -> tuple[int, str]:
    """(bytes, what dominates) for ``method`` on m distinct requests with nnz occurrences."""
    if method == "peer":
        return _PEER_MATRICES * 8 * m * m, f"{_PEER_MATRICES} dense {m} x {m} float64 matrices (average linkage is quadratic)"
    if method == "global-exact":
        return _DENSE_PER_NNZ * nnz + _SPARSE_PER_REQ * m, "per-request Python sets"
    if method == "mst":
        return 40 * edges + _SPARSE_PER_NNZ * nnz, f"{edges} overlap edges"
    return _SPARSE_PER_NNZ * nnz + _SPARSE_PER_REQ * m, "sparse request-chunk arrays"


def max_requests(method: str, m: int, nnz: int, budget: int) -> int:
    """The number of requests (same mean size) that fits in ``budget`` bytes."""
    k = nnz / max(m, 1)
    if method == "peer":
        return int(math.sqrt(budget / (_PEER_MATRICES * 8)))
    per = (_DENSE_PER_NNZ if method == "global-exact" else _SPARSE_PER_NNZ) * k + _SPARSE_PER_REQ
    return int(budget / per)


def check(method: str, m: int, nnz: int, **kw) -> int:
    """Raise :class:`MemoryRefusal` if ``method`` would not fit; return the estimate."""
    need, what = estimate(method, m, nnz, **kw)
    have = available()
    if need > have:
        raise MemoryRefusal(
            f"{method} needs about {fmt(need)} for {m} distinct requests ({what}), more than the "
            f"{fmt(have)} available; it handles up to about {max_requests(method, m, nnz, have)} "
            f"requests here")
    return need

"""The compiled per-row sort of the trace reader and the layouts (``sort_rows``), in-process
wall time after a warm-up call, median of 5: typical retrieval rows (4-20 chunks), rows of 300
and one row of 70,000.

Usage: python benchmarks/bench_sort_rows.py
"""

import time

import numpy as np

from mptsearch.serving._sparse_kernels import sort_rows


def _case(rng, lens):
    lens = np.asarray(lens, dtype=np.int64)
    seq = rng.integers(0, 100_000, size=int(lens.sum())).astype(np.int32)
    indptr = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(lens, out=indptr[1:])
    return indptr, seq


def main() -> None:
    rng = np.random.default_rng(0)
    cases = {"200,000 rows of 4-20": _case(rng, rng.integers(4, 21, size=200_000)),
             "2,000 rows of 300": _case(rng, [300] * 2000),
             "one row of 70,000": _case(rng, [70_000])}
    sort_rows(*cases["2,000 rows of 300"])  # compiled or loaded from the cache first
    for name, (indptr, seq) in cases.items():
        times = []
        for _ in range(5):
            t = time.perf_counter()
            sort_rows(indptr, seq)
            times.append(time.perf_counter() - t)
        print(f"{name}: median {sorted(times)[2] * 1000:.1f} ms")


if __name__ == "__main__":
    main()

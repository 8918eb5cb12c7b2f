"""The compiled kernels of mptsearch, each evaluator written once (private).

Array-in, scalar-or-array-out functions under ``@njit``; the public solvers validate input
and call them, and so do the annealer and the enumerator:

- :mod:`.masks`: weight of a chunk mask, chunk request sets S_x, the intersection table;
- :mod:`.subset_dp`, :mod:`.blocked`, :mod:`.free`: the OPT_free DP of Theorem 1 (plain
  loop, SIMD rows with the block size chosen from the table type, value-only savings);
- :mod:`.glob`: the OPT_glob chunk-subset DP;
- :mod:`.agglomerative`: agglomerative savings with "first" tie-breaking;
- :mod:`.bounds`: the maximum spanning tree bound and the enumerator's pruning sandwich;
- :mod:`.inherited`: OPT_free lower bounds inherited along the enumerator's generation tree;
- :mod:`.workspace`: the one type of preallocated buffers.

Each kernel is tested against its slow twin in ``tests/naive.py`` (``tests/test_kernels.py``).
"""

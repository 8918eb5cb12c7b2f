"""Exhaustive isomorph-free enumeration of instance classes (``mptsearch enumerate``).

- :mod:`mptsearch.canonical` (canonical forms up to relabelling chunks) serves the tests and the annealer.
- :mod:`.generate`: compiled orderly generator of families of requests, each class member once.
- :mod:`.genbg`: optional backend shelling out to nauty's ``genbg``.
- :mod:`.evaluate`: batch evaluation (OPT_free, OPT_glob, heuristics) with certified pruning.
- :mod:`.store`: SQLite store, one atomic commit per piece; resume and merge.
- :mod:`.run`: the driver (shards, joblib, Dask).
"""

"""Encodings of MPT for general-purpose solvers (OR-tools CP-SAT, PySAT MaxSAT).

- :mod:`.glob_cpsat`: OPT_glob for any request size, as a CP-SAT model.
- :mod:`.trie_cnf`: "a layout / global order of cost <= B exists" as CNF, from the trie alone.
- :mod:`.vertex_cover`: requests of at most two chunks as vertex cover with orientations
  (CP-SAT and RC2), and plain minimum vertex cover models.

Each encoding is built by one function and solved by another.
"""

"""Independent verification: methods that share no code, witnesses rechecked from scratch.

- :mod:`.triesearch`: exact OPT_free by search over trie nodes, without Theorem 1.
- :mod:`.verify`: :func:`verify`, every applicable method on one instance, with claims; a value
  is proved when two methods that share no code agree.
- :mod:`.twomethod`: the two-method verification every search certificate goes through.
- :mod:`.satproof`: OPT_free/OPT_glob by SAT on the trie CNF, the last UNSAT proof checked.
- :mod:`.rup`: our own forward DRUP proof checker (no solver code).
- :mod:`.certify`: certificate folders (witness, CNF, proof) and their re-check.
- :mod:`.crosscheck`: campaigns over random instances; disagreements saved as files.
- :mod:`.hardness`: graph -> k=2 instance, cost = tau(G) + |E| checked by vertex-cover solvers.
"""

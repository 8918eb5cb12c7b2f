"""Independent verification: methods that share no code, witnesses rechecked from scratch.

- :mod:`.triesearch`: exact OPT_free by search over trie nodes, without Theorem 1.
- :mod:`.verify`: :func:`verify`, every applicable method on one instance, with claims.
- :mod:`.crosscheck`: campaigns over random instances; disagreements saved as files.
- :mod:`.hardness`: graph -> k=2 instance, cost = tau(G) + |E| checked by vertex-cover solvers.
"""

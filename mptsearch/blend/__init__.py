"""Beyond exact prefixes: layouts that may blend cached chunk copies (the paper's open problem 4).

:mod:`.model` states the model and prices a layout; :mod:`.exact` computes OPT_blend on small
instances; :mod:`.heuristic` lays out and prices serving traces, on the compiled node table and
mode rules of :mod:`.kernels`. docs/beyond_prefix.md holds the model, the proofs and the results.
"""

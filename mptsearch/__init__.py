"""mptsearch: exact solvers, heuristics, search and verification for the minimum prefix trie.

Order the chunks of many prompts so that a prefix (KV) cache shares the most work. See
README.md for the command line and SPEC.md for the mathematics.
"""

__version__ = "0.1.0"

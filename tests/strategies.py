"""Hypothesis strategies for random MPT instances, and how many examples a test draws."""

import os

from hypothesis import strategies as st

from mptsearch.instance import from_lists


#: with MPTSEARCH_SLOW=1 (the whole opt-in tier) every test draws all the examples it asks for;
#: ``-m slow`` alone selects the slow tests but keeps the default tier's counts
SLOW = os.environ.get("MPTSEARCH_SLOW") == "1"


def examples(n: int, default: int | None = None) -> int:
    """``n`` examples in the opt-in tier; in the default one ``default`` if given, else a third of
    them (at least 100): for the property tests whose draws cost seconds (the suite has a time
    budget)."""
    if SLOW:
        return n
    return max(100, n // 3) if default is None else min(n, default)


@st.composite
def instances(draw, max_n=7, max_m=7, max_weight=9, max_k=None):
    """A random instance: m distinct nonempty requests on n chunks, weights 1..max_weight."""
    n = draw(st.integers(1, max_n))
    k_hi = n if max_k is None else min(n, max_k)
    req = st.frozensets(st.integers(0, n - 1), min_size=1, max_size=k_hi)
    reqs = draw(st.lists(req, min_size=1, max_size=max_m, unique=True))
    used = sorted(set().union(*reqs))
    weights = {x: draw(st.integers(1, max_weight)) for x in used}
    # a random production order per request
    orders = [draw(st.permutations(sorted(r))) for r in reqs]
    return from_lists([list(o) for o in orders], weights)


@st.composite
def served(draw, max_n=7, max_m=9):
    """(weights, layout sequences in arrival order with a few repeated arrivals, cache capacity
    in tokens or None) for the cache simulators."""
    inst = draw(instances(max_n=max_n, max_m=max_m))
    rnd = draw(st.randoms(use_true_random=False))
    seqs = [tuple(rnd.sample(list(o), len(o))) for o in inst.orders]
    # repeated arrivals of the same request happen in traces
    seqs += [seqs[draw(st.integers(0, len(seqs) - 1))] for _ in range(draw(st.integers(0, 3)))]
    rnd.shuffle(seqs)
    big = max(int(inst.weights[list(s)].sum()) for s in seqs)
    cap = draw(st.one_of(st.none(), st.integers(0, 3 * big)))
    return inst, seqs, cap

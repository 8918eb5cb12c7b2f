"""steiner_layout (mptsearch.exact.closure_search) against its definition: every used set's
parent is its heaviest used proper subset (the largest mask among equally heavy ones), by the
quadratic scan the compiled containment test replaces; and its time at trace scale."""

import random
import time

from mptsearch.exact.closure_search import steiner_layout


def _slow(used, requests, weights, groups):
    def w(x):
        return sum(weights[c] for c in range(x.bit_length()) if x >> c & 1)

    order = sorted(set(used) | set(requests), key=lambda x: bin(x).count("1"))
    seq = {0: []}
    for i, v in enumerate(order):
        if v == 0:
            continue
        below = [u for u in order[:i] if u & v == u and u != v]
        p = max(below, key=lambda u: (w(u), u)) if below else 0
        extra = v & ~p
        seq[v] = seq[p] + [x for c in range(extra.bit_length()) if extra >> c & 1 for x in groups[c]]
    return [seq[r] for r in requests]


def test_steiner_layout_is_its_definition():
    rng = random.Random(0)
    for t in range(300):
        n = rng.choice([5, 8, 70, 130])  # one and several 64-bit words
        weights = [rng.randint(1, 3) for _ in range(n)]  # ties in weight: the mask breaks them
        groups = [[2 * c, 2 * c + 1] if c % 3 == 0 else [2 * c] for c in range(n)]
        reqs = list({sum(1 << c for c in rng.sample(range(n), rng.randint(1, min(n, 6))))
                     for _ in range(rng.randint(1, 30))})
        extra = [r & rng.getrandbits(n) for r in reqs for _ in range(2)]
        used = reqs + [e for e in extra if e] + ([0] if t % 3 == 0 else [])
        assert steiner_layout(used, reqs, weights, groups) == _slow(used, reqs, weights, groups), t


def test_steiner_layout_at_trace_scale_is_not_quadratic_in_python():
    # 6,000 requests of 10 chunks out of 8,000 (a trace's shape): the quadratic scan took about
    # 6 CPU s at 3,000 sets and four times that at twice as many
    rng = random.Random(1)
    n = 8000
    reqs = list({sum(1 << c for c in rng.sample(range(n), 10)) for _ in range(6000)})
    t = time.process_time()
    steiner_layout(reqs, reqs, [1] * n, [[c] for c in range(n)])
    assert time.process_time() - t < 5.0

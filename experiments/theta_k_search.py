"""The structured search of experiments/theta_k.py: orbit families scored by OPT_glob/free cost.

Every candidate is an :class:`~mptsearch.orbits.OrbitFamily` whose requests all have k chunks
(or k-1 and k with ``mixed``). Its score is certified: OPT_glob is exact (the orbit DP,
docs/theta_k.md; its order is rechecked on the trie), and the free side is the exact OPT_free DP
when m <= 18, else the cheapest of two layouts whose trie cost is computed (the agglomerative
heuristic's and the orbit-major layout's), an upper bound on OPT_free, so the ratio is a lower
bound on the family's OPT_glob/OPT_free.

The search evaluates, in this order,

1. the seeds: S(c, k) and, with ``mixed``, S+(c, k) for every c whose orbit DP fits the caps
   (the families of docs/theta_k.md; S(3, 3), S(3, 4) and S(6, 7) among them);
2. a fixed number of random families and mutations of the current one (a Metropolis-like walk
   that restarts from the best seed), drawn from a seeded generator: random orbit sizes and
   types, "sunflower shapes" (c <= 6 cores of k-1 chunks and a random set of (core,
   petal-orbit) arcs; half of them take every arc, i.e. are S(c, k)), and with ``weighted`` random orbit weights in 1..3.

The run is a function of (k, seed, evaluations, flags): budgets are counts, not seconds.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

MAX_M = 300             # requests of a candidate
MAX_EXACT_M = 18        # exact OPT_free DP up to this many requests
MAX_STATES = 150_000    # orbit DP grid
MAX_TERMS = 1 << 10     # inclusion-exclusion terms per orbit


def orbit_major_layout(fam, inst):
    """Each request lists its orbits by decreasing count taken (ties: orbit index), chunks of an
    orbit in increasing id: for S(c, k) this is "core first, then the petal"."""
    orbit = {x: j for j in range(len(fam.sizes)) for x in fam.orbit_chunks(j)}
    out = []
    for o in inst.orders:
        cnt = {}
        for x in o:
            cnt[orbit[x]] = cnt.get(orbit[x], 0) + 1
        out.append(sorted(o, key=lambda x: (-cnt[orbit[x]], orbit[x], x)))
    return out


def feasible(fam):
    """Within the caps (m, DP states, inclusion-exclusion terms per orbit)."""
    if not 2 <= fam.m <= MAX_M or math.prod(s + 1 for s in fam.sizes) > MAX_STATES:
        return False
    return all((1 << sum(1 for t in fam.types if t[j])) - 1 <= MAX_TERMS for j in range(len(fam.sizes)))


def evaluate(fam):
    """A dict with the certified score of ``fam`` (see the module docstring), or None when the
    family is outside the caps or has duplicate requests."""
    from mptsearch.exact.free import opt_free
    from mptsearch.heuristics.agglomerative import agglomerative
    from mptsearch.orbits import opt_glob_orbits
    from mptsearch.trie import order_cost, trie_cost

    if not feasible(fam):
        return None
    inst = fam.instance()
    if inst.m != fam.m:
        return None
    g = opt_glob_orbits(fam)
    if order_cost(inst, g.order) != g.value:
        raise AssertionError(f"orbit DP order does not recheck on {fam}")
    if inst.m <= MAX_EXACT_M:
        free, how = opt_free(inst).value, "exact OPT_free DP"
    else:
        agg = trie_cost(inst, agglomerative(inst).layout)
        major = trie_cost(inst, orbit_major_layout(fam, inst))
        free, how = min(agg, major), ("agglomerative layout" if agg < major else "orbit-major layout")
    return {"ratio": Fraction(g.value, free), "opt_glob": g.value, "free_cost": free, "free_method": how,
            "free_exact": inst.m <= MAX_EXACT_M, "n": fam.n, "m": fam.m, "sizes": list(fam.sizes),
            "types": [list(t) for t in fam.types], "weights": list(fam.weights)}


def seeds(k, mixed=False, max_cores=19):
    """S(c, k) (and S+(c, k) with ``mixed``) for c = 2, 3, ..., max_cores while feasible."""
    from mptsearch.families import sunflowers_orbits

    out = []
    for c in range(2, max_cores + 1):
        fams = [(f"S({c},{k})", sunflowers_orbits(c, k))]
        if mixed:
            fams.append((f"S+({c},{k})", sunflowers_orbits(c, k, with_cores=True)))
        fams = [(name, f) for name, f in fams if feasible(f)]
        if not fams:
            break
        out += fams
    return out


def _vectors(sizes, total):
    out = [()]
    for s in sizes:
        out = [v + (x,) for v in out for x in range(s + 1)]
    return [v for v in out if sum(v) == total]


def random_family(rng, k, mixed=False, weighted=False):
    """A random candidate: half the time a sunflower shape, else random orbits and types."""
    from mptsearch.instance import InstanceError
    from mptsearch.orbits import OrbitFamily

    if rng.random() < 0.5:
        c, s, p = rng.randint(2, 6), k - 1, (1.0 if rng.random() < 0.5 else 0.7)
        arcs = [(x, y) for x in range(c) for y in range(c) if x != y and rng.random() < p]
        types = [tuple(s if i == x else (1 if i == y else 0) for i in range(c)) for x, y in arcs]
        if mixed:
            types += [tuple(s if i == x else 0 for i in range(c)) for x in range(c) if rng.random() < 0.5]
        sizes = (s,) * c
    else:
        r = rng.randint(2, 4)
        sizes = tuple(rng.randint(1, k + 1) for _ in range(r))
        pool = _vectors(sizes, k) + (_vectors(sizes, k - 1) if mixed else [])
        if len(pool) < 2:
            return None
        types = rng.sample(pool, min(len(pool), rng.randint(2, 8)))
    weights = tuple(rng.randint(1, 3) for _ in sizes) if weighted else None
    try:
        return OrbitFamily(sizes=sizes, types=tuple(types), weights=weights)
    except InstanceError:
        return None


def mutate(rng, fam, k, mixed=False, weighted=False):
    """One local change: an orbit size +-1, a type added or removed, or (``weighted``) one
    orbit weight +-1."""
    from mptsearch.instance import InstanceError
    from mptsearch.orbits import OrbitFamily

    sizes, types, weights = list(fam.sizes), list(fam.types), list(fam.weights)
    move = rng.randrange(4 if weighted else 3)
    if move == 0:
        j = rng.randrange(len(sizes))
        sizes[j] = max(1, sizes[j] + rng.choice((-1, 1)))
        types = [t for t in types if all(v <= s for v, s in zip(t, sizes))]
    elif move == 1:
        pool = _vectors(sizes, k) + (_vectors(sizes, k - 1) if mixed else [])
        pool = [t for t in pool if t not in types]
        if pool:
            types.append(rng.choice(pool))
    elif move == 2 and len(types) > 1:
        types.pop(rng.randrange(len(types)))
    elif move == 3:
        j = rng.randrange(len(weights))
        weights[j] = max(1, weights[j] + rng.choice((-1, 1)))
    try:
        return OrbitFamily(sizes=tuple(sizes), types=tuple(types), weights=tuple(weights))
    except InstanceError:
        return None


def search(k, *, seed, evaluations, mixed=False, weighted=False, max_cores=19):
    """The search at request size k (seeds with at most ``max_cores`` cores, then
    ``evaluations`` random or mutated families). Returns a dict: ``best`` (the evaluate() dict of the
    best family, with ``found_by``), ``best_seed`` (the best seed's), ``seeds`` (name and
    ratio of each seed), ``evaluations`` (random and mutated families scored)."""
    rng = random.Random(seed * 1000 + k)
    best, best_seed, seed_rows, start = None, None, [], None
    for name, fam in seeds(k, mixed, max_cores):
        res = evaluate(fam)
        if res is None:
            continue
        res["found_by"] = name
        seed_rows.append({"family": name, "ratio": float(res["ratio"]), "opt_glob": res["opt_glob"],
                          "free_cost": res["free_cost"], "free_method": res["free_method"]})
        if best_seed is None or res["ratio"] > best_seed["ratio"]:
            best_seed, start = res, fam
    best = best_seed
    cur, cur_val, done, tries = start, best_seed, 0, 0
    while done < evaluations and tries < 50 * evaluations:
        tries += 1
        fresh = cur is None or rng.random() < 0.2
        fam = random_family(rng, k, mixed, weighted) if fresh else mutate(rng, cur, k, mixed, weighted)
        if fam is None:
            continue
        res = evaluate(fam)
        if res is None:
            continue
        done += 1
        res["found_by"] = "random family" if fresh else "mutation"
        if cur_val is None or res["ratio"] >= cur_val["ratio"] or rng.random() < 0.05:
            cur, cur_val = fam, res
        if best is None or res["ratio"] > best["ratio"]:
            best = res
    return {"k": k, "best": best, "best_seed": best_seed, "seeds": seed_rows, "evaluations": done,
            "mixed": mixed, "weighted": weighted}

"""Named families and random instance generators (the paper, Sections 4 and 5).

- :func:`k4_3`: the complete 3-uniform hypergraph on four chunks, OPT_free 8 vs OPT_glob 9.
- :func:`leave_one_out`: L_n, request i = all n chunks but i; OPT_free is the minimum external
  path length of a binary tree with n leaves.
- :func:`ratio_record`: the paper's k=4 record, OPT_free 14 vs OPT_glob 21.
- :func:`two_sunflowers`: D_k, two cores of k-1 chunks, each completed by every chunk of the
  other core and one extra chunk; OPT_free 4k-2, OPT_glob (k-1)(k+3) (docs/theta_k.md).
- :func:`sunflowers`: S(c, k), c cores of k-1 chunks, each completed by every chunk of every
  other core; the ratio tends to k/2 as c grows (docs/theta_k.md).
- :func:`random_instance`: m distinct requests of size k (or a size range) on n chunks.

The symmetric families also exist as :class:`~mptsearch.orbits.OrbitFamily` objects
(``*_orbits``), whose OPT_glob the orbit DP computes at any size; ``.instance()`` of each
is the same instance as the plain function returns.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from ..instance import Instance, InstanceError, from_compact, from_lists
from ..orbits import OrbitFamily

__all__ = ["k4_3", "leave_one_out", "ratio_record", "random_instance", "min_external_path_length",
           "two_sunflowers", "two_sunflowers_orbits", "two_sunflowers_layout", "sunflowers",
           "sunflowers_orbits", "sunflowers_layout", "leave_one_out_orbits", "k4_3_orbits"]


def k4_3() -> Instance:
    """K4^(3) = ``012 013 023 123``: OPT_free 8, OPT_glob 9 (the paper's minimal gap)."""
    return from_compact("012 013 023 123")


def ratio_record() -> Instance:
    """The paper's annealed k=4 record on 7 chunks: OPT_free 14, OPT_glob 21 (ratio 1.5)."""
    return from_compact("0145 0236 1236 1245 1345 1456 2346 2356")


def leave_one_out(n: int) -> Instance:
    """L_n: n requests on n chunks, request i holds every chunk but i.

    OPT_free(L_n) = minimum external path length of a binary tree with n leaves; a global
    order and level-wise greedy both pay (n-1) + n(n-1)/2. (L_1 would be one empty request,
    of cost 0, which is not an instance: n >= 2.)
    """
    if n < 2:
        raise InstanceError("leave_one_out needs n >= 2 (L_1 is a single empty request)")
    return from_lists([[x for x in range(n) if x != i] for i in range(n)])


def min_external_path_length(n: int) -> int:
    """Minimum external path length of a binary tree with n leaves (balanced tree):
    with q = floor(log2 n), it is n*q + 2*(n - 2^q). OEIS A003314; A001855 shifted by n-1."""
    if n < 1:
        raise ValueError("n >= 1")
    q = n.bit_length() - 1
    return n * q + 2 * (n - (1 << q))


def k4_3_orbits() -> OrbitFamily:
    """K4^(3) as an orbit family: one orbit of 4 chunks, requests take 3 of them."""
    return OrbitFamily(sizes=(4,), types=((3,),), names=("all",))


def leave_one_out_orbits(n: int) -> OrbitFamily:
    """L_n as an orbit family: one orbit of n chunks, requests take n-1 of them."""
    if n < 2:
        raise InstanceError("leave_one_out needs n >= 2 (L_1 is a single empty request)")
    return OrbitFamily(sizes=(n,), types=((n - 1,),), names=("all",))


def two_sunflowers_orbits(k: int) -> OrbitFamily:
    """D_k: orbits z = {0}, A = {1..k-1}, B = {k..2k-2}; requests A + {u} for u in B + {z}
    and B + {u} for u in A + {z}: n = 2k-1 chunks, m = 2k requests of size k (k >= 3; at
    k = 2 two requests coincide). At k = 4 it is the paper's record up to relabelling."""
    if k < 3:
        raise InstanceError(f"two-sunflowers needs k >= 3 (at k={k} requests coincide)")
    s = k - 1
    return OrbitFamily(sizes=(1, s, s), types=((0, s, 1), (1, s, 0), (0, 1, s), (1, 0, s)),
                       names=("z", "A", "B"))


def two_sunflowers(k: int) -> Instance:
    """D_k as an instance (see :func:`two_sunflowers_orbits`; requests in type order:
    A + {b} for b in B, A + {z}, B + {a} for a in A, B + {z})."""
    return two_sunflowers_orbits(k).instance()


def two_sunflowers_layout(inst: Instance) -> list[list[int]]:
    """The free layout of D_k of cost 4k-2: each request lists its core first (in increasing
    chunk order), then its petal, so each core is one shared path with k leaves."""
    k = max(len(o) for o in inst.orders)
    core_a, core_b = set(range(1, k)), set(range(k, 2 * k - 1))
    out = []
    for o in inst.orders:
        core = core_a if core_a <= set(o) else core_b
        out.append(sorted(core) + [x for x in o if x not in core])
    return out


def sunflowers_orbits(c: int, k: int, *, with_cores: bool = False) -> OrbitFamily:
    """S(c, k): c cores of k-1 chunks (orbit j = core j); for every core X and every chunk u of
    another core, the request X + {u}: n = c(k-1), m = c(c-1)(k-1) requests of size k.

    ``with_cores`` adds each core alone as a request (sizes k-1 and k): S+(c, k). The free
    layout keeps its cost (a core ends on its own path) while every global order pays more;
    S+(2, 4) is the exhaustive maximum of sizes 3-4 on 6 chunks (results/theta_k)."""
    if c < 2 or k < 2:
        raise InstanceError(f"sunflowers needs c >= 2 cores and k >= 2, got c={c}, k={k}")
    if c == 2 and k == 2:
        raise InstanceError("sunflowers with c=2, k=2 has two equal requests; use k >= 3")
    s = k - 1
    types = tuple(tuple(s if i == x else (1 if i == y else 0) for i in range(c))
                  for x in range(c) for y in range(c) if x != y)
    if with_cores:
        types += tuple(tuple(s if i == x else 0 for i in range(c)) for x in range(c))
    return OrbitFamily(sizes=(s,) * c, types=types, names=tuple(f"C{j}" for j in range(c)))


def sunflowers(c: int, k: int, *, with_cores: bool = False) -> Instance:
    """S(c, k) (or S+(c, k)) as an instance (see :func:`sunflowers_orbits`)."""
    return sunflowers_orbits(c, k, with_cores=with_cores).instance()


def sunflowers_layout(inst: Instance, c: int) -> list[list[int]]:
    """The free layout of S(c, k) and S+(c, k) of cost c^2 (k-1): core first, then the petal."""
    k = max(len(o) for o in inst.orders)
    s = k - 1
    cores = [set(range(j * s, (j + 1) * s)) for j in range(c)]
    out = []
    for o in inst.orders:
        core = next(C for C in cores if C <= set(o))
        out.append(sorted(core) + [x for x in o if x not in core])
    return out


def random_instance(n: int, m: int, k: int | tuple[int, int], *, weights: tuple[int, int] = (1, 1),
                    seed: int | np.random.Generator | None = None) -> Instance:
    """m distinct random requests on n chunks.

    Parameters
    ----------
    n : int
        Chunks in the universe (labels 0..n-1; chunks no request uses are dropped).
    m : int
        Number of distinct requests.
    k : int or (lo, hi)
        Request size, or an inclusive range drawn uniformly per request.
    weights : (lo, hi)
        Inclusive range of the integer chunk weights, uniform (``(1, 1)``: unit weights).
    seed : int or numpy Generator
    """
    from ..classes import FamilyClass

    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    family = FamilyClass.of(n, k, m, weights)
    problems = family.problems()
    if problems:
        raise InstanceError(problems[0])
    (lo, hi), capacity = family.k, family.capacity
    seen, reqs = set(), []
    if capacity <= 4 * m:
        pool = [c for s in range(lo, hi + 1) for c in combinations(range(n), s)]
        pick = rng.choice(len(pool), size=m, replace=False)
        reqs = [list(pool[p]) for p in pick]
    else:
        while len(reqs) < m:
            size = int(rng.integers(lo, hi + 1))
            req = tuple(sorted(int(x) for x in rng.choice(n, size=size, replace=False)))
            if req not in seen:
                seen.add(req)
                reqs.append(list(req))
    w = rng.integers(weights[0], weights[1] + 1, size=n)
    return from_lists(reqs, {x: int(w[x]) for x in range(n)})


# ---- named families with their exact OPT_glob and a free layout (``mptsearch family``) ----------

FAMILY_NAMES = ("two-sunflowers", "sunflowers", "leave-one-out", "k4-3", "record")


#: the most request entries (sum of |R_i|) :func:`family_summary` builds: two-sunflowers at
#: k = 1000 (2,000,000 entries) takes about 8 s and 0.4 GB; k = 3000 took over a minute and 3 GB
MAX_FAMILY_ENTRIES = 2_000_000


def family_entries(name: str, k: int, cores: int = 3, with_cores: bool = False) -> int:
    """The sum of the request sizes of family ``name`` at request size ``k``, from its
    definition (nothing is built): D_k has 2k requests of k chunks, S(c, k) c(c-1)(k-1) of k
    (plus c cores of k-1 with ``with_cores``), L_{k+1} k+1 of k; k4-3 and record are small."""
    if name == "two-sunflowers":
        return 2 * k * k
    if name == "sunflowers":
        return cores * (cores - 1) * (k - 1) * k + (cores * (k - 1) if with_cores else 0)
    if name == "leave-one-out":
        return (k + 1) * k
    return 0


def _check_family_size(name: str, k: int, cores: int, with_cores: bool) -> None:
    entries = family_entries(name, k, cores, with_cores)
    if entries > MAX_FAMILY_ENTRIES:
        lo, hi = 1, k  # the largest k within the limit (entries grow with k)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if family_entries(name, mid, cores, with_cores) <= MAX_FAMILY_ENTRIES else (lo, mid - 1)
        raise InstanceError(f"{name} at k={k} has {entries:,} request entries, more than {MAX_FAMILY_ENTRIES:,} "
                            f"(minutes and gigabytes); k up to {lo} here")


def family_summary(name: str, k: int | None = None, *, cores: int = 3, with_cores: bool = False,
                   max_free_m: int = 16) -> dict:
    """A named family with exact OPT_glob, an optimal global order, a free layout and its cost.

    Parameters
    ----------
    name : one of :data:`FAMILY_NAMES`
    k : int
        Request size (leave-one-out: n = k+1 chunks; k4-3 and record have fixed k).
    cores : int
        Number of cores c of ``sunflowers``.
    with_cores : bool
        ``sunflowers`` only: add each core alone as a request (S+(c, k), sizes k-1 and k).
    max_free_m : int
        Run the exact OPT_free DP (O(3^m)) when the family has at most this many requests.

    Returns
    -------
    dict
        ``requests``, ``opt_glob`` and ``method``, ``order`` (rechecked: its trie cost is
        ``order_cost``), ``free_layout``, ``free_cost`` (its trie cost) and ``free_method``,
        ``free_lower_bound`` with its source, ``opt_free`` when proved or computed (else None),
        ``ratio`` = opt_glob / free_cost (a lower bound on OPT_glob/OPT_free; exact when
        ``opt_free`` is not None), ``seconds`` per step.
    """
    import time

    from ..orbits import opt_glob_orbits
    from ..trie import order_cost, trie_cost

    if name not in FAMILY_NAMES:
        raise InstanceError(f"unknown family {name!r}; choose from {', '.join(FAMILY_NAMES)}")
    fixed = {"k4-3": 3, "record": 4}
    if name in fixed:
        if k is not None and k != fixed[name]:
            raise InstanceError(f"{name} has k={fixed[name]}, not {k}")
        k = fixed[name]
    if k is None:
        raise InstanceError(f"{name} needs --k")
    if with_cores and name != "sunflowers":
        raise InstanceError("--with-cores applies to the sunflowers family only")
    _check_family_size(name, k, cores, with_cores)
    seconds: dict = {}
    t = time.perf_counter()
    fam, layout, lower, lower_src = None, None, None, None
    if name == "two-sunflowers":
        fam = two_sunflowers_orbits(k)
        inst = fam.instance()
        layout, free_method = two_sunflowers_layout(inst), "explicit layout: core first, then the petal"
        lower, lower_src = 4 * k - 2, "docs/theta_k.md, Lemma 2 (hierarchy count)"
    elif name == "sunflowers":
        fam = sunflowers_orbits(cores, k, with_cores=with_cores)
        inst = fam.instance()
        layout, free_method = sunflowers_layout(inst, cores), "explicit layout: core first, then the petal"
        if k >= 3:
            lower = cores * cores * (k - 1) - max(0, 2 * cores - 2 - (k - 1))
            lower_src = "docs/theta_k.md, Lemma 5 (hierarchy count)" + (
                "; adding requests never lowers OPT_free" if with_cores else "")
    elif name == "leave-one-out":
        fam = leave_one_out_orbits(k + 1)
        inst = fam.instance()
        lower, lower_src = min_external_path_length(k + 1), "paper, Section 5 (minimum external path length)"
    elif name == "k4-3":
        fam = k4_3_orbits()
        inst = fam.instance()
    else:
        inst = ratio_record()
    seconds["build"] = time.perf_counter() - t

    t = time.perf_counter()
    if fam is not None:
        g = opt_glob_orbits(fam)
        glob_value, order = g.value, g.order
        method = f"orbit DP over {g.states} orbit-count states (mptsearch.orbits)"
    else:
        from ..exact.glob import opt_glob
        g = opt_glob(inst)
        glob_value, order = g.value, list(g.order)
        method = "subset DP over chunks (mptsearch.exact.glob)"
    seconds["opt_glob"] = time.perf_counter() - t

    t = time.perf_counter()
    opt_free_value, opt_free_src = None, None
    if inst.m <= max_free_m:
        from ..exact.free import opt_free
        f = opt_free(inst)
        layout, free_method = f.layout, "exact OPT_free DP (mptsearch.exact.free)"
        opt_free_value, opt_free_src = f.value, "exact OPT_free DP"
    elif layout is None and name == "leave-one-out":
        from ..bounds import balanced_hierarchy
        layout = balanced_hierarchy(inst, range(inst.m)).layout(inst)
        free_method = "balanced hierarchy over the requests"
    elif layout is None:
        raise InstanceError(f"{name} at k={k} has {inst.m} requests: no free layout without the exact DP")
    free_cost = trie_cost(inst, layout)
    if opt_free_value is None and lower is not None and free_cost == lower:
        opt_free_value, opt_free_src = free_cost, f"layout cost equals the lower bound ({lower_src})"
    seconds["free_layout"] = time.perf_counter() - t

    t = time.perf_counter()
    rechecked = order_cost(inst, order)
    seconds["recheck"] = time.perf_counter() - t
    return {
        "family": name, "k": k, "cores": cores if name == "sunflowers" else None,
        "with_cores": with_cores if name == "sunflowers" else None,
        "n": inst.n, "m": inst.m,
        "requests": inst.label_orders(), "opt_glob": glob_value, "method": method,
        "order": [inst.labels[x] for x in order], "order_cost": rechecked,
        "free_layout": inst.label_orders(layout), "free_cost": free_cost, "free_method": free_method,
        "free_lower_bound": lower, "free_lower_bound_source": lower_src,
        "opt_free": opt_free_value, "opt_free_source": opt_free_src,
        "ratio": glob_value / free_cost, "ratio_exact": opt_free_value is not None,
        "seconds": {key: round(v, 4) for key, v in seconds.items()},
    }

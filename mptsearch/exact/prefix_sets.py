"""Exact unit-weight OPT_free on small universes by a search over prefix-set families.

With unit weights, OPT_free depends on the universe (n <= 10 chunks) rather than on 3^m:

**Lemma.** Call a family P of chunk sets *accessible* when it contains the empty set and
every nonempty member S has a member S - {x} (x in S). For a family F of requests with
unit weights, OPT_free(F) = min |P| - 1 over accessible families P containing F.

*Proof.* (<=) Given P, give every nonempty S in P one parent S - {x} in P (say the first
one); following parents from any S reaches the empty set, so S gets a chunk order
(the chunks removed, last removed first). The orders of the members of P are
prefix-consistent: the order of S extends the order of its parent. Lay out each request R
by the order of R in P: every trie node is a prefix of some request's order, hence the order
of some member of P, and distinct nodes are distinct orders of distinct members (a member
has one order). So the trie has at most |P| - 1 nodes, each of weight 1.
(>=) Take an optimal trie and label each node by the *set* of chunks on its path. These
labels together with the empty set form an accessible family (a node's parent carries its
set minus the node's chunk) that contains every request (the node where it ends), and it has
at most cost + 1 members whether or not two labels coincide; so min |P| - 1 <= OPT_free.
(In fact no two nodes of an optimal trie carry the same set: two such nodes are at the same
depth, and moving the requests through one onto the other maps each node path(v).alpha below
it one to one onto path(u).alpha, and v itself disappears.) QED.

(The referee of this lemma suggested this direct form of (>=), and the lines below on the
recursion and the level bound.)

Sorting P by size, P_j (its j-sets) must contain the j-chunk requests F_j and, for j < max,
cover P_{j+1}: every member of P_{j+1} contains a member of P_j. Conversely any such chain of
levels is accessible, and sets larger than the largest request k can be deleted (accessibility
constrains a family only downwards), so P_k = F_k in a least P. Minimising over every cover at
each level (a nested DP, nothing greedy) gives

    cost_j(U) = |U| + min over covers Q of U by (j-1)-sets of cost_{j-1}(Q ∪ F_{j-1}),

cost_1(U) = |U|, and OPT_free(F) = cost_k(F_k) for the largest request size k. Level 2 is a
scan over the 2^n chunk sets (cost_2(U) = |U| + the least chunk set meeting every 2-set of
U, a vertex cover: for graphs this is C2's tau + m); levels >= 3 are a depth-first branch
and bound over covers (:func:`mptsearch._kernels.prefix_sets.solve_level`), cut by
cost_{j-1}(Q) + (a packing of the still uncovered sets), which is sound since adding a set to
Q raises cost_{j-1} by at least one. The search is exponential in the worst case (it is
NP-hard already for k = 2), but it grows with the universe's C(n, j) possible sets, not with
3^m: every 3- and 4-uniform family on 7 chunks, all 35 requests included, takes
milliseconds (docs/enumerate.md has the measured times).

The lemma is also the *level lower bound*: following parents down from a request R with
|R| >= j reaches a member of P_j inside R (R itself when |R| = j), so |P_j| >= cover_j(F), the
least number of j-sets such that every request with at least j chunks contains one, and
OPT_free >= sum_j cover_j (sound for mixed sizes; :func:`level_bound` computes it for uniform
families, and is not always tight: L_6 has bound 15 and OPT_free 16); for K4^(3) it is
4 + 2 + 2 = 8 = OPT_free.

**Past 7 chunks** (:mod:`mptsearch._kernels.prefix_wide`; 8-10 chunks, C(10, 5) = 252 sets
per level in four 64-bit words) the search is the same, with these additions, each sound:

- *one table of cost_j(U) for the whole search* (keyed by (j, U), exact values and "at least
  v" values): cost_j(U) depends on U and the requests only, not on the cover above that asked
  for it. The table also keeps an optimal cover Q with each exact value.
- *a child costs at least its parent plus one*: the nodes of the level-j search add one
  (j-1)-set s at a time to Q, s ∉ Q ∪ F_{j-1} (the requests of j-1 chunks are in Q from the
  start and never added again), and cost_{j-1}(Q ∪ {s}) >= cost_{j-1}(Q) + 1 (every cover of
  Q ∪ {s} covers Q, and |Q ∪ {s}| = |Q| + 1). This is passed down as a floor: the inner
  search stops at the first cover attaining it (exact, as floor <= the value). And when s
  contains a member of an optimal cover Q' of Q (or a (j-2)-chunk request), equality holds
  with no search: Q' ∪ F_{j-2} covers Q ∪ {s} too, so cost_{j-1}(Q ∪ {s}) <= |Q| + 1 +
  cost_{j-2}(Q' ∪ F_{j-2}) = cost_{j-1}(Q) + 1. (The table's Q' leaves the forced sets out;
  the check takes them with it, as the argument needs.)
- *three more bounds on the sets still to add* at a node with chosen sets Q and uncovered
  j-sets X (the top level and the levels read back only, where they pay): (a) |Q| plus the
  sets to add is at least cover_{j-1}(F) for the largest request size j (the level bound's
  term: the final family covers F; here Q includes F_{j-1}; uniform families only, like the
  floor below); (b) the *degree bound*: if the usable (j-1)-sets (those not forced and not
  excluded by an earlier sibling branch of the search) lie in d_1 >= d_2 >= ... members of X,
  at least the least t with d_1 + ... + d_t >= |X| are still
  needed (each member of X must lie above one of them); (c) the *fractional degree bound*
  below. Each raises the packing term of the cut above, which stays sound by the same
  argument (cost_{j-1} grows by at least one per set added).
- *the level bound of every sub-problem* (the calls below the top, levels j >= 3):
  cost_j(U) is the least |U| + |P_{j-1}| + ... + |P_1| over chains in which P_{j-1} covers U,
  each P_i covers P_{i+1} and each P_i holds the forced i-sets F_i (the recursion above,
  unrolled; without the last condition this would undercount when there are shorter requests,
  e.g. U = {012} with a forced pair {34} costs 5, not 3); every P_i then covers U (follow
  the covers down from a member of U), so cost_j(U) >= |U| + sum_{i < j} cover_i(U) (the
  lemma's level bound, applied to U; sound for mixed sizes too, forced sets or not, since
  each P_i covers U whatever else it holds). A call whose cutoff this reaches returns at once
  (remembered as "at least"); otherwise it is the call's floor (the search stops at the
  first cover attaining it), and its terms bound the sets still to add at level j-1 and the
  levels under it, as (a) and ``lowrest`` below do at the top. Computed by the exact set
  cover of :func:`mptsearch._kernels.prefix_wide.cover_number` (small: U has tens of
  members). On 5-uniform 9-chunk families it cuts the nodes per top-level node about
  tenfold.
- *the fractional degree bound* (in the top-level search and in the cover-number search):
  with X the members still to cover and, for a usable set s, d(s) the members of X above s,
  let D(t) = max d(s) over the usable s inside t. Any usable family A covering X has
  |A| >= sum_{t in X} 1 / D(t): give each t one member s of A inside it; s receives at most
  d(s) members, each contributing 1 / D(t) <= 1 / d(s), so the sum is at most
  sum_{s in A} d(s) / d(s) = |A|. Rounded up (the floating sum of at most 252 terms, less
  1e-9, so the rounding never lifts it past the exact sum's ceiling). On the 5-uniform m = 63
  families it makes the exact cover_4 (20) finish within ``COVER_NODES``, and it cuts the
  top-level nodes fivefold.
- *the levels below, at the top* (uniform families only; ``lowrest`` in the kernel): the
  levels under k-1 hold at least sum_{i < k-1} cover_i(F) sets whatever Q is (each is a term
  of the level bound), so a top-level node whose |Q| plus that sum already reaches what the
  incumbent leaves is cut. The top level starts with the whole level bound as its floor.
  For k >= 4 the sum is replaced by the *window bound* below, which is never smaller.

**The window bound (proved).** For a k-uniform F and b < k, let W_b(F) be the least
|P_1| + ... + |P_b| over families P_i of i-sets such that every request contains a member of
P_b and, for i < b, every member of P_{i+1} contains a member of P_i. In an accessible family
P containing F the levels P_1..P_b are such a chain: a member of P_{i+1} contains its parent,
a member of P_i; and following parents down from a request R passes through P_{k-1}, ...,
P_b, each inside R. So |P_1| + ... + |P_b| >= W_b(F) and, with |P_{k-1}| >= cover_{k-1}(F),

    OPT_free(F) >= m + cover_{k-1}(F) + W_{k-2}(F),

where W_{k-2}(F) >= sum_{i < k-1} cover_i(F) (each P_i of the chain covers F) and is often
larger: 19 against 3 + 5 + 9 = 17 on the 5-uniform 9-chunk families with m = 63 of
benchmarks/bench_dense9.py (the levels under the top pay for the top's minimum covers),
which turns a search that did not end in 340 CPU s into one of under a minute. The levels
under a fixed P_b cost cost_b(P_b) - |P_b| at least (the recursion), and at most that (it is
attained), so W_b(F) = min over P_b covering F of cost_b(P_b): the top-level search with b-sets
in place of (k-1)-sets (:func:`window_tables`: the (k-2)-sets inside each k-set, the k-sets
above each (k-2)-set). :func:`window_lower_bound` asks it, with cutoff m + c, whether a chain
of cost below c exists, for c = the sum of the lower bounds on the cover numbers + 1, + 2, ...
(``covs``: exact cover numbers where their search finished): each "no" is a
finished search, proving W >= c; the first "yes" (at c = the proved value + 1) makes it exact;
a search stopped by its node budget (``WINDOW_NODES``, the steps together) leaves the last
proved value. Inside the top-level search the levels under k-1 hold at least W_{k-2}(F) sets
whatever Q is, so it replaces the sum of cover numbers in ``lowrest`` and in the floor.

- *cover numbers bounded, not computed* (uniform families, k >= 3): the level bound's terms
  enter the search only as lower bounds (the floor: the search stops at the first family
  attaining it, optimal whenever floor <= OPT_free; ``lowrest`` and the term (a) above: each
  cut compares a lower bound with what the incumbent leaves), so any lower bound on
  cover_i(F) may replace it. :func:`cover_lower_bound` gives the exact set cover when a search
  of ``COVER_NODES`` nodes finishes, else the *averaging bound* below.
- *a starting upper bound* (when a first search of ``QUICK_NODES`` nodes, which keeps the
  cost table it filled, has not finished): the top-level search is given, as its cutoff, the cost of an
  accessible family found by the *level program* below; it returns min(cutoff, OPT_free) and a
  cover attaining any value under the cutoff, so a returned value equal to the cutoff proves
  the program's family optimal (and a family whose cost meets the floor ends the search
  before it starts).

**The averaging bound (proved).** Let U be a family of j-sets with union V, |V| = v, and
i < j. A least family Q of i-sets such that every member of U contains one has each member
inside a member of U (a member inside none covers nothing, so a least cover has none), so
inside V; this is what makes the count below exact. For a chunk x of V, write Q - x for the
members of Q not holding x and U - x for the members of U not holding x (whole members
left out, not x removed from each): Q - x serves U - x, since such a member contains some q
of Q, and q does not hold x. So |Q - x| >= cover_i(U - x). Each q misses exactly v - i
chunks of V, so sum over x in V of |Q - x| = (v - i) |Q|, and

    cover_i(U) >= ceil( sum_{x in V} cover_i(U - x) / (v - i) )    (v >= j > i),

with any lower bound in place of each cover_i(U - x) (computed the same way: the union of
U - x lacks x, so the recursion ends), and cover_i(U) >= 1 for nonempty U. All 126 4-sets of
9 chunks: 9 T(8,4,3) / 6 = 9 * 20 / 6 = 30 (the exact searches on the 8-chunk subfamilies
finish and give T(8,4,3) = 20; stopped at 7 chunks, T(7,4,3) = 12 would still give 20 and
30), the cover whose exact search had not finished in 3 minutes; likewise 9 * 7 / 7 = 9 pairs and ceil(9 * 5 / 8) = 6 chunks, a level bound of
126 + 30 + 9 + 6 = 171.

**The level program (each 0/1 point is an accessible family).** A 0/1 variable y_S for every
chunk set S of fewer than k chunks and for every request (fixed at 1), the objective sum y_S,
and for every S of at least 2 chunks and every i < |S| the row y_S <= sum of y_T over the
i-subsets T of S. The rows with i = |S| - 1 say that a chosen S has a chosen S - {x} (a
singleton has the empty set), so the chosen sets with the empty set form an accessible family
containing F, of cost sum y_S = |P| - 1 >= OPT_free; the rows with smaller i hold in every
accessible family (S's parents lead down to the empty set through one set of each size) and
only tighten the program's LP. Conversely every accessible family containing F, its sets of
more than k chunks and its non-request k-sets dropped (accessibility constrains a family only
downwards), is a 0/1 point, so the program's optimum is OPT_free (checked against the DP in
the tests); it is used here for its incumbent only (HiGHS, one thread, at most 2 s wall or a
quarter of the time left), which is rebuilt as a family and checked to be accessible and to
hold every request before its cost is used.

Measured (docs/exact.md, benchmarks/bench_closure.py --suite dense): random 4-uniform
families on 8 chunks, every m <= 70, at most 6.7 CPU s (medians under 1 s except at m = 65,
where the level bound is one or two below OPT_free; measured before the bounded covers and
the start); on 9 chunks (benchmarks/bench_dense9.py) 4-uniform families with m = 63 in
2.3-15.8 CPU s (3 of 3) and all 126 4-sets in 2.2 CPU s, the 5-uniform ones (m = 63, and all
126 5-sets) not within 60 CPU s. :func:`prefix_sets_apply` uses it
on 8-10 chunks from m = 17 for requests of at most 5 chunks, the sizes measured.

Unit weights only (a weighted node costs its last chunk's weight, which depends on the
parent chosen; the lemma then needs another argument, not made here): weighted instances are
refused.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..instance import Instance, InstanceError

__all__ = ["PrefixSetResult", "PrefixSetsUnfinished", "opt_free_prefix_sets", "level_bound", "prefix_sets_apply",
           "cover_lower_bound", "window_lower_bound", "level_program_family", "is_accessible", "COVER_NODES",
           "WINDOW_NODES",
           "MAX_N", "NARROW_N", "PS_FROM", "PS_FROM_SMALL_K", "PS_FROM_WIDE", "WIDE_K"]

NARROW_N = 7  # C(7, j) <= 35 sets per level: one 64-bit mask per family of j-sets
MAX_N = 10    # 8-10 chunks: C(10, j) <= 252 sets per level, four 64-bit words (``_kernels/prefix_wide.py``)
# From these m on the search beats the subset DP of Theorem 1 (medians per member on random
# 3- and 4-uniform families on 7 chunks, docs/enumerate.md): m >= 10 when no request has more
# than 3 chunks, m >= 15 otherwise (sparse 4-uniform families have many covers to try).
PS_FROM, PS_FROM_SMALL_K = 15, 10
# On 8-10 chunks the search replaces the subset DP from m = 17 (the annealer's DP tables stop
# at m = 16); with requests of <= 4 chunks it is the faster there, with 5 about 10x slower at
# m = 17-18 in the median (docs/exact.md), the DP 30x slower than at 16 from m = 19.
PS_FROM_WIDE = 17
WIDE_K = 5  # the largest request size measured on 8-10 chunks (docs/exact.md)
COVER_NODES = 200_000  # nodes of an exact cover-number search before the averaging bound takes over
WINDOW_NODES = 20_000_000  # nodes of the window bound's searches (all its steps together)
#: nodes of the search before the level program is asked for a start: about 2 s of search (10-15
#: million nodes a second measured), as long as the level program may take, so that a family the
#: search ends alone in that time never pays for the program (benchmarks/bench_quick_nodes.py)
QUICK_NODES = 24_000_000


def prefix_sets_apply(inst: Instance) -> bool:
    """Whether :func:`opt_free_prefix_sets` applies to ``inst`` and is the faster exact
    method (unit weights, at most 10 chunks, m past the crossover above)."""
    if not inst.unit_weights or inst.n > MAX_N:
        return False
    k = max(len(o) for o in inst.orders)
    if inst.n > NARROW_N:
        return inst.m >= PS_FROM_WIDE and k <= WIDE_K
    return inst.m >= PS_FROM or (inst.m >= PS_FROM_SMALL_K and k <= 3)


class PrefixSetsUnfinished(InstanceError):
    """The prefix-set search reached its time limit or node budget before it finished (no
    value: only a finished search is exact)."""


@dataclass(frozen=True)
class PrefixSetResult:
    """OPT_free with its certificate: the accessible family (``levels[j]`` = the j-chunk
    sets, as chunk-id tuples), the layout read off it and a hierarchy of Theorem 1 with the
    same cost (the trie's nodes binarised)."""

    value: int
    levels: dict
    layout: list
    hierarchy: object = None
    savings: int = 0  # sum_i w(R_i) - value, as in FreeResult


def _tables(n: int):
    from .._kernels.workspace import narrow_tables

    return narrow_tables(n)


def _wide_tables(n: int):
    from .._kernels.workspace import wide_level_tables

    return wide_level_tables(n)


def _check(inst: Instance) -> None:
    if not inst.unit_weights:
        raise InstanceError("the prefix-set search is for unit weights only; "
                            "use the subset DP (mptsearch.exact.free.opt_free) for weighted instances")
    if inst.n > MAX_N:
        raise InstanceError(f"the prefix-set search takes at most {MAX_N} chunks in use, got {inst.n}")


def _forced(inst: Instance, rank) -> np.ndarray:
    forced = np.zeros(NARROW_N + 2, dtype=np.int64)
    for x in inst.request_masks():
        forced[bin(x).count("1")] |= 1 << int(rank[x])
    return forced


def opt_free_prefix_sets(inst: Instance, *, time_limit: float | None = None,
                         max_nodes: int | None = None) -> PrefixSetResult:
    """Exact unit-weight OPT_free by the prefix-set search (module docstring: the lemma and
    its proof), with an optimal layout.

    Parameters
    ----------
    inst : Instance
        Unit weights, at most 10 chunks in use, any request sizes.
    time_limit : float, optional
        Wall seconds; on 8-10 chunks the search stops within about a millisecond of it and
        raises :class:`PrefixSetsUnfinished` (on <= 7 chunks it takes milliseconds and runs
        to the end).
    max_nodes : int, optional
        The same with a budget of search nodes (deterministic, unlike a time limit).

    Returns
    -------
    PrefixSetResult
        ``value`` = OPT_free; ``trie_cost(inst, layout) == value``.

    Raises
    ------
    InstanceError
        Weighted instance, or more than 10 chunks.
    PrefixSetsUnfinished
        The time limit or the node budget was reached (an :class:`InstanceError` too).

    Notes
    -----
    Worst-case exponential in the number of possible j-sets (at most 35 per level on 7
    chunks, 252 on 10), independent of 3^m: milliseconds for every 3- and 4-uniform family on
    7 chunks (measured in docs/enumerate.md), seconds for dense 4-uniform families on 8 chunks
    (docs/exact.md). Independent of Theorem 1 and of the trie search: it shares no code with
    them.

    Examples
    --------
    >>> from mptsearch.families import k4_3
    >>> opt_free_prefix_sets(k4_3()).value
    8
    """
    from .._kernels.prefix_sets import free_value, solve_level

    _check(inst)
    n = inst.n
    if n > NARROW_N:
        return _opt_free_wide(inst, time_limit, max_nodes)
    setmask, subs, ups, up1, rank = _tables(n)
    forced = _forced(inst, rank)
    k = max(len(o) for o in inst.orders)
    big = 1 << 40
    value, Q = free_value(forced, k, all(len(o) == k for o in inst.orders), n, subs, ups, up1)
    # read the family level by level: solve each lower level for the cover chosen above it
    levels = {k: int(forced[k])}
    rest = int(value) - bin(int(forced[k])).count("1")
    for j in range(k - 1, 0, -1):
        # level 2 returns the chunk set itself (it holds the 1-chunk requests; the rank of
        # chunk c among 1-sets is c); above, the cover is joined by the forced j-sets
        U = int(Q) if j == 1 else int(Q) | int(forced[j])
        levels[j] = U
        v, Q = solve_level(j, U, forced, n, subs, ups, up1, big, 0, 0)
        if int(v) != rest:  # pragma: no cover - the search is deterministic
            raise AssertionError(f"level {j}: solving the chosen cover gave {v}, expected {rest}")
        rest -= bin(U).count("1")
    chunk_level = {j: [int(setmask[j, r]) for r in range(setmask.shape[1]) if U_j >> r & 1] for j, U_j in levels.items()}
    layout = _layout(inst, chunk_level)
    return PrefixSetResult(int(value), {j: [tuple(c for c in range(n) if x >> c & 1) for x in xs]
                                        for j, xs in sorted(chunk_level.items())}, layout,
                           _hierarchy(layout), inst.total_weight() - int(value))


def _opt_free_wide(inst: Instance, time_limit: float | None = None, max_nodes: int | None = None, *,
                   upper: bool = True, cover_nodes: int = COVER_NODES, window_nodes: int = WINDOW_NODES,
                   quick_nodes: int = QUICK_NODES) -> PrefixSetResult:
    """:func:`opt_free_prefix_sets` on 8-10 chunks (the multi-word kernels). On uniform
    families (k >= 3) the level bound's cover numbers are the lower bounds of
    :func:`cover_lower_bound` (exact where a search of ``cover_nodes`` nodes finishes) and,
    with ``upper``, when a first search of ``quick_nodes`` nodes (under a time limit, at most
    half the time left) has not finished, the level program (:func:`level_program_family`)
    gives the search its starting upper bound."""
    import math
    import time

    from .._kernels.halt import new_halt
    from .._kernels.prefix_wide import W, new_memo, wide_forced, wide_free, wide_free_from, wide_solve

    n = inst.n
    setmask, subs, ups, up1, rank = _wide_tables(n)
    req = np.array(inst.request_masks(), dtype=np.uint64)
    forced, k, uniform = wide_forced(req, inst.m, rank)
    mkeys, mvals = new_memo()
    Q = np.zeros(W, dtype=np.int64)
    deadline = math.inf if time_limit is None else time.time() + max(0.0, float(time_limit))
    halt = new_halt(deadline, math.inf if max_nodes is None else float(max_nodes))

    def check():
        if halt[3] or time.time() >= deadline:
            halt[3] = 1.0
            limit = (f"its time limit ({time_limit:g} s)" if time_limit is not None else "") + \
                (" or " if time_limit is not None and max_nodes is not None else "") + \
                (f"its node budget ({max_nodes:,})" if max_nodes is not None else "")
            raise PrefixSetsUnfinished(f"the prefix-set search reached {limit} before it finished "
                                       f"(m={inst.m}, n={n})")

    known = None  # (value, chunk_level) of a family found by the level program
    if uniform and k >= 3:
        covs = {i: cover_lower_bound(forced[k], i, k, setmask, subs, cover_nodes, deadline) for i in range(1, k)}
        check()
        below = sum(v for i, v in covs.items() if i < k - 1)
        if k >= 4:  # the window of the levels under k-1 (for k = 3 it is the cover number itself)
            below = window_lower_bound(forced, k, n, subs, ups, up1, covs, window_nodes, deadline)
            check()
        floor = inst.m + covs[k - 1] + below
        cutoff = 1 << 40
        low, top = np.int64(below), np.int64(covs[k - 1])
        done = False
        if upper:  # first a search without the start, about as long as the program may take
            # when the first search is given the whole node budget, its stop leaves the main
            # search none: report unfinished at once instead of asking the level program first;
            # under a time limit it gets at most half the time left, so that the program and
            # the search after it still get theirs
            whole_budget = halt[1] <= float(quick_nodes)
            now = time.time()
            quick = new_halt(now + (deadline - now) / 2 if deadline < math.inf else deadline,
                             min(float(quick_nodes), halt[1]))
            value = int(wide_free_from(forced, k, n, subs, ups, up1, np.int64(cutoff), np.int64(floor), low, top,
                                       mkeys, mvals, Q, quick))
            halt[1] -= min(float(quick_nodes), halt[1]) - quick[1]
            done = not quick[3]
        if upper and not done and (whole_budget or time.time() >= deadline):
            halt[3] = 1.0
            check()
        if upper and not done:
            lim = 2.0 if time_limit is None else max(0.0, min(2.0, (deadline - time.time()) / 4))
            known = level_program_family(inst, lim)
            if known is not None:
                cutoff = known[0]
        if done:
            pass
        elif known is not None and known[0] <= floor:
            value = known[0]
        else:
            value = int(wide_free_from(forced, k, n, subs, ups, up1, np.int64(cutoff), np.int64(floor), low, top,
                                       mkeys, mvals, Q, halt))
            check()
            if known is not None and value >= known[0]:
                value = known[0]  # nothing below the program's family: it is optimal
            else:
                known = None
    else:
        value = int(wide_free(forced, k, uniform, n, subs, ups, up1, mkeys, mvals, Q, halt))
        check()
    if known is not None:
        chunk_level = known[1]
    else:
        levels = {k: forced[k].copy()}
        rest = value - _count(forced[k])
        for j in range(k - 1, 0, -1):
            if j == 1:  # level 2 returned the chunk set itself (the rank of chunk c among 1-sets is c)
                U = Q.copy()
            else:
                U = Q | forced[j]
            levels[j] = U
            Q = np.zeros(W, dtype=np.int64)
            v = int(wide_solve(j, U.copy(), forced, n, subs, ups, up1, np.int64(1 << 40), np.int64(0), np.int64(0),
                               np.int64(0), mkeys, mvals, np.int64(1), Q, halt))
            check()
            if v != rest:  # pragma: no cover - the search is deterministic
                raise AssertionError(f"level {j}: solving the chosen cover gave {v}, expected {rest}")
            rest -= _count(U)
        chunk_level = {j: [int(setmask[j, r]) for r in range(setmask.shape[1]) if U_j[r >> 6] >> (r & 63) & 1]
                       for j, U_j in levels.items()}
    layout = _layout(inst, chunk_level)
    return PrefixSetResult(value, {j: [tuple(c for c in range(n) if x >> c & 1) for x in xs]
                                   for j, xs in sorted(chunk_level.items())}, layout,
                           _hierarchy(layout), inst.total_weight() - value)



def cover_lower_bound(U, i: int, j: int, setmask, subs, nodes: int = COVER_NODES, deadline: float | None = None,
                      _memo=None) -> int:
    """A lower bound on cover_i(U): the least number of i-sets such that every j-set of the
    rank bitset ``U`` (four words, i < j) contains one (module docstring, "the averaging
    bound"). The exact set cover of :func:`mptsearch._kernels.prefix_wide.cover_number` when it
    finishes within ``nodes`` search nodes, else
    ceil(sum over the chunks x of the union V of U of bound(U - x) / (|V| - i)), U - x the
    members without x, each bound computed the same way; at least 1 when U is nonempty."""
    import math

    from .._kernels.halt import new_halt
    from .._kernels.prefix_wide import W, cover_number, setbit

    memo = {} if _memo is None else _memo
    key = tuple(int(x) for x in U)
    if key in memo:
        return memo[key]
    members = [64 * w + b for w in range(W) for b in range(64) if int(U[w]) >> b & 1]
    if not members:
        return 0
    halt = new_halt(math.inf if deadline is None else deadline, float(nodes))
    c = int(cover_number(U.copy(), i, j, subs, np.int64(1 << 40), halt))
    if not halt[3]:
        memo[key] = c
        return c
    V = 0
    for r in members:
        V |= int(setmask[j, r])
    size = bin(V).count("1")
    total = 0
    for x in range(V.bit_length()):
        if V >> x & 1:
            Ux = np.zeros(W, dtype=np.int64)
            for r in members:
                if not int(setmask[j, r]) >> x & 1:
                    setbit(Ux, r)
            total += cover_lower_bound(Ux, i, j, setmask, subs, nodes, deadline, memo)
    res = max(1, -(-total // (size - i)))
    memo[key] = res
    return res


def window_tables(subs, ups, k: int):
    """Copies of the tables ``subs`` and ``ups`` in which level k-1 of ``subs`` lists, for
    each k-set, the (k-2)-sets inside it, and level k-2 of ``ups`` lists, for each
    (k-2)-set, the k-sets above it: the search of level k-1 then covers k-sets by
    (k-2)-sets (the window bound, module docstring); the levels below are unchanged."""
    subs2, ups2 = subs.copy(), ups.copy()
    subs2[k - 1] = 0
    ups2[k - 2] = 0
    def members(row):
        return [64 * w + b for w in range(len(row)) for b in range(64) if int(row[w]) >> b & 1]

    for r in range(subs.shape[1]):
        for s in members(subs[k, r]):
            subs2[k - 1, r] |= subs[k - 1, s]
        for s in members(ups[k - 2, r]):
            ups2[k - 2, r] |= ups[k - 1, s]
    return subs2, ups2


def window_lower_bound(forced, k: int, n: int, subs, ups, up1, covs: dict, nodes: int = WINDOW_NODES,
                       deadline: float | None = None) -> int:
    """A lower bound on W(F), the least number of sets on levels 1..k-2 of a chain whose
    level k-2 covers the k-uniform family ``forced[k]`` (module docstring, "the window
    bound"): at least sum_{i < k-1} covs[i] (``covs`` lower bounds on the cover numbers),
    raised one unit at a time while a search with that cutoff finishes within ``nodes``
    nodes (all steps together) and finds nothing below it; exact when a step finds a chain."""
    import math

    from .._kernels.halt import new_halt
    from .._kernels.prefix_wide import W, new_memo, wide_solve

    m = sum(bin(int(x) & (2**64 - 1)).count("1") for x in forced[k])
    low = sum(v for i, v in covs.items() if i < k - 1)
    subs2, ups2 = window_tables(subs, ups, k)
    mkeys, mvals = new_memo()
    halt = new_halt(math.inf if deadline is None else deadline, float(nodes))
    lowrest = sum(v for i, v in covs.items() if i < k - 2)
    while True:
        c = low + 1
        Q = np.zeros(W, dtype=np.int64)
        v = int(wide_solve(k - 1, forced[k].copy(), forced, n, subs2, ups2, up1, np.int64(m + c), np.int64(m + low),
                           np.int64(lowrest), np.int64(covs[k - 2]), mkeys, mvals, np.int64(1), Q, halt))
        if halt[3] or v < m + c:  # stopped, or a chain of cost low: exact
            return low
        low = c


def is_accessible(fam, n: int) -> bool:
    """Whether the chunk masks ``fam`` (the empty set implied) form an accessible family
    (module docstring): every nonempty member S has S - {x} in the family for some x in S."""
    return all(not x or any(x >> c & 1 and (x & ~(1 << c) == 0 or x & ~(1 << c) in fam) for c in range(n))
               for x in fam)


def level_program_family(inst: Instance, time_limit: float):
    """An accessible family containing the requests, from HiGHS on the *level program*
    (module docstring): (value, {j: chunk masks of the j-sets}) with value = |P| - 1, or None
    when HiGHS found no 0/1 point in ``time_limit`` wall seconds. An upper bound only: the
    family is rebuilt from the rounded solution and checked to be accessible and to contain
    every request, and refused otherwise."""
    import itertools

    import highspy

    from .closure_program import _new_highs

    n = inst.n
    reqs = sorted(set(inst.request_masks()))
    k = max(bin(x).count("1") for x in reqs)
    sets = [x for x in range(1, 1 << n) if bin(x).count("1") < k] + [x for x in reqs if bin(x).count("1") == k]
    col = {x: i for i, x in enumerate(sets)}
    rq = set(reqs)
    h = _new_highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("time_limit", float(max(time_limit, 0.01)))
    N = len(sets)
    lower = np.array([1.0 if x in rq else 0.0 for x in sets])
    h.addVars(N, lower, np.ones(N))
    h.changeColsCost(N, np.arange(N, dtype=np.int32), np.ones(N))
    h.changeColsIntegrality(N, np.arange(N, dtype=np.int32), np.array([highspy.HighsVarType.kInteger] * N))
    for x in sets:
        cs = [c for c in range(n) if x >> c & 1]
        for size in range(1, len(cs)):
            ids = [col[sum(1 << c for c in T)] for T in itertools.combinations(cs, size)]
            h.addRow(0.0, highspy.kHighsInf, len(ids) + 1, np.array(ids + [col[x]], dtype=np.int32),
                     np.array([1.0] * len(ids) + [-1.0]))
    h.run()
    if h.getInfo().primal_solution_status != 2:  # no feasible point
        return None
    y = h.getSolution().col_value
    fam = {x for x, v in zip(sets, y) if v > 0.5} | rq
    if not is_accessible(fam, n):
        return None
    chunk_level: dict = {}
    for x in sorted(fam):
        chunk_level.setdefault(bin(x).count("1"), []).append(x)
    return len(fam), chunk_level


def _count(words) -> int:
    return sum(bin(int(x) & (2**64 - 1)).count("1") for x in words)


def _hierarchy(layout: list):
    """A hierarchy whose internal nodes are the trie's nodes, each binarised (its subtries
    and the requests ending there joined left to right): every I(v) contains the chunks on
    the path to its trie node, so COST(H) <= the trie's cost (Theorem 1), here equal as the
    trie is optimal."""
    from ..hierarchy import Hierarchy

    def build(rows, depth):
        parts = [i for i in rows if len(layout[i]) == depth]
        groups: dict = {}
        for i in rows:
            if len(layout[i]) > depth:
                groups.setdefault(layout[i][depth], []).append(i)
        parts += [build(g, depth + 1) for _, g in sorted(groups.items())]
        tree = parts[0]
        for p in parts[1:]:
            tree = (tree, p)
        return tree

    return Hierarchy.from_nested(build(list(range(len(layout))), 0))


def _layout(inst: Instance, chunk_level: dict) -> list:
    members = {0} | {x for xs in chunk_level.values() for x in xs}
    layout = []
    for R in inst.request_masks():
        seq = []
        cur = R
        while cur:
            for c in range(inst.n):
                if cur >> c & 1 and cur & ~(1 << c) in members:
                    seq.append(c)
                    cur &= ~(1 << c)
                    break
            else:  # pragma: no cover - the family is accessible by construction
                raise AssertionError("prefix-set family is not accessible")
        layout.append(tuple(reversed(seq)))
    return layout


def level_bound(inst: Instance) -> int:
    """The level lower bound sum_j cover_j(F) <= OPT_free (module docstring), for a family
    whose requests all have the same size k (unit weights, at most 7 chunks):
    cover_k = m and cover_j = the least number of j-sets such that every request contains one.

    Notes
    -----
    One small set cover per level (the same branching as the exact search, without the
    nesting): microseconds to milliseconds on 7 chunks.
    """
    from .._kernels.prefix_sets import prefix_set_bound

    _check(inst)
    if len({len(o) for o in inst.orders}) != 1:
        raise InstanceError("the level bound is implemented for uniform families (one request size)")
    if inst.n > NARROW_N:
        from .._kernels.prefix_wide import wide_forced, wide_level_bound

        from .._kernels.halt import new_halt

        _, subs, _, _, rank = _wide_tables(inst.n)
        forced, k, _ = wide_forced(np.array(inst.request_masks(), dtype=np.uint64), inst.m, rank)
        return inst.m + int(wide_level_bound(forced, k, subs, new_halt())[0])
    setmask, subs, ups, up1, rank = _tables(inst.n)
    req = np.array(inst.request_masks(), dtype=np.uint64)
    return int(prefix_set_bound(req, inst.m, inst.n, subs, ups, rank))

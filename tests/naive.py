"""Slow, obviously correct twins of the fast paths (plain Python, no numba, no bitset tricks).

Each follows the paper's definition (Section 3 for OPT_free, Section 4 for OPT_glob) as
literally as possible; the tests compare the
compiled solvers with these on many random instances.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations


def naive_opt_free(requests, weights) -> int:
    """OPT_free = sum_i w(R_i) - M(all), M by the recurrence of Theorem 1 over frozensets."""
    reqs = [frozenset(r) for r in requests]
    total = sum(weights[x] for r in reqs for x in r)

    @lru_cache(maxsize=None)
    def M(B: frozenset) -> int:
        if len(B) == 1:
            return 0
        inter = frozenset.intersection(*(reqs[i] for i in B))
        items = sorted(B)
        first, rest = items[0], items[1:]
        best = 0
        for r in range(0, len(rest)):
            for extra in combinations(rest, r):
                B1 = frozenset((first,) + extra)
                best = max(best, M(B1) + M(B - B1))
        return sum(weights[x] for x in inter) + best

    return total - M(frozenset(range(len(reqs))))


def naive_opt_glob(requests, weights) -> int:
    """OPT_glob by the chunk-subset DP with explicit sets: G(P + c) = min G(P) + w(c) *
    #distinct{R_i ∩ P : c in R_i}."""
    reqs = [frozenset(r) for r in requests]
    chunks = sorted(set().union(*reqs))
    G = {frozenset(): 0}
    for size in range(1, len(chunks) + 1):
        for P in combinations(chunks, size):
            P = frozenset(P)
            best = None
            for c in P:
                prev = P - {c}
                distinct = {r & prev for r in reqs if c in r}
                v = G[prev] + weights[c] * len(distinct)
                best = v if best is None or v < best else best
            G[P] = best
    return G[frozenset(chunks)]


def naive_trie_cost(layout, weights) -> int:
    """Count distinct nonempty prefixes of the sequences, weighted by their last chunk."""
    prefixes = {tuple(seq[:k]) for seq in layout for k in range(1, len(seq) + 1)}
    return sum(weights[p[-1]] for p in prefixes)


def naive_mst_lower_bound(requests, weights) -> int:
    """sum_i w(R_i) - maximum spanning tree by Kruskal over all pairs."""
    reqs = [frozenset(r) for r in requests]
    m = len(reqs)
    edges = sorted(((sum(weights[x] for x in reqs[i] & reqs[j]), i, j)
                    for i in range(m) for j in range(i + 1, m)), reverse=True)
    parent = list(range(m))

    def find(a):
        while parent[a] != a:
            a = parent[a]
        return a

    tree = 0
    for w, i, j in edges:
        a, b = find(i), find(j)
        if a != b:
            parent[a] = b
            tree += w
    return sum(weights[x] for r in reqs for x in r) - tree


def naive_agglomerative_savings(requests, weights) -> int:
    """Agglomerative clustering with "first" tie-breaking, by its definition: clusters are
    numbered 0..m-1, merge j creates cluster m+j with the intersection of the two; each round
    merges, among the pairs of largest common weight, the pair (a, b), a < b, with the least
    a then b; once no two clusters share a chunk the remaining merges save nothing."""
    clusters = {i: frozenset(r) for i, r in enumerate(requests)}
    nxt, total = len(clusters), 0
    while len(clusters) > 1:
        pairs = [(sum(weights[x] for x in clusters[a] & clusters[b]), a, b)
                 for a in sorted(clusters) for b in sorted(clusters) if a < b]
        top = max(p[0] for p in pairs)
        if top == 0:
            break
        _, a, b = min((-v, a, b) for v, a, b in pairs if v == top)
        total += top
        clusters[nxt] = clusters.pop(a) & clusters.pop(b)
        nxt += 1
    return total


def naive_intersection_weight(requests, weights, subset) -> int:
    """w(I(B)) for a nonempty set B of request indices: the weight of the chunks they share."""
    return sum(weights[x] for x in frozenset.intersection(*(frozenset(requests[i]) for i in subset)))


def naive_minimal_among_hits(families, n) -> list[bool]:
    """Minimal hits as defined (the old ``hits --minimal``): family A is minimal iff no other
    family with fewer requests maps into A under one of the n! relabellings of the chunks."""
    from itertools import permutations

    def contained(small, big):
        bigset = set(big)
        return any(all(sum(1 << perm[x] for x in range(n) if r >> x & 1) in bigset for r in small)
                   for perm in permutations(range(n)))

    return [not any(len(fb) < len(fa) and contained(fb, fa) for b, fb in enumerate(families) if b != a)
            for a, fa in enumerate(families)]


def naive_min_accessible_family(requests) -> int:
    """The prefix-set lemma (mptsearch.exact.prefix_sets) read literally: the least |P| - 1
    over families P of subsets of the chunks in use that contain the empty set and every
    request, and in which every nonempty member loses one chunk to another member. Tries
    every family, smallest first: for universes of at most 4 chunks."""
    reqs = {frozenset(r) for r in requests}
    universe = sorted(set().union(*reqs))
    subsets = [frozenset(c) for size in range(1, len(universe) + 1) for c in combinations(universe, size)]
    optional = [s for s in subsets if s not in reqs]
    for extra in range(len(optional) + 1):
        for add in combinations(optional, extra):
            fam = reqs | set(add) | {frozenset()}
            if all(any(s - {x} in fam for x in s) for s in fam if s):
                return len(fam) - 1
    raise AssertionError("the family of all subsets is accessible")


def naive_simulate(weights, seqs, capacity, schedule="arrival", window=1, *, block_size=1,
                   lpm_fcfs_above=None) -> tuple[int, list]:
    """(prefill, serving order): the requests served one at a time through the Python
    :class:`~mptsearch.serving.cache.PrefixCache` or :class:`~mptsearch.serving.blocks.BlockCache`,
    each block of the schedule ordered as :mod:`mptsearch.serving.cache` describes; what
    ``simulate`` did before its compiled kernel (issue 28)."""
    from mptsearch.serving.blocks import BlockCache
    from mptsearch.serving.cache import PrefixCache

    def lpm_block(cache, block):
        hits = [cache.match(seqs[j])[1] for j in block]
        return [block[i] for i in sorted(range(len(block)), key=lambda i: -hits[i])]

    def dfs_weight_block(cache, block):
        at, weight = {}, {}
        for j in block:
            node = cache.match(seqs[j])[0]
            at.setdefault(node, []).append(j)
            while node >= 0:
                weight[node] = weight.get(node, 0) + 1
                node = cache.parent[node]
        out, stack = [], [(0, False)]
        while stack:
            v, expanded = stack.pop()
            if expanded:
                out.extend(at.get(v, ()))
                continue
            stack.append((v, True))
            kids = sorted((c for c in cache.children[v].values() if c in weight),
                          key=lambda c: (-weight[c], cache.chunk[c]))
            stack.extend((c, False) for c in reversed(kids))
        return out

    m = len(seqs)
    cache = BlockCache(weights, block_size, capacity) if block_size > 1 else PrefixCache(weights, capacity)
    blocks = [list(range(m))] if schedule == "dfs" else [list(range(s, min(m, s + window))) for s in range(0, m, window)]
    order, prefill = [], 0
    for block in blocks:
        if schedule in ("dfs", "window"):
            block = sorted(block, key=lambda j: tuple(seqs[j]))
        elif schedule == "lpm" and (lpm_fcfs_above is None or len(block) <= lpm_fcfs_above):
            block = lpm_block(cache, block)
        elif schedule == "dfs-weight":
            block = dfs_weight_block(cache, block)
        for j in block:
            prefill += cache.serve(seqs[j])
        order.extend(block)
    return prefill, order


def naive_write_layout(fh, tr, lay) -> None:
    """``mptsearch layout -o``'s lines built one request at a time with ``json.dumps`` (the
    writer before issue 28)."""
    import json

    from mptsearch.serving.layout import serving_rank

    rank = serving_rank(lay).tolist()
    for j, rid in enumerate(tr.ids):
        row = lay.seq[lay.indptr[j]:lay.indptr[j + 1]].tolist()
        fh.write(f'{{"id": {json.dumps(rid, ensure_ascii=False)}, '
                 f'"chunks": [{", ".join(json.dumps(tr.labels[x], ensure_ascii=False) for x in row)}], '
                 f'"tokens": [{", ".join(str(int(tr.weights[x])) for x in row)}], "serve": {rank[j]}}}\n')


def naive_opt_blend(orders, weights, r, price, beta, per_answer=False):
    """OPT_blend of docs/beyond_prefix.md by brute force: every layout, every node's mode.

    Requests are served in the given order; a chunk whose prefix (as a tuple) was served
    before is a hit; every other chunk position is a new node that is either computed fully
    (cost w) or blended from any earlier *full* node of the same chunk (cost r w, loss
    w (1 + beta |context difference|)). Returns (objective, cost, loss) of the best choice,
    ties to the lowest cost. No trie, no per-chunk decomposition: one recursion over the new
    nodes of every layout. ``per_answer``: a blend's loss is multiplied by the number of
    sequences that have its prefix.
    """
    from itertools import permutations, product

    best = None
    for layout in product(*(permutations(o) for o in orders)):
        seen = set()
        new = []  # (chunk, context) of every position that is not a hit, in serving order
        for seq in layout:
            for p in range(len(seq)):
                if seq[:p + 1] not in seen:
                    seen.add(seq[:p + 1])
                    times = sum(1 for s in layout if s[:p + 1] == seq[:p + 1]) if per_answer else 1
                    new.append((seq[p], frozenset(seq[:p]), times))

        def go(j, full):
            if j == len(new):
                return (0.0, 0.0, 0.0)
            x, ctx, times = new[j]
            w = weights[x]
            sub = go(j + 1, full + ((x, ctx),))
            options = [(sub[0] + w, sub[1] + w, sub[2])]
            for y, c2 in full:
                if y == x:
                    loss = w * (1 + beta * len(ctx ^ c2)) * times
                    sub = go(j + 1, full)
                    options.append((sub[0] + r * w + price * loss, sub[1] + r * w, sub[2] + loss))
            return min(options)

        val = go(0, ())
        if best is None or val < best:
            best = val
    return best


def naive_blend_serving(weights, seqs, order, capacity, r, price, beta, points=None, tokens=False, isolated=False):
    """Twin of :func:`mptsearch.blend.cache.simulate_blend` without its trie or copy lists.

    Cache = dict {prefix tuple: [last use, context or None]} (None: the prefix was blended).
    Serving a sequence, every prefix not in the cache is computed: blended from the cached
    full prefix ending in the same chunk whose context differs least (any of them), when
    r + price (1 + beta d) < 1, else full. Then every prefix of the sequence is marked used,
    and while the cached tokens exceed ``capacity`` the least recently used prefix with no
    cached extension is evicted, the longest first on ties, by scanning everything.
    Returns (cost, loss, blended). The extended model (section 9): ``points`` a loss table
    (its best ratio per blend, :func:`naive_blend_choice`; r and beta unused), ``tokens`` the
    mismatch in tokens, ``isolated`` an offline copy (context {}) of every chunk, never evicted,
    among the candidates of every computed prefix.
    """
    choice = naive_blend_choice(price, points, r, beta)
    extended = points is not None or tokens or isolated
    cache: dict = {}
    cost = loss = 0.0
    blended = 0
    for t, j in enumerate(order, start=1):
        seq = tuple(seqs[j])
        before = {p: v[1] for p, v in cache.items()}
        for d in range(1, len(seq) + 1):
            pre = seq[:d]
            if pre in cache:
                cache[pre][0] = t
                continue
            x, ctx, w = seq[d - 1], frozenset(seq[:d - 1]), int(weights[seq[d - 1]])
            diffs = [len(ctx ^ c) for p, c in before.items() if p[-1] == x and c is not None]
            if extended:
                diffs = [sum(int(weights[y]) for y in ctx ^ c) if tokens else len(ctx ^ c)
                         for p, c in before.items() if p[-1] == x and c is not None]
                diffs += [sum(int(weights[y]) for y in ctx) if tokens else len(ctx)] if isolated else []
                q, g = choice(min(diffs)) if diffs else (1.0, 0.0)
                if diffs and q + price * g < 1:
                    cost += q * w
                    loss += w * g
                    blended += 1
                    cache[pre] = [t, None]
                else:
                    cost += w
                    cache[pre] = [t, ctx]
                continue
            if diffs and r + price * (1 + beta * min(diffs)) < 1:
                cost += r * w
                loss += w * (1 + beta * min(diffs))
                blended += 1
                cache[pre] = [t, None]
            else:
                cost += w
                cache[pre] = [t, ctx]
        if capacity is None:
            continue
        while sum(int(weights[p[-1]]) for p in cache) > capacity:
            leaves = [p for p in cache if not any(len(q) == len(p) + 1 and q[:-1] == p for q in cache)]
            victim = min(leaves, key=lambda p: (cache[p][0], -len(p)))
            del cache[victim]
    return cost, loss, blended


def naive_closure(requests) -> set:
    """Every nonempty intersection of a nonempty subfamily of the requests, by listing the
    subfamilies (2^m of them)."""
    reqs = [frozenset(r) for r in requests]
    out = set()
    for size in range(1, len(reqs) + 1):
        for sub in combinations(reqs, size):
            inter = frozenset.intersection(*sub)
            if inter:
                out.add(inter)
    return out


def naive_cover_pairs(sets) -> set:
    """The cover pairs (X, Y) of the sets plus the empty set: X strictly inside Y and no
    member strictly between, by checking every triple."""
    nodes = set(sets) | {frozenset()}
    return {(x, y) for x in nodes for y in nodes
            if x < y and not any(x < z < y for z in nodes)}


def naive_blend_node_table(weights, rows):
    """Twin of :func:`mptsearch.blend.heuristic.node_table`: the trie of ``rows`` (served in
    order) as nested dicts, every node's context materialised as a frozenset of the chunks
    before it in the line creating it. Returns a dict with ``w``, ``d_first``, ``through``
    (numpy int64 arrays in creation order), ``nodes`` ((chunk, context, through) per node),
    ``tokens`` and ``distinct``."""
    import numpy as np

    root: dict = {}
    made, count = [], {}
    for seq in rows:
        node = root
        for p, x in enumerate(seq):
            nxt = node.get(x)
            if nxt is None:
                nxt = node[x] = {}
                made.append((int(x), frozenset(int(y) for y in seq[:p]), id(nxt)))
            count[id(nxt)] = count.get(id(nxt), 0) + 1
            node = nxt
    nodes = [(x, ctx, count[key]) for x, ctx, key in made]
    first: dict = {}
    w, d = [], []
    for x, ctx, _ in nodes:
        w.append(int(weights[x]))
        if x in first:
            d.append(len(first[x] ^ ctx))
        else:
            first[x] = ctx
            d.append(-1)
    return {"w": np.array(w, dtype=np.int64), "d_first": np.array(d, dtype=np.int64),
            "through": np.array([t for _, _, t in nodes], dtype=np.int64), "nodes": nodes,
            "tokens": sum(int(weights[x]) for seq in rows for x in seq),
            "distinct": sum(int(weights[x]) for x in first)}


def naive_blend_first(table, r, price, beta, per_answer=False):
    """(cost, loss) of the one-copy rule on :func:`naive_blend_node_table`'s table, with the
    numpy sums of the Python rule the compiled table feeds (the same floating-point order)."""
    later = table["d_first"] >= 0
    unit = (1.0 + beta * table["d_first"]) * (table["through"] if per_answer else 1)
    blend = later & (r + price * unit < 1.0)
    wf = table["w"].astype(float)
    return float(wf[~blend].sum() + r * wf[blend].sum()), float((wf * unit)[blend].sum())


def naive_blend_greedy(table, r, price, beta, per_answer=False, cap=32):
    """(cost, loss) of the greedy rule, node by node over frozenset contexts: a node blends
    from the nearest of its chunk's first full copy and ``cap`` most recent full copies iff
    r + price (1 + beta d) (times the lines through it, per answer) < 1, else it is full and
    becomes a copy."""
    copies: dict = {}
    cost = loss = 0.0
    for (x, ctx, through), w in zip(table["nodes"], table["w"]):
        w = float(w)
        have = copies.get(x)
        if have is None:
            copies[x] = [ctx]
            cost += w
            continue
        d = min(len(c ^ ctx) for c in (have[0], *have[-cap:]))
        unit = (1.0 + beta * d) * (through if per_answer else 1)
        if r + price * unit < 1.0:
            cost += r * w
            loss += w * unit
        else:
            cost += w
            have.append(ctx)
    return cost, loss


def naive_min_node_set_cost(requests, weights) -> int:
    """min over node sets U (the requests plus any Steiner sets of the intersection closure)
    of sum_{v in U} (w(v) - max w(u) over u in U strictly inside v, 0 if none), by listing
    every subset of the Steiner sets (2^|C - requests| of them)."""
    reqs = {frozenset(r) for r in requests}
    steiner = sorted(naive_closure(requests) - reqs, key=sorted)

    def w(s):
        return sum(weights[x] for x in s)

    best = None
    for size in range(len(steiner) + 1):
        for extra in combinations(steiner, size):
            used = reqs | set(extra)
            cost = sum(w(v) - max([w(u) for u in used if u < v] + [0]) for v in used)
            best = cost if best is None else min(best, cost)
    return best


def naive_k2_best_order(edges, r, price, beta, orders=None):
    """min over serving orders (all of them, or ``orders``) and orientations of the blend
    objective of two-chunk requests ``edges`` (unit weights), by brute force.

    Serving (x, y) creates the node of x at depth 1 (context {}) unless an earlier request
    began with x, and always a node of y with context {x}. Each chunk's nodes, in creation
    order, are priced by trying every set of full nodes containing the first: every other node
    blends from its best earlier full node (cost r + price (1 + beta |context difference|)).
    """
    from itertools import permutations, product

    def chunk(ctxs):
        t = len(ctxs)
        best = float("inf")
        for mask in range(1 << (t - 1)):
            full = [0] + [j + 1 for j in range(t - 1) if mask >> j & 1]
            total = float(len(full))
            for b in range(1, t):
                if b not in full:
                    total += min(r + price * (1 + beta * len(ctxs[a] ^ ctxs[b])) for a in full if a < b)
            best = min(best, total)
        return best

    best = float("inf")
    for order in (orders if orders is not None else permutations(edges)):
        for flip in product((False, True), repeat=len(order)):
            nodes, started = {}, set()
            for (a, b), f in zip(order, flip):
                x, y = (b, a) if f else (a, b)
                if x not in started:
                    started.add(x)
                    nodes.setdefault(x, []).append(frozenset())
                nodes.setdefault(y, []).append(frozenset([x]))
            best = min(best, sum(chunk(c) for c in nodes.values()))
    return best


def naive_opt_blend_table(orders, weights, points, price, tokens=False, isolated=False, layouts=None,
                          one_copy=False):
    """OPT_blend of the extended model of docs/beyond_prefix.md section 9 by brute force.

    ``points``: (r, mismatch, loss) triples; g(r, d) is linear in d between a ratio's points and
    continues its last segment beyond them. Every layout; every non-hit position is full (cost w),
    or blended with any ratio r of the table from any earlier full node of its chunk or, with
    ``isolated``, from the chunk's offline copy (context {}): cost r w, loss w g(r, d), d the
    number (``tokens``: the total weight) of chunks in which the two contexts differ. Without
    ``isolated`` the first node of a chunk can only be full. Returns the best objective.
    ``layouts``: try only these layouts (one sequence per request each), not every one;
    ``one_copy``: a node may blend only from its chunk's one copy, the offline copy with
    ``isolated``, else the chunk's first node.
    """
    from itertools import permutations, product

    table = {}
    for r, d, g in points:
        table.setdefault(r, []).append((d, g))
    for r in table:
        table[r].sort()

    def g_of(r, d):
        pts = table[r]
        if len(pts) == 1:
            return pts[0][1]
        i = 0
        while i + 2 < len(pts) and d > pts[i + 1][0]:
            i += 1
        (d0, g0), (d1, g1) = pts[i], pts[i + 1]
        return g0 + (g1 - g0) * (d - d0) / (d1 - d0)

    def diff(a, b):
        s = a ^ b
        return sum(weights[y] for y in s) if tokens else len(s)

    best = float("inf")
    for layout in (layouts if layouts is not None else product(*(permutations(o) for o in orders))):
        layout = [tuple(s) for s in layout]
        seen, new, first = set(), [], {}
        for seq in layout:
            for p in range(len(seq)):
                if seq[:p + 1] not in seen:
                    seen.add(seq[:p + 1])
                    new.append((seq[p], frozenset(seq[:p])))
                    first.setdefault(seq[p], (len(new) - 1, frozenset(seq[:p])))

        def go(j, full):
            if j == len(new):
                return 0.0
            x, ctx = new[j]
            w = weights[x]
            options = [w + go(j + 1, full + ((x, ctx),))]
            if one_copy:
                sources = [frozenset()] if isolated else ([first[x][1]] if first[x][0] < j else [])
            else:
                sources = [c for y, c in full if y == x] + ([frozenset()] if isolated else [])
            if sources:
                rest = go(j + 1, full)
                for src in sources:
                    for r in table:
                        options.append(r * w + price * w * g_of(r, diff(ctx, src)) + rest)
            return min(options)

        best = min(best, go(0, ()))
    return best


def naive_loss_table(points):
    """g(r, d) of a loss table of (r, mismatch, loss) triples, by its own reading: a ratio's points
    sorted by mismatch, linear between them, the last segment continued beyond (constant with one
    point). Returns (ratios ascending, g)."""
    table: dict = {}
    for r, d, g in points:
        table.setdefault(float(r), []).append((float(d), float(g)))

    def g_of(r, d):
        pts = sorted(table[r])
        if len(pts) == 1:
            return pts[0][1]
        for k in range(len(pts) - 1):
            if d <= pts[k + 1][0] or k == len(pts) - 2:
                (d0, g0), (d1, g1) = pts[k], pts[k + 1]
                return g0 + (g1 - g0) * (d - d0) / (d1 - d0)

    return sorted(table), g_of


def naive_blend_choice(price, points=None, r=None, beta=0.0):
    """choice(d, times) -> (ratio, loss per token) of a blend at mismatch d charged ``times``:
    the ratio of the table ``points`` minimising ratio + price g(ratio, d) times (ties to the
    smaller ratio within 1e-12), or (r, (1 + beta d) times) without a table."""
    ratios, g_of = naive_loss_table(points) if points is not None else (None, None)

    def choice(d, times=1):
        if points is None:
            return r, (1.0 + beta * d) * times
        best = None
        for q in ratios:
            g = g_of(q, d) * times
            if best is None or q + price * g < best[0] + price * best[1] - 1e-12:
                best = (q, g)
        return best

    return choice


def naive_blend_rule_ext(weights, rows, price, *, points=None, r=None, beta=0.0, tokens=False, isolated=False,
                         rule="greedy", per_answer=False, cap=32):
    """(cost, loss) of the ``first`` or ``greedy`` rule on the layout ``rows`` (served in order,
    unbounded cache) in the extended model of docs/beyond_prefix.md section 9, node by node over
    a nested-dict trie and frozenset contexts.

    A node of chunk x with context P (the chunks before it in the line creating it, passed by
    ``through`` lines) has candidate copies: ``first`` the offline copy (context {}) with
    ``isolated``, else the chunk's first node; ``greedy`` the offline copy (``isolated``), the
    chunk's first full node and its ``cap`` most recent full nodes. Without ``isolated`` a
    chunk's first node is full. Each candidate c gives the mismatch d = |P ^ c| (``tokens``: its
    weight); for the least d every ratio of the table (``points``: (r, d, loss) triples), or r with
    loss 1 + beta d without one, is tried: the ratio minimising r + price g (g times ``through``
    per answer; ties to the smaller r within 1e-12). The node blends iff that is < 1 (cost
    r w, loss w g), else it is full (and, ``greedy``, a new copy).
    """
    choice = naive_blend_choice(price, points, r, beta)

    def diff(a, b):
        return sum(int(weights[y]) for y in a ^ b) if tokens else len(a ^ b)

    root: dict = {}
    made, count = [], {}
    for seq in rows:
        node = root
        for p, x in enumerate(seq):
            if x not in node:
                node[x] = {}
                made.append((int(x), frozenset(int(y) for y in seq[:p]), id(node[x])))
            count[id(node[x])] = count.get(id(node[x]), 0) + 1
            node = node[x]
    copies: dict = {}
    cost = loss = 0.0
    for x, ctx, key in made:
        w = float(weights[x])
        have = copies.setdefault(x, [])
        if not have and not isolated:
            have.append(ctx)
            cost += w
            continue
        if rule == "first":
            cand = [] if isolated else have[:1]
        else:
            cand = have[:1] + have[-cap:]
        ds = [diff(c, ctx) for c in cand] + ([diff(frozenset(), ctx)] if isolated else [])
        q, g = choice(min(ds), count[key] if per_answer else 1)
        if q + price * g < 1.0:
            cost += q * w
            loss += w * g
        else:
            cost += w
            if rule == "greedy":
                have.append(ctx)
    return cost, loss


def naive_min_dicut(tails, heads, x, root, target, nodes) -> float:
    """min over node sets S with target in S, root not in S, S within ``nodes``, of the sum of
    x over the arcs entering S (tail outside, head inside), by listing every such S."""
    others = [v for v in nodes if v not in (root, target)]
    best = float("inf")
    for bits in range(1 << len(others)):
        S = {target} | {v for i, v in enumerate(others) if bits >> i & 1}
        val = sum(xa for t, h, xa in zip(tails, heads, x) if h in S and t not in S)
        best = min(best, val)
    return best


def naive_fixed_arborescence(nsets, tails, heads, costs, requests, zero, one):
    """Least cost of an arborescence rooted at node 0 over the arcs not in ``zero``, using every
    arc in ``one`` and reaching every request, on a DAG (every arc from a smaller node set to a
    larger one, so any choice of one parent per node is acyclic), or None when there is none:
    for every set U of the other nodes holding the requests, each node of U takes its cheapest
    allowed parent in U ∪ {0} (a forced arc's parent when it has one), by listing every U."""
    steiner = [v for v in range(1, nsets) if v not in set(requests)]
    best = None
    for bits in range(1 << len(steiner)):
        U = set(requests) | {v for i, v in enumerate(steiner) if bits >> i & 1}
        inside = U | {0}
        if any(not (heads[a] in U and tails[a] in inside) for a in range(len(tails)) if one[a]):
            continue
        total = 0
        for v in U:
            forced = [a for a in range(len(tails)) if one[a] and heads[a] == v]
            if len(forced) > 1:
                total = None
                break
            allowed = forced or [a for a in range(len(tails)) if heads[a] == v and tails[a] in inside
                                 and not zero[a]]
            if not allowed:
                total = None
                break
            total += min(costs[a] for a in allowed)
        if total is not None and (best is None or total < best):
            best = total
    return best


# ---- tables (mptsearch.tables) -----------------------------------------------------------------

def naive_table_prefill(prompts) -> int:
    """Tokens of the trie of prompts given as lists of (field text, tokens): a dict per node, the
    text of each field its key (the prompt's prefix up to that field)."""
    root: dict = {}
    total = 0
    for fields in prompts:
        node = root
        for text, tok in fields:
            if text not in node:
                node[text] = {}
                total += tok
            node = node[text]
    return total


def naive_consecutive_hits(prompts, length) -> tuple[int, int]:
    """GGR's PHC of prompts served in this order: over consecutive prompts, the leading fields
    they share, summed as (tokens, length(field)^2)."""
    tok = sq = 0
    for prev, cur in zip(prompts, prompts[1:]):
        for a, b in zip(prev, cur):
            if a != b:
                break
            tok += b[1]
            sq += length(b) ** 2
    return tok, sq


def naive_table_opt(prompt_rows, first: int, last: int) -> int:
    """Least trie tokens over every order of each row's middle fields (the first ``first`` and
    the last ``last`` stay), by brute force over all combinations of permutations."""
    import itertools

    choices = []
    for fields in prompt_rows:
        mid = fields[first:len(fields) - last]
        choices.append([fields[:first] + list(p) + fields[len(fields) - last:] for p in itertools.permutations(mid)])
    return min(naive_table_prefill(combo) for combo in itertools.product(*choices))


def naive_random_priority_expectation(requests):
    """E[trie nodes] of every request sorted by a uniformly random global chunk order, as the
    average over all n! orders of the chunks (unit weights), in Fractions."""
    import itertools
    from fractions import Fraction

    chunks = sorted(set().union(*map(set, requests)))
    total = count = 0
    for perm in itertools.permutations(chunks):
        rank = {x: i for i, x in enumerate(perm)}
        nodes = set()
        for r in requests:
            s = sorted(r, key=rank.__getitem__)
            nodes.update(tuple(s[:i]) for i in range(1, len(s) + 1))
        total += len(nodes)
        count += 1
    return Fraction(total, count)


def naive_ggr_orders(rows, length) -> list:
    """GGR's rule (Greedy Group Recursion) by recounting: in a group of rows take the chunk x
    with the largest ``(rows of the group holding x - 1) * length[x]^2`` (ties: the larger
    length, then the smaller id), split the rows holding it off into a group of their own (x
    emitted in each), recurse into it, and go on with the rest. ``rows``: sets of chunk ids;
    returns every row's chunk order."""
    from collections import Counter

    rem = [set(r) for r in rows]
    out: list = [[] for _ in rows]

    def group(members):
        members = [i for i in members if rem[i]]
        while members:
            cnt = Counter(x for i in members for x in rem[i])
            x = max(cnt, key=lambda y: ((cnt[y] - 1) * length[y] ** 2, length[y], -y))
            child = [i for i in members if x in rem[i]]
            for i in child:
                out[i].append(x)
                rem[i].discard(x)
            taken = set(child)
            members = [i for i in members if i not in taken]
            group(child)

    group(list(range(len(rows))))
    return out

"""The directed-cut program (mptsearch.exact.dcut, mptsearch.exact.dcut_bnc) against the subset
DP, the cover program's LP and slow twins: the sibling lemma behind the cover LP's weakness,
the separation against every node set, the cut LP between the cover LP and OPT_free, the
branch-and-cut's value, and reduced-cost fixing keeping an optimum."""

import math
import random

import numpy as np
import pytest

from mptsearch.exact.closure import closure_graph, reduce_instance
from mptsearch.exact.closure_program import component_model, highs_model
from mptsearch.exact.dcut import cut_lp, request_subdags, separate
from mptsearch.exact.dcut_bnc import branch_and_cut, opt_free_dcut, reachable_all, reduced_cost_fixing
from mptsearch.exact.free import opt_free
from mptsearch.families import k4_3, leave_one_out, sunflowers
from mptsearch.instance import from_lists
from mptsearch.trie import trie_cost

from .naive import naive_min_dicut, naive_opt_free


def _random_instances(seed, count, max_n=7, max_m=9):
    rng = random.Random(seed)
    out = []
    for t in range(count):
        n = rng.randint(3, max_n)
        reqs = [rng.sample(range(n), rng.randint(1, n)) for _ in range(rng.randint(2, max_m))]
        if t % 3 == 0:  # a request inside another
            reqs.append(reqs[0][: max(1, len(reqs[0]) // 2)])
        weights = [rng.randint(1, 6) for _ in range(n)] if t % 2 else None
        out.append(from_lists(reqs, weights) if weights else from_lists(reqs))
    return out


def _components(inst):
    red = reduce_instance(inst)
    single = 0
    graphs = []
    for idx, masks in red.components:
        if len(idx) == 1:
            single += sum(red.weights[c] for c in range(masks[0].bit_length()) if masks[0] >> c & 1)
        else:
            graphs.append(closure_graph(masks, red.weights))
    return single, graphs


def test_every_chunk_row_of_the_cover_program_holds_one_arc():
    # the sibling lemma: two children of X share no chunk outside X
    for inst in _random_instances(11, 60):
        for g in _components(inst)[1]:
            model = component_model(g)
            for kind, row in zip(model.kinds, model.rows):
                if kind[0] == "chunk":
                    out_arcs = [a for a, k in row if k > 0]
                    assert len(out_arcs) == 1


def test_separation_finds_the_least_cut_of_every_request():
    rng = np.random.default_rng(4)
    checked = 0
    for inst in _random_instances(12, 40, max_n=5, max_m=6):
        for g in _components(inst)[1]:
            sub = request_subdags(g)
            x = rng.random(len(g.tails)) * rng.choice([0.3, 0.6, 1.0])
            cuts = separate(x, sub)
            tails, heads = g.tails.tolist(), g.heads.tolist()
            for r, d in enumerate(sub):
                below = [v for v in range(len(g.sets)) if g.sets[v] & g.sets[g.requests[r]] == g.sets[v]]
                assert sorted(d.nodes.tolist()) == sorted(below)
                if len(below) > 14:
                    continue
                least = naive_min_dicut(tails, heads, x, 0, g.requests[r], below)
                mine = [c for c in cuts if c[0] == r]
                assert bool(mine) == (least < 1 - 1e-6)
                for _, nodes, arcs in mine:
                    S = set(nodes)
                    assert g.requests[r] in S and 0 not in S
                    assert sorted(arcs.tolist()) == [a for a in range(len(tails)) if heads[a] in S
                                                     and tails[a] not in S]
                    assert abs(x[arcs].sum() - least) < 1e-4
                checked += 1
    assert checked > 50


def test_steiner_node_separation_finds_the_least_cut_below_in_v():
    # goal in(v) per sub-DAG: a cut is returned iff the least cut of D_v is below in(v), never one
    # at or above it (the kernel's threshold is goal - tol, not 1 - tol)
    rng = np.random.default_rng(6)
    checked = hits = 0
    for inst in _random_instances(13, 60, max_n=6, max_m=9):
        for g in _components(inst)[1]:
            steiner = [v for v in range(1, len(g.sets)) if v not in set(g.requests)]
            if not steiner:
                continue
            sub = request_subdags(g, targets=steiner)
            x = rng.random(len(g.tails)) * rng.choice([0.3, 0.6, 1.0])
            inflow = np.zeros(len(g.sets))
            np.add.at(inflow, g.heads, x)
            goal = inflow[steiner]
            cuts = separate(x, sub, goal=goal)
            tails, heads = g.tails.tolist(), g.heads.tolist()
            for r, v in enumerate(steiner):
                below = sub[r].nodes.tolist()
                if len(below) > 14:
                    continue
                least = naive_min_dicut(tails, heads, x, 0, v, below)
                mine = [c for c in cuts if c[0] == r]
                assert bool(mine) == (least < goal[r] - 1e-6)
                for _, nodes, arcs in mine:
                    S = set(nodes)
                    assert v in S and 0 not in S
                    assert sorted(arcs.tolist()) == [a for a in range(len(tails)) if heads[a] in S
                                                     and tails[a] not in S]
                    assert abs(x[arcs].sum() - least) < 1e-4
                checked += 1
                hits += bool(mine)
    assert checked > 50 and 0 < hits < checked


def test_vertex_branching_and_steiner_cuts_keep_the_dp_value():
    for inst in _random_instances(26, 20, max_n=7, max_m=10):
        single, graphs = _components(inst)
        for kw in ({"vertex_branching": True}, {"steiner_cuts": True}):
            total = single
            for g in graphs:
                st, b, x, _ = branch_and_cut(g, request_subdags(g), time_limit=None, **kw)
                assert st == "optimal" and reachable_all(g, x) and b == int(g.costs[x].sum())
                total += b
            assert total == opt_free(inst).value


def _assert_valid_cuts(g, cuts, x, per_request):
    tails, heads = g.tails.tolist(), g.heads.tolist()
    count = {}
    for r, nodes, arcs in cuts:
        S = set(nodes)
        assert g.requests[r] in S and 0 not in S
        assert sorted(arcs.tolist()) == [a for a in range(len(tails)) if heads[a] in S and tails[a] not in S]
        assert x[arcs].sum() < 1 - 1e-6
        count[r] = count.get(r, 0) + 1
    assert max(count.values(), default=0) <= per_request
    return count


def test_nested_cuts_are_valid_and_all_returned():
    # 63 of the 5-sets of 9 chunks: at the cover LP's point the requests give more than 2 + nested
    # cuts each on average (337 with nested = 2: an output sized for 4 a request overflowed)
    import itertools

    inst = from_lists([list(c) for c in random.Random(0).sample(list(itertools.combinations(range(9), 5)), 63)])
    (g,) = _components(inst)[1]
    sub = request_subdags(g)
    x = cut_lp(g, subdags=sub, max_rounds=0).x
    for nested in (0, 2):
        count = _assert_valid_cuts(g, separate(x, sub, nested=nested), x, 2 * (1 + nested))
        assert sum(count.values()) > (2 + nested) * len(g.requests) or nested == 0
    rng = np.random.default_rng(5)
    for inst in _random_instances(25, 30, max_n=6, max_m=7):
        for g in _components(inst)[1]:
            x = rng.random(len(g.tails)) * 0.7
            _assert_valid_cuts(g, separate(x, request_subdags(g), nested=3), x, 8)


def _check_cut_lp_between(seed, count):
    stronger = 0
    for inst in _random_instances(seed, count):
        single, graphs = _components(inst)
        cover = cut = float(single)
        for g in graphs:
            h = highs_model(component_model(g), integer=False, time_limit=None)
            h.run()
            cover += h.getInfo().objective_function_value
            r = cut_lp(g)
            assert r.converged and abs(r.cover_value - h.getInfo().objective_function_value) < 1e-6
            cut += r.value
        opt = opt_free(inst).value
        assert cover - 1e-6 <= cut <= opt + 1e-6
        stronger += cut > cover + 1e-6
    return stronger


def test_cut_lp_is_between_the_cover_lp_and_opt_free():
    assert _check_cut_lp_between(13, 40) >= 3  # the cuts do raise the bound on some of them


@pytest.mark.slow
def test_cut_lp_between_many():
    assert _check_cut_lp_between(17, 600) >= 20


def test_k4_cut_lp():
    # K4^(3): the cover LP is 20/3, the directed cuts raise it to 22/3; OPT_free is 8
    (g,) = _components(k4_3())[1]
    assert abs(cut_lp(g).value - 22 / 3) < 1e-6


def test_round_selection_ranks_within_a_request_then_by_violation():
    from mptsearch.exact.dcut import _select

    x = np.array([0.1, 0.2, 0.3, 0.4, 0.05])
    c = [(("cut", 0, ()), np.array([2])), (("cut", 0, ()), np.array([0])), (("cut", 1, ()), np.array([3])),
         (("cut", 1, ()), np.array([1])), (("cut", 2, ()), np.array([4]))]
    pick = lambda **kw: [int(a[0]) for _, a in _select(c, x, kw.get("max_cuts"), kw.get("per_request"))]  # noqa: E731
    assert pick(per_request=1) == [4, 0, 1]  # the most violated of each request, by violation
    assert pick(max_cuts=4) == [4, 0, 1, 2]  # every request's best before any second cut
    assert pick(max_cuts=2, per_request=1) == [4, 0]
    assert pick(per_request=2) == [4, 0, 1, 2, 3]


@pytest.mark.parametrize("cfg", [{"max_cuts": 1}, {"per_request": 1}, {"drop_after": 1},
                                 {"max_cuts": 1, "per_request": 1, "drop_after": 1},
                                 {"max_cuts": 1, "cut_growth": 1.5, "drop_after": 1}])
def test_cut_management_keeps_the_cut_lp(cfg):
    # a cut dropped to the pool, or held back by a round's cap, must come back when violated: the
    # converged loop has the value of the full cut LP whatever the selection
    (k4,) = _components(k4_3())[1]
    graphs = [k4] + [g for inst in _random_instances(32, 16, max_n=9, max_m=16) for g in _components(inst)[1]]
    dropped = 0
    for g in graphs:
        ref = cut_lp(g)
        r = cut_lp(g, max_rounds=1000, **cfg)
        assert ref.converged and r.converged
        assert abs(r.value - ref.value) < 1e-6, (cfg, r.value, ref.value)
        if "max_cuts" in cfg:
            grown = np.diff([h[2] for h in r.history])
            caps = [int(cfg["max_cuts"] * cfg.get("cut_growth", 1.0) ** j) for j in range(len(grown))]
            assert (grown <= np.array(caps, dtype=np.int64)).all()
        dropped += any(b[2] < a[2] for a, b in zip(r.history, r.history[1:]))
    assert abs(cut_lp(k4, max_rounds=1000, **cfg).value - 22 / 3) < 1e-6
    if cfg.get("drop_after") == 1:
        assert dropped  # rows did leave the LP on some instance (the case the test is about)


@pytest.mark.parametrize("seed,count", [(14, 25), pytest.param(18, 400, marks=pytest.mark.slow)])
def test_branch_and_cut_equals_the_dp(seed, count):
    for inst in _random_instances(seed, count, max_n=7, max_m=10):
        r = opt_free_dcut(inst)
        assert r.optimal and r.value == opt_free(inst).value == r.lower == r.upper
        assert trie_cost(inst, r.layout) == r.value
        assert r.lower <= r.lp_bound + 1 - 1e-9 or "tree" in r.status


def test_a_tiny_root_cap_keeps_the_exact_values_and_the_certificate(monkeypatch):
    # one cut in the root's first round, growing slowly, slack rows dropped after one round: many
    # rounds and rows re-added from the pool; the values must still be the DP's and the LP dual
    # with its cut rows must still verify in fractions
    from mptsearch.verify.lpdual import check_dual, dual_certificate

    import mptsearch.exact.dcut as dcut_mod

    seen = []
    real = dcut_mod.cut_lp

    def tiny(g, **kw):
        # without the dual ascent's starting cuts, which leave these loops two rounds at most
        kw.update(max_cuts=1, cut_growth=1.2, drop_after=1, max_rounds=1000, tail_rounds=None, ascent_cuts=())
        r = real(g, **kw)
        assert r.converged and abs(r.value - real(g).value) < 1e-6  # the full cut LP's value
        seen.append((r.rounds, r.readded))
        return r

    monkeypatch.setattr(dcut_mod, "cut_lp", tiny)
    for inst in _random_instances(21, 30, max_n=9, max_m=16):
        r = opt_free_dcut(inst, keep_duals=True)
        assert r.optimal and r.value == opt_free(inst).value
        got = check_dual(inst, dual_certificate(inst, r))
        assert got.ok and got.lower <= r.value
    assert max(a for a, _ in seen) >= 4  # the cap did force several rounds
    assert sum(b for _, b in seen) > 0  # and rows came back from the pool


def test_phases_record_the_bracket_as_it_narrows():
    rng = np.random.default_rng(2)
    p = 1.0 / (np.arange(40) + 1) ** 1.1
    reqs = {tuple(sorted(rng.choice(40, size=6, replace=False, p=p / p.sum()).tolist())) for _ in range(40)}
    r = opt_free_dcut(from_lists(sorted(reqs)))
    # one component of 183 sets: the dual ascent, the root LP (125), the search (126), the tree proving 126
    assert [ph[1] for ph in r.phases] == ["dual ascent", "root", "search", "fixing", "support", "tree"]
    assert all(ph[0] == 0 for ph in r.phases)
    assert all(a[2] <= b[2] for a, b in zip(r.phases, r.phases[1:]))
    assert all(up is None or low <= up for _, _, _, low, up in r.phases)
    assert r.phases[0][3] <= r.phases[1][3] == math.ceil(r.lp_bound - 1e-6) < r.value
    assert r.optimal and r.phases[-1][3:] == (r.value, r.value) == (126, 126)


def test_branch_and_cut_on_known_families():
    assert opt_free_dcut(k4_3()).value == 8
    assert opt_free_dcut(leave_one_out(5)).value == 12
    assert opt_free_dcut(sunflowers(3, 4)).value == 27


def test_small_instances_against_the_naive_dp():
    for inst in _random_instances(15, 20, max_n=5, max_m=6):
        assert opt_free_dcut(inst).value == naive_opt_free(inst.requests, [int(w) for w in inst.weights])


@pytest.mark.parametrize("seed,count", [(16, 15), pytest.param(19, 200, marks=pytest.mark.slow)])
def test_reduced_cost_fixing_keeps_an_optimum(seed, count):
    hit = 0
    for inst in _random_instances(seed, count):
        for g in _components(inst)[1]:
            sub = request_subdags(g)
            lp = cut_lp(g, subdags=sub)
            st, opt, x, _ = branch_and_cut(g, sub, time_limit=None)
            assert st == "optimal" and reachable_all(g, x)
            # an upper bound one above the optimum: the optimum must survive the fixing
            zero, one = reduced_cost_fixing(lp.value, lp.reduced, opt + 1)
            st2, b2, x2, _ = branch_and_cut(g, sub, time_limit=None, fixed_zero=zero, fixed_one=one, cutoff=opt + 1)
            assert x2 is not None and int(g.costs[x2].sum()) == opt
            # at the optimum itself nothing cheaper exists: the bound comes back as the cutoff
            zero, one = reduced_cost_fixing(lp.value, lp.reduced, opt)
            st3, b3, x3, _ = branch_and_cut(g, sub, time_limit=None, fixed_zero=zero, fixed_one=one, cutoff=opt)
            assert x3 is None and b3 == opt
            hit += int(zero.sum())
    assert hit > 0


def test_out_of_time_gives_a_bracket_not_a_guess():
    rng = np.random.default_rng(0)
    p = 1.0 / (np.arange(60) + 1) ** 1.1
    p /= p.sum()
    reqs = sorted({tuple(sorted(rng.choice(60, size=6, replace=False, p=p).tolist())) for _ in range(40)})
    inst = from_lists(reqs)
    r = opt_free_dcut(inst, time_limit=0.01, max_rounds=1)
    assert r.lower <= r.upper == trie_cost(inst, r.layout)
    if not r.optimal:
        assert r.value is None and r.gap > 0


def test_the_scip_build_reads_the_clock(monkeypatch):
    # the model build is Python: with a clock that moves one second per reading and a limit of
    # 2.5 s, the build must stop at its second check, before SCIP runs (the old build had no
    # check and handed SCIP the whole limit after building)
    import types

    import mptsearch.exact.dcut_bnc as bnc

    rng = np.random.default_rng(1)
    p = 1.0 / (np.arange(80) + 1) ** 1.1
    p /= p.sum()
    inst = from_lists(sorted({tuple(sorted(rng.choice(80, size=7, replace=False, p=p).tolist()))
                              for _ in range(60)}))
    _, (g,) = _components(inst)
    sub = request_subdags(g)
    st, b, x, nodes = branch_and_cut(g, sub, time_limit=60)
    assert st == "optimal" and x is not None
    ticks = iter(range(1, 10_000))
    fake = (lambda: float(next(ticks)))
    monkeypatch.setattr(bnc, "time", types.SimpleNamespace(perf_counter=fake, process_time=fake))
    for clock in ("wall", "cpu"):
        stats = {}
        assert branch_and_cut(g, sub, time_limit=2.5, stats=stats, clock=clock) == ("timelimit", None, None, 0)
        assert stats["built"] is False
        assert branch_and_cut(g, sub, time_limit=0.0, clock=clock) == ("timelimit", None, None, 0)


def test_a_tiny_limit_is_kept_within_a_margin():
    # every phase reads the clock: with 0.2 CPU s the call ends within a few CPU s, whatever
    # the instance's tree would need
    import time

    rng = np.random.default_rng(2)
    p = 1.0 / (np.arange(300) + 1) ** 1.1
    p /= p.sum()
    inst = from_lists(sorted({tuple(sorted(rng.choice(300, size=10, replace=False, p=p).tolist()))
                              for _ in range(200)}))
    t = time.process_time()
    r = opt_free_dcut(inst, time_limit=0.2, clock="cpu")
    spent = time.process_time() - t
    assert r.lower <= r.upper == trie_cost(inst, r.layout)
    assert spent < 0.2 + 5.0, spent


def test_a_cpu_second_limit_gives_a_bracket_too():
    inst = from_lists([[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3], [2, 3, 4]])
    r = opt_free_dcut(inst, time_limit=30, clock="cpu")
    assert r.optimal and r.value == opt_free(inst).value
    with pytest.raises(ValueError, match="clock"):
        opt_free_dcut(inst, clock="sundial")


def test_layout_exact_bound_on_a_small_trace(tmp_path, capsys):
    import json

    from mptsearch.cli import main

    lines = [["a", "b", "c"], ["a", "b", "d"], ["a", "c", "d"], ["b", "c", "d"], ["c", "d", "e"], ["a", "b", "c"]]
    tokens = {"a": 5, "b": 3, "c": 7, "d": 2, "e": 4}
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps({"id": f"q{i}", "chunks": l, "tokens": [tokens[c] for c in l]}) + "\n"
                            for i, l in enumerate(lines)))
    want = opt_free(from_lists(lines[:-1], tokens)).value
    assert main(["layout", str(path), "--method", "agglomerative", "--no-bound", "-q", "--exact-bound", "30",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    e = doc["exact_bound"]
    assert e["optimal"] and e["lower"] == e["upper"] == want and e["gap"] == 0
    assert main(["layout", str(path), "--method", "agglomerative", "--no-bound", "-q", "--exact-bound", "30"]) == 0
    assert f"OPT_free = {want}:" in capsys.readouterr().out
    assert main(["layout", str(path), "--no-bound", "-q", "--exact-bound", "-1"]) == 2


def test_auto_takes_the_directed_cuts_from_dcut_m(monkeypatch):
    from mptsearch.exact import auto

    rng = random.Random(8)
    reqs = list({tuple(sorted(rng.sample(range(9), 3))) for _ in range(40)})
    inst = from_lists([list(r) for r in reqs], [1 + i % 3 for i in range(9)])
    monkeypatch.setattr(auto, "DCUT_M", 10)
    r, method = auto.opt_free_exact(inst, max_dp_m=5)
    assert method == "dcut" and r.optimal and inst.m > 20
    monkeypatch.setattr(auto, "DCUT_M", 10_000)
    r2, method2 = auto.opt_free_exact(inst, max_dp_m=5)
    assert method2 == "closure" and r2.optimal and r2.value == r.value  # two programs, one value


def test_interior_point_rounds_keep_the_cut_lp_and_its_certificate(monkeypatch):
    # the re-solves by IPX and crossover (cut_lp's ipm_rows) must reach the dual simplex loop's
    # value, and the solver's LP dual after them must still verify in fractions at the ceiling of
    # that value (K4^(3): 22/3, so 8, OPT_free)
    import math

    import mptsearch.exact.dcut_bnc as bnc
    from mptsearch.verify.lpdual import check_dual, dual_certificate

    graphs = [g for inst in [k4_3()] + _random_instances(41, 14, max_n=9, max_m=16) for g in _components(inst)[1]]
    used = 0
    for g in graphs:
        ref = cut_lp(g)
        for rows in (0, 1):
            r = cut_lp(g, ipm_rows=rows)
            assert r.converged and abs(r.value - ref.value) < 1e-6, (rows, r.value, ref.value)
            used += r.solvers.count("ipx")
            assert rows or set(r.solvers) == {"ipx"}
    assert used > len(graphs)  # the interior point did solve after rounds of cuts
    monkeypatch.setattr(bnc, "ROOT_IPM_ROWS", 1)
    for inst in [k4_3()] + _random_instances(43, 10, max_n=8, max_m=11):
        r = opt_free_dcut(inst, keep_duals=True)
        assert r.optimal and r.value == opt_free(inst).value
        got = check_dual(inst, dual_certificate(inst, r))
        assert got.ok and got.lower <= r.value
        assert got.lower == sum(math.ceil(v - 1e-6) for *_, v in r.duals) or len(r.duals) > 1
    got = check_dual(k4_3(), dual_certificate(k4_3(), opt_free_dcut(k4_3(), keep_duals=True)))
    assert got.ok and got.lower == 8

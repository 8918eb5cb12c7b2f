"""The extended blend model of docs/beyond_prefix.md section 9 (a measured loss table with a menu
of recompute ratios, token-weighted mismatch, isolated copies): the exhaustive solver against the
brute-force twin ``naive_opt_blend_table`` (tests/naive.py, no shared code), the special cases
that must reproduce section 1.2's model, the page's computed examples, and the calibration file's
errors (one line, exit 2)."""

import json
import random

import pytest

from mptsearch.blend.calibration import calibration_from_points, read_calibration
from mptsearch.blend.exact import blend_summary, layouts_count, opt_blend
from mptsearch.blend.heuristic import node_table, price_first
from mptsearch.blend.model import BlendParams
from mptsearch.cli import main
from mptsearch.exact.free import opt_free
from mptsearch.instance import InstanceError, parse_instance

from .naive import naive_opt_blend, naive_opt_blend_table

TOL = 1e-9


def _instance(rng, weights):
    while True:
        n, m = 4, rng.randint(2, 3)
        reqs = set()
        while len(reqs) < m:
            reqs.add(tuple(sorted(rng.sample(range(n), rng.randint(1, 3)))))
        reqs = [list(r) for r in reqs]
        for r in reqs:
            rng.shuffle(r)
        inst = parse_instance({"requests": reqs, "weights": [rng.randint(1, 3) if weights else 1 for _ in range(n)]})
        if layouts_count(inst) <= 36:
            return inst


def _table(rng):
    pts = []
    for r in rng.sample([0.0, 0.1, 0.2, 0.4], rng.randint(1, 3)):
        g, d = rng.choice([0.5, 1.0, 1.5]), 0
        pts.append((r, 0, g))
        for _ in range(rng.randint(0, 2)):
            d += rng.choice([1, 2])
            g += rng.choice([0.0, 0.5, 2.0])
            pts.append((r, d, g))
    return pts


@pytest.mark.parametrize("seed", range(8))
def test_extended_model_against_the_brute_force(seed):
    rng = random.Random(900 + seed)
    inst = _instance(rng, weights=seed % 2 == 1)
    w = [int(v) for v in inst.weights]
    for _ in range(3):
        pts, lam = _table(rng), rng.choice([0.05, 0.1, 0.3])
        for tokens in (False, True):
            for iso in (False, True):
                p = BlendParams(0.0, lam, calibration=calibration_from_points(pts), mismatch="tokens" if tokens else "chunks",
                                isolated=iso)
                d = blend_summary(inst, p)
                assert d["opt_blend"] == pytest.approx(naive_opt_blend_table(inst.orders, w, pts, lam, tokens, iso))
                assert d["rechecked"]["match"] and d["exact"]


def test_beta_model_is_the_two_point_table_and_tokens_are_chunks_at_unit_weights():
    rng = random.Random(3)
    for _ in range(4):
        inst = _instance(rng, weights=False)
        for r, lam, beta in ((0.15, 0.1, 1.0), (0.05, 0.02, 3.0)):
            table = calibration_from_points([(r, 0, 1), (r, 1, 1 + beta)])
            plain = opt_blend(inst, BlendParams(r, lam, beta)).value
            assert opt_blend(inst, BlendParams(r, lam, calibration=table)).value == pytest.approx(plain)
            assert opt_blend(inst, BlendParams(r, lam, beta, mismatch="tokens")).value == pytest.approx(plain)
            assert plain == pytest.approx(naive_opt_blend(inst.orders, [1] * inst.n, r, lam, beta)[0])


MENU = [(0.1, 0, 1), (0.1, 1, 3), (0.4, 0, 0.5), (0.4, 1, 0.7)]  # g(0.1, d) = 1 + 2 d, g(0.4, d) = 0.5 + 0.2 d


def _menu_values(inst):
    return [opt_blend(inst, BlendParams(0.0, 0.1, calibration=calibration_from_points(q), isolated=True)).value
            for q in (MENU, MENU[:2], MENU[2:])]


def test_menu_beats_each_of_its_ratios_with_isolated_copies():
    # 012 3, lambda = 0.1, isolated copies: the menu 1.29, r = 0.1 alone 1.4, r = 0.4 alone 1.86
    # (shallow nodes take the low ratio, deep ones the high)
    inst = parse_instance("012 3")
    assert _menu_values(inst) == pytest.approx([1.29, 1.4, 1.86])
    assert naive_opt_blend_table(inst.orders, [1] * 4, MENU, 0.1, False, True) == pytest.approx(1.29)


@pytest.mark.slow
def test_menu_on_k43_by_both_solvers():
    inst = parse_instance("012 013 023 123")
    assert _menu_values(inst) == pytest.approx([3.16, 3.6, 3.8])
    assert naive_opt_blend_table(inst.orders, [1] * 4, MENU, 0.1, False, True) == pytest.approx(3.16)


def test_isolated_copies_lower_bound_and_free_reuse():
    # every node costs at least c w, none need be full: J >= c COST(L); r = lambda = 0 costs nothing
    rng = random.Random(5)
    for _ in range(4):
        inst = _instance(rng, weights=True)
        free = opt_free(inst).value
        for r, lam, beta in ((0.15, 0.1, 1.0), (0.3, 0.0, 0.0)):
            p = BlendParams(r, lam, beta, isolated=True)
            v = opt_blend(inst, p).value
            assert p.c * free - TOL <= v <= free + TOL
            if beta == 0:
                assert v == pytest.approx(p.c * free)  # constant loss: J = c COST(L)
        assert opt_blend(inst, BlendParams(0.0, 0.0, isolated=True)).value == 0


def test_token_mismatch_needs_the_token_c_prime_in_p8():
    # requests 01 and 21, weights 5, 1, 5, served as given: chunk 1's second node is at token
    # mismatch 10; r = 0.1, lambda = 0.05, beta = 1: the first-copy rule blends it at 0.65, so
    # J = 11.65 > 11.25 = P8's bound with the chunk-count c' = 0.25, and = the bound with the
    # token c' = r + lambda (1 + 2 beta M) = 0.65, M = 5 the largest context weight
    inst = parse_instance({"requests": [[0, 1], [2, 1]], "weights": [5, 1, 5]})
    lay = [(0, 1), (2, 1)]
    p = BlendParams(0.1, 0.05, 1.0, mismatch="tokens")
    from mptsearch.blend.model import price_layout

    j = price_layout(inst, lay, p).objective
    assert j == pytest.approx(11.65)
    cp_count, cp_tokens = 0.1 + 0.05 * 3, 0.1 + 0.05 * (1 + 2 * 5)
    assert j > (1 - cp_count) * 11 + cp_count * 12 + 0.3
    assert j == pytest.approx((1 - cp_tokens) * 11 + cp_tokens * 12)
    c_, l_ = price_first(node_table(inst.weights, lay), BlendParams(0.1, 0.05, 1.0))  # chunk count: d = 2
    assert c_ + 0.05 * l_ == pytest.approx(11.25)


def test_calibration_files(tmp_path):
    pts = [(0.15, 0, 1.0), (0.15, 1, 2.0), (0.3, 0, 0.5), (0.3, 2, 0.9)]
    csv_path = tmp_path / "t.csv"
    csv_path.write_text("r,mismatch,loss\n" + "".join(f"{a},{b},{c}\n" for a, b, c in pts))
    js = tmp_path / "t.json"
    js.write_text(json.dumps({"points": [{"r": a, "mismatch": b, "loss": c} for a, b, c in pts]}))
    a, b = read_calibration(str(csv_path)), read_calibration(str(js))
    assert a == b == calibration_from_points(pts)
    assert a.loss(0.3, 1) == pytest.approx(0.7) and a.loss(0.3, 4) == pytest.approx(1.3)  # last segment continued
    assert a.loss(0.15, 0.5) == pytest.approx(1.5) and a.ratios == (0.15, 0.3)


@pytest.mark.parametrize("text, words", [
    ("r,d,loss\n0.1,0,1\n", "header r,mismatch,loss"),
    ("r,mismatch,loss\n1.5,0,1\n", "r must lie in [0, 1], got 1.5"),
    ("r,mismatch,loss\n0.1,1,1\n", "r=0.1 has no point at mismatch 0"),
    ("r,mismatch,loss\n0.1,0,2\n0.1,1,1\n", "decreases with the mismatch"),
    ("r,mismatch,loss\n0.1,0,1\n0.1,0,2\n", "is given twice"),
    ("r,mismatch,loss\n0.1,0,x\n", "expected numbers"),
    ("r,mismatch,loss\n", "no points"),
])
def test_bad_calibration_is_one_line_and_exit_2(tmp_path, capsys, text, words):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    code = main(["blend", "012 013", "--calibration", str(path), "--price", "0.1"])
    _, err = capsys.readouterr()
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1
    with pytest.raises(InstanceError):
        read_calibration(str(path))


def test_cli_calibration_options(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("r,mismatch,loss\n0.15,0,1\n0.15,1,2\n")
    code = main(["blend", "012 013 023 123", "--calibration", str(path), "--price", "0.1", "--json"])
    d = json.loads(capsys.readouterr()[0])
    assert code == 0 and d["opt_blend"] == pytest.approx(5.95) and d["rechecked"]["match"]  # C1's value: beta = 1
    for args, words in ((["--calibration", str(path), "--r", "0.1"], "leave out --r"), ([], "give the recompute"),
                        (["--calibration", str(tmp_path / "none.csv")], "cannot read the calibration file")):
        code = main(["blend", "012 013"] + args)
        assert code == 2 and words in capsys.readouterr()[1]
    # a trace takes the extended model too: at lambda = 0 every node blends from its isolated copy
    code = main(["blend", "tests/data/serving_small.jsonl", "--trace", "--r", "0.1", "--isolated-copies", "--json"])
    d = json.loads(capsys.readouterr()[0])
    assert code == 0 and d["cost"] == pytest.approx(0.1 * d["prefix_cost"]) and d["parameters"]["isolated_copies"]

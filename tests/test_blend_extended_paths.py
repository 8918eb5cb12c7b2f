"""The extended blend model (docs/beyond_prefix.md section 9: a loss table with a menu of
recompute ratios, token mismatch, isolated copies) on every path that prices a layout: the
trace rules (``blend --trace``, ``layout --blend``; :func:`mptsearch.blend.trace.price_rows`),
the finite-cache replay (``simulate --blend``) and ``anneal --objective blend``'s certificate.
Each is compared with twins in tests/naive.py that share no code with the package: the
node-by-node rule twin, the serving twin, and the brute force over every mode, source and
ratio of a fixed layout (the one-copy rule must equal it restricted to one copy per chunk,
the greedy rule must lie between it and the one-copy rule). The CLI tests fail when a path
prices with section 1.2's model instead of the table it was given."""

import json
import random

import numpy as np
import pytest

from mptsearch.blend.calibration import calibration_from_points
from mptsearch.blend.cache import simulate_blend
from mptsearch.blend.model import BlendParams
from mptsearch.blend.spec import make_params, parse_blend_spec
from mptsearch.blend.trace import price_rows
from mptsearch.cli import main
from mptsearch.instance import InstanceError
from mptsearch.serving.cache import simulate

from .naive import naive_blend_rule_ext, naive_blend_serving, naive_opt_blend_table
from .test_blend_calibration import _table  # the same random loss tables

TOL = 1e-9
# g(0.1, d) = 1 + 2d, g(0.4, d) = 0.5 + 0.2d: shallow nodes take 0.1, deep ones 0.4 (section 9, C7)
MENU = [(0.1, 0, 1.0), (0.1, 1, 3.0), (0.4, 0, 0.5), (0.4, 1, 0.7)]


def _rows(rng, n=5, m=4, k=3):
    rows = [rng.sample(range(n), rng.randint(1, k)) for _ in range(m)]
    rows += [list(rows[rng.randrange(m)]) for _ in range(rng.randint(0, 1))]  # a repeated line
    return rows


def _params(pts, lam, tokens, iso, per_answer=False, r=None, beta=0.0):
    cal = calibration_from_points(pts) if pts is not None else None
    return make_params(r, lam, beta, per_answer, cal, "tokens" if tokens else "chunks", iso)


@pytest.mark.parametrize("seed", range(6))
def test_trace_rules_match_the_rule_twin(seed):
    rng = random.Random(3600 + seed)
    for _ in range(12):
        w = np.array([rng.randint(1, 4) for _ in range(6)], dtype=np.int64)
        rows = _rows(rng, n=6, m=rng.randint(2, 7), k=4)
        pts = _table(rng) if rng.random() < 0.7 else None
        lam = rng.choice([0.02, 0.1, 0.3])
        tokens, iso, per = rng.random() < 0.5, rng.random() < 0.5, rng.random() < 0.3
        r, beta = (None, 0.0) if pts is not None else (rng.choice([0.0, 0.15]), rng.choice([0.0, 1.0]))
        if pts is None and not tokens and not iso:
            iso = True  # keep to the extended model
        p = _params(pts, lam, tokens, iso, per, r, beta)
        for rule in ("first", "greedy"):
            for cap in ((1, 32) if rule == "greedy" else (32,)):
                want = naive_blend_rule_ext(w, rows, lam, points=pts, r=r, beta=beta, tokens=tokens, isolated=iso,
                                            rule=rule, per_answer=per, cap=cap)
                if cap == 32:
                    got = price_rows(w, rows, p, rule)
                    got = (got["cost"], got["loss"])
                else:
                    from mptsearch.blend.heuristic import node_table, price_greedy

                    got = price_greedy(node_table(w, rows), p, cap)
                assert got == (pytest.approx(want[0], abs=TOL), pytest.approx(want[1], abs=TOL)), (rows, rule, cap)


@pytest.mark.parametrize("seed", range(6))
def test_trace_rules_against_the_brute_force_on_the_layout(seed):
    """one-copy rule = brute force with one copy per chunk; brute force <= greedy <= one-copy."""
    rng = random.Random(3700 + seed)
    for _ in range(6):
        w = [rng.randint(1, 3) for _ in range(4)]
        rows = _rows(rng, n=4, m=rng.randint(2, 4), k=3)
        pts, lam = _table(rng), rng.choice([0.05, 0.1, 0.3])
        for tokens in (False, True):
            for iso in (False, True):
                p = _params(pts, lam, tokens, iso)
                args = dict(layouts=[rows], tokens=tokens, isolated=iso)
                one = naive_opt_blend_table(None, w, pts, lam, one_copy=True, **args)
                best = naive_opt_blend_table(None, w, pts, lam, **args)
                first, greedy = (price_rows(np.array(w), rows, p, rule)["objective"] for rule in ("first", "greedy"))
                assert first == pytest.approx(one, abs=TOL)
                assert best - TOL <= greedy <= first + TOL


def test_extended_rules_reproduce_section_1_2_with_its_table():
    """The table {(r, 0, 1), (r, 1, 1 + beta)} is section 1.2's model: both rules give its numbers."""
    rng = random.Random(5)
    for _ in range(20):
        w = np.array([rng.randint(1, 5) for _ in range(6)], dtype=np.int64)
        rows = _rows(rng, n=6, m=6, k=4)
        r, lam, beta = rng.choice([0.0, 0.15, 0.3]), rng.choice([0.01, 0.1]), rng.choice([0.5, 1.0, 2.0])
        table = make_params(None, lam, calibration=calibration_from_points([(r, 0, 1), (r, 1, 1 + beta)]))
        plain = BlendParams(r, lam, beta)
        for rule in ("first", "greedy"):
            a, b = price_rows(w, rows, table, rule), price_rows(w, rows, plain, rule)
            assert (a["cost"], a["loss"]) == (pytest.approx(b["cost"], abs=TOL), pytest.approx(b["loss"], abs=TOL))


def test_simulate_blend_extended_matches_the_serving_twin():
    rng = random.Random(11)
    for case in range(40):
        w = np.array([rng.randint(1, 4) for _ in range(6)], dtype=np.int64)
        seqs = [tuple(s) for s in _rows(rng, n=6, m=rng.randint(2, 8), k=4)]
        big = max(int(w[list(s)].sum()) for s in seqs)
        cap = rng.choice([None, big, 2 * big, rng.randint(0, 3 * big)])
        pts, lam = _table(rng), rng.choice([0.05, 0.1, 0.3])
        tokens, iso = case % 2 == 1, case % 4 >= 2
        p = _params(pts, lam, tokens, iso)
        order = list(range(len(seqs)))
        rng.shuffle(order)
        b = simulate_blend(w, seqs, order, cap, p)
        cost, loss, blended = naive_blend_serving(w, seqs, order, cap, None, lam, 0.0, points=pts, tokens=tokens,
                                                  isolated=iso)
        assert (b.cost, b.loss, b.blended) == (pytest.approx(cost, abs=TOL), pytest.approx(loss, abs=TOL), blended)
        if iso:
            assert b.no_copy == b.evicted_copy == 0  # isolated copies are never evicted
        if cap is None:  # unbounded, served in the given order: the trace pricing of the same lines
            t = price_rows(w, [seqs[j] for j in order], p, "greedy")
            assert (b.cost, b.loss) == (pytest.approx(t["cost"], abs=TOL), pytest.approx(t["loss"], abs=TOL))
        assert b.prefill == simulate(w, [list(seqs[j]) for j in order], cap, "arrival", 1).prefill


# ---- the commands: the table must reach the pricing ----------------------------------------------

TRACE_LINES = [
    {"id": "a", "chunks": ["x", "y", "z"], "tokens": [3, 2, 4]},
    {"id": "b", "chunks": ["y", "x", "w"], "tokens": [2, 3, 1]},
    {"id": "c", "chunks": ["z", "w", "y", "v"], "tokens": [4, 1, 2, 5]},
    {"id": "d", "chunks": ["v", "x"], "tokens": [5, 3]},
    {"id": "e", "chunks": ["w", "z", "x"], "tokens": [1, 4, 3]},
]


@pytest.fixture
def files(tmp_path):
    trace = tmp_path / "t.jsonl"
    trace.write_text("".join(json.dumps(ln) + "\n" for ln in TRACE_LINES))
    cal = tmp_path / "menu.csv"
    cal.write_text("r,mismatch,loss\n" + "".join(f"{r},{d},{g}\n" for r, d, g in MENU))
    return str(trace), str(cal)


def _lines_as_rows(trace):
    """The trace's weights and lines (chunk ids) as the reader gives them: production order."""
    from mptsearch.serving.sparse import read_sparse

    tr = read_sparse(trace)
    return tr.weights, [tr.chunks[tr.indptr[j]:tr.indptr[j + 1]].tolist() for j in range(tr.size)]


def _run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("mism, iso", [("chunks", False), ("tokens", False), ("chunks", True), ("tokens", True)])
def test_blend_trace_prices_with_the_table(files, mism, iso, capsys):
    trace, cal = files
    extra = ["--mismatch", mism] + (["--isolated-copies"] if iso else [])
    for rule in ("first", "greedy"):
        code, out, _ = _run(["blend", trace, "--trace", "--method", "production", "--calibration", cal,
                             "--price", "0.1", "--rule", rule, "--json", *extra], capsys)
        assert code == 0
        d = json.loads(out)
        w, rows = _lines_as_rows(trace)
        want = naive_blend_rule_ext(w, rows, 0.1, points=MENU, tokens=mism == "tokens", isolated=iso, rule=rule)
        assert (d["cost"], d["loss"]) == (pytest.approx(want[0], abs=TOL), pytest.approx(want[1], abs=TOL))
        # section 1.2's model at the table's smallest ratio gives other numbers: the table was used
        plain = naive_blend_rule_ext(w, rows, 0.1, r=0.1, beta=0.0, tokens=mism == "tokens", isolated=iso, rule=rule)
        assert abs(plain[0] + 0.1 * plain[1] - d["objective"]) > 0.05
        assert d["parameters"]["calibration"] is not None and d["parameters"]["mismatch"] == mism
        assert d["parameters"]["isolated_copies"] is iso


def test_layout_and_simulate_blend_take_the_table(files, capsys):
    trace, cal = files
    spec = f"calibration={cal},price=0.1,mismatch=tokens,isolated"
    code, out, _ = _run(["layout", trace, "--method", "production", "--no-bound", "--json", "--blend", spec], capsys)
    assert code == 0
    got = json.loads(out)["blend"]["production"]
    w, rows = _lines_as_rows(trace)
    want = naive_blend_rule_ext(w, rows, 0.1, points=MENU, tokens=True, isolated=True)
    assert (got["cost"], got["loss"]) == (pytest.approx(want[0], abs=TOL), pytest.approx(want[1], abs=TOL))
    code, out, _ = _run(["simulate", trace, "--capacity", "1x", "--json", "--blend", spec], capsys)
    assert code == 0
    got = json.loads(out)
    cap = got["capacity"]
    cost, loss, blended = naive_blend_serving(w, [tuple(r) for r in rows], list(range(len(rows))), cap, None, 0.1, 0.0,
                                              points=MENU, tokens=True, isolated=True)
    b = got["blend"]
    assert (b["cost"], b["loss"], b["blended"]) == (pytest.approx(cost, abs=TOL), pytest.approx(loss, abs=TOL), blended)
    plain, _, _ = naive_blend_serving(w, [tuple(r) for r in rows], list(range(len(rows))), cap, 0.1, 0.1, 0.0)
    assert abs(plain - b["cost"]) > 0.05  # not section 1.2's model at r = 0.1
    assert b["parameters"]["calibration"] is not None and b["parameters"]["isolated_copies"] is True


@pytest.mark.parametrize("spec, words", [
    ("r=0.1,price=x", "price must be a number"),
    ("r=0.1,colour=3", "is not one of"),
    ("r=0.1,r=0.2", "r is given twice"),
    ("price=0.1", "give the recompute fraction r="),
    ("r=0.1,isolated=yes", "is not one of"),
    ("r=0.1,mismatch=bytes", "counted in chunks or tokens"),
    ("calibration=none.csv,price=0.1", "cannot read the calibration file"),
])
def test_blend_spec_errors(spec, words):
    with pytest.raises(InstanceError, match=words):
        parse_blend_spec(spec)


def test_blend_spec_forms_build_the_same_model(files):
    _, cal = files
    assert parse_blend_spec("0.15,0.05,1") == parse_blend_spec("r=0.15,price=0.05,beta=1") == BlendParams(0.15, 0.05, 1)
    a = parse_blend_spec(f"calibration={cal},price=0.1,isolated")
    assert a == make_params(None, 0.1, calibration=cal, isolated=True) and a.isolated and a.calibration is not None
    with pytest.raises(InstanceError, match="leave out r= and beta="):
        parse_blend_spec(f"calibration={cal},r=0.1")


# ---- blend --trace --window -------------------------------------------------------------------

def test_blend_trace_online_window(files, capsys):
    from mptsearch.serving.layout import method_orders
    from mptsearch.serving.sparse import read_sparse

    trace, _ = files
    code, _, err = _run(["blend", trace, "--trace", "--r", "0.1", "--method", "online"], capsys)
    assert code == 2 and "needs a window W (--window W)" in err
    for bad, words in ((["--window", "0"], "--window must be >= 1"),
                       (["--window", "2", "--method", "production"], "--window applies to --trace --method online")):
        code, _, err = _run(["blend", trace, "--trace", "--r", "0.1", "--method", "online", *bad], capsys)
        assert code == 2 and words in err
    code, _, err = _run(["blend", "012 013", "--r", "0.1", "--window", "2"], capsys)
    assert code == 2 and "--window applies" in err
    tr = read_sparse(trace)
    costs = set()
    for W in (1, 2, 5):
        code, out, _ = _run(["blend", trace, "--trace", "--r", "0.1", "--price", "0.05", "--beta", "1", "--method",
                             "online", "--window", str(W), "--json"], capsys)
        d = json.loads(out)
        lay, note = method_orders(tr, "online", window=W)
        want = price_rows(tr.weights, lay, BlendParams(0.1, 0.05, 1.0))
        assert code == 0 and d["note"].startswith(f"W={W}") and d["prefix_cost"] == want["prefix_cost"]
        assert (d["cost"], d["loss"]) == (want["cost"], want["loss"])
        costs.add(d["prefix_cost"])
    assert len(costs) > 1  # the window reaches the layout


# ---- anneal --objective blend with a model ------------------------------------------------------

def _anneal(args, capsys):
    return _run(["anneal", "--objective", "blend", "-k", "2", "-n", "4", "-m", "3-4", "--steps", "400", "-j", "1",
                 "-s", "2", "--json", "-q", *args], capsys)


def test_anneal_blend_prices_the_find_in_the_given_table(files, capsys):
    from mptsearch.instance import parse_instance

    _, cal = files
    code, out, _ = _anneal(["--calibration", cal, "--price", "0.1", "--mismatch", "tokens"], capsys)
    assert code == 0
    rec = json.loads(out)
    best, model = rec["best"], rec["best"]["model"]
    assert rec["settings"]["blend_model"]["calibration"] is not None and best["certified"] is True
    inst = parse_instance(best["canonical"])
    brute = naive_opt_blend_table(inst.orders, [int(v) for v in inst.weights], MENU, 0.1, tokens=True)
    assert model["opt_blend"] == pytest.approx(brute, abs=1e-6)
    assert model["gain"] == pytest.approx(best["opt_free"] / brute, abs=1e-6)
    assert model["gain"] <= model["gain_at_most"] + 1e-9  # P5
    # section 1.2's model at the table's smallest ratio prices the same find otherwise
    plain = naive_opt_blend_table(inst.orders, [int(v) for v in inst.weights], [(0.1, 0, 1.0)], 0.1, tokens=True)
    assert abs(plain - brute) > 0.05


def test_anneal_blend_constant_table_is_p2(files, tmp_path, capsys):
    path = tmp_path / "flat.csv"
    path.write_text("r,mismatch,loss\n0.15,0,1\n0.15,2,1\n0.3,0,0.4\n")
    code, out, _ = _anneal(["--calibration", str(path), "--price", "0.5"], capsys)
    best = json.loads(out)["best"]
    g = best["model"]
    c = min(0.15 + 0.5, 0.3 + 0.5 * 0.4)  # the cheapest blend at any mismatch: r = 0.3
    assert code == 0 and g["parameters"]["c"] == pytest.approx(c) and g["method"].startswith("P2 closed form")
    assert g["gain"] == pytest.approx(1 / (c + (1 - c) * best["w_U"] / best["opt_free"]), abs=1e-6)
    assert g["gain"] == pytest.approx(g["gain_at_most"], abs=1e-9)


@pytest.mark.parametrize("args, words", [
    (["--objective", "ratio", "--r", "0.1"], "--r applies to --objective blend only"),
    (["--objective", "ratio", "--isolated-copies"], "--isolated-copies applies to --objective blend only"),
    (["--objective", "blend", "--r", "0.1", "--isolated-copies"], "bounds the gain only without isolated copies"),
    (["--objective", "blend", "--price", "0.1"], "give the recompute fraction --r, or a loss table with --calibration"),
])
def test_anneal_model_option_errors(args, words, capsys):
    code, out, err = _run(["anneal", *args, "-k", "2", "-n", "4", "--steps", "10", "-j", "1", "-q"], capsys)
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1


def test_the_frontier_experiments_tables_are_what_it_says():
    """experiments/beyond_prefix.py's models: g(r, d) = q(r) (1 + beta d), the unit and the copies."""
    from experiments.beyond_prefix import MENU, MODELS, _model

    for name, (beta, unit, iso) in MODELS.items():
        p = _model(name, 0.1)
        assert p.calibration.ratios == tuple(sorted(MENU)) and p.mismatch == unit and p.isolated is iso
        for r, q in MENU.items():
            for d in (0, 1, 2.5, 7):
                assert p.calibration.loss(r, d) == pytest.approx(q * (1 + beta * d))

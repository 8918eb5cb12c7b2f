"""``mptsearch blend``: wrong parameters are one line and exit 2; the JSON carries the instance,
the parameters, both costs, the loss and a recheck that can say no."""

import json

import pytest

from mptsearch.blend.exact import recheck
from mptsearch.blend.model import BlendParams
from mptsearch.cli import main
from mptsearch.instance import InstanceError, parse_instance


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("args, words", [
    (["--r", "1.5"], "recompute fraction r must lie in [0, 1], got 1.5"),
    (["--r", "-0.01"], "recompute fraction r must lie in [0, 1], got -0.01"),
    (["--r", "0.1", "--price", "-1"], "loss price lambda must be >= 0, got -1.0"),
    (["--r", "0.1", "--beta", "-2"], "mismatch coefficient beta must be >= 0"),
    (["--r", "nan"], "r must be a finite number"),
    (["--r", "0.1", "--price", "inf"], "price must be a finite number"),
    (["--r", "x"], "'x' is not a valid float"),
    ([], "give the recompute fraction --r, or a loss table with --calibration"),
])
def test_wrong_parameters_are_one_line_and_exit_2(args, words, capsys):
    code, out, err = run(["blend", "012 013", *args], capsys)
    assert code == 2 and out == ""
    lines = [ln for ln in err.splitlines() if "compiling kernels" not in ln]
    assert len(lines) == 1 and words in lines[0] and lines[0].startswith("mptsearch: error:")


def test_json_keys_and_recheck(capsys):
    code, out, _ = run(["blend", "012 013 023 123", "--r", "0.15", "--price", "0.1", "--beta", "1", "--json"], capsys)
    assert code == 0
    d = json.loads(out)
    assert d["instance"] == "012 013 023 123"
    assert d["parameters"] == {"r": 0.15, "lambda": 0.1, "beta": 1.0, "c": 0.25, "per_answer": False}
    assert d["opt_free"] == 8 and d["opt_blend"] == pytest.approx(5.95)
    assert d["cost"] == pytest.approx(4.75) and d["loss"] == pytest.approx(12)
    assert d["rechecked"]["match"] is True and d["prefix_cost"] == 9
    assert d["lower_bound"] == pytest.approx(5.0) and d["ratio"] == pytest.approx(8 / 5.95)


def test_constant_model_uses_the_dp(capsys):
    code, out, _ = run(["blend", "012 013 023 123", "--r", "0.15", "--json"], capsys)
    d = json.loads(out)
    assert code == 0 and d["method"] == "theorem1-dp"
    assert d["opt_blend"] == pytest.approx(0.85 * 4 + 0.15 * 8) and d["rechecked"]["match"]


def test_recheck_refuses_a_forbidden_mode_and_reprices():
    inst = parse_instance("01 02")
    layout = [(0, 1), (0, 2)]  # nodes: 0, 1, 2 (the second request hits 0)
    p = BlendParams(0.5, 0.0)
    assert recheck(inst, layout, [-1, -1, -1], p) == (3.0, 0.0)
    with pytest.raises(InstanceError, match="not an earlier full node"):
        recheck(inst, layout, [-1, -1, 1], p)  # blends chunk 2 from a node of chunk 1
    inst = parse_instance("01 12")  # nodes 0, 1 (after 0), 1 (first), 2
    assert recheck(inst, [(0, 1), (1, 2)], [-1, -1, 1, -1], p) == (3.5, 1.0)
    assert recheck(inst, [(0, 1), (1, 2)], [-1, -1, 1, -1], BlendParams(0.5, 0.0, 2.0)) == (3.5, 3.0)
    with pytest.raises(InstanceError):
        recheck(inst, [(0, 1), (1, 2)], [-1, -1, 3, -1], p)  # a later source


def test_anneal_objective_blend_kernel_against_naive():
    import random

    from mptsearch.search.objective import objective_value

    from .naive import naive_opt_free

    rng = random.Random(4)
    for _ in range(20):
        reqs = {tuple(sorted(rng.sample(range(6), rng.randint(1, 4)))) for _ in range(rng.randint(2, 7))}
        inst = parse_instance([list(r) for r in reqs])
        num, den = objective_value(inst, "blend")
        assert num == naive_opt_free(inst.requests, [1] * inst.n)
        assert den == len(set().union(*inst.requests))


def test_anneal_objective_blend_certified_json(capsys):
    code, out, _ = run(["anneal", "--objective", "blend", "-k", "2-3", "-n", "5", "--steps", "3000", "-j", "1",
                        "-s", "3", "--json", "-q"], capsys)
    assert code == 0
    best = json.loads(out)["best"]
    assert best["objective"] == "blend" and best["certified"] is True
    assert best["value"] == pytest.approx(best["opt_free"] / best["w_U"])
    for c, ratio in best["blend_ratio_at_c"].items():
        c = float(c)
        assert ratio == pytest.approx(1 / (c + (1 - c) * best["w_U"] / best["opt_free"]), abs=1e-6)


def test_size_refusals_are_one_line_and_exit_2(capsys):
    code, out, err = run(["blend", "01234 12345 23456", "--r", "0.1", "--beta", "1", "--max-layouts", "1000"], capsys)
    assert code == 2 and "1728000 layouts, more than the limit 1000" in err
    many = " ".join(f"{a}{b}" for a in range(8) for b in range(a + 1, 8))  # 28 requests
    code, out, err = run(["blend", many, "--r", "0.1"], capsys)
    assert code == 2 and "m=28 requests is above 25" in err


def test_per_answer_flag(capsys):
    code, out, _ = run(["blend", "012 013 023 123", "--r", "0.15", "--price", "0.1", "--per-answer", "--json"], capsys)
    d = json.loads(out)
    assert code == 0 and d["parameters"]["per_answer"] is True and d["method"] == "exhaustive"
    assert d["rechecked"]["match"] is True


def test_trace_mode_against_the_bounds_and_the_closed_form(capsys):
    from mptsearch.blend.trace import blend_trace
    from mptsearch.serving.sparse import read_sparse

    tr = read_sparse("tests/data/serving_small.jsonl")
    k = int(max(tr.indptr[1:] - tr.indptr[:-1]))
    for method in ("production", "agglomerative"):
        # beta = 0: every node past a chunk's first blends (r + lambda < 1), closed form of P2
        res = blend_trace(tr, method, BlendParams(0.15, 0.05), "first")
        wU, C = res["distinct"], res["prefix_cost"]
        assert res["cost"] == pytest.approx(wU + 0.15 * (C - wU), abs=1e-3)
        assert res["loss"] == pytest.approx(C - wU, abs=1e-3)
        p = BlendParams(0.15, 0.05, 1.0)
        c, cp = p.c, min(1.0, 0.15 + 0.05 * (1 + 2 * (k - 1)))
        first, greedy = blend_trace(tr, method, p, "first"), blend_trace(tr, method, p, "greedy")
        assert greedy["objective"] <= first["objective"] + 1e-6  # the first copy is always a candidate
        assert (1 - c) * wU + c * C - 1e-6 <= greedy["objective"]  # P5 for this layout
        assert first["objective"] <= (1 - cp) * wU + cp * C + 1e-6  # P8 for this layout
    code, out, _ = run(["blend", "tests/data/serving_small.jsonl", "--trace", "--r", "0.15", "--price", "0.05",
                        "--beta", "1", "--json"], capsys)
    assert code == 0 and json.loads(out)["objective"] == pytest.approx(
        blend_trace(tr, "agglomerative", BlendParams(0.15, 0.05, 1.0), "greedy")["objective"])
    code, _, err = run(["blend", "tests/data/serving_small.jsonl", "--trace", "--r", "0.15", "--method", "nope"], capsys)
    assert code == 2 and "unknown method 'nope'" in err


def test_trace_percentages_are_rounded_once(capsys):
    # 12405 of 32309 tokens saved is 38.3949...%: rounding to 3 decimals first and then to 2 printed
    # 38.40%; the console must show the exact value rounded once, and the JSON the exact value
    code, out, _ = run(["blend", "tests/data/serving_small.jsonl", "--trace", "--r", "0.15", "--price", "0.05",
                        "--beta", "1", "--json"], capsys)
    d = json.loads(out)
    assert (d["tokens"], d["prefix_cost"]) == (32309, 19904)
    assert d["prefix_saved_pct"] == 100 * 12405 / 32309 and d["saved_pct"] == 100 * (32309 - d["cost"]) / 32309
    assert d["objective"] == d["cost"] + 0.05 * d["loss"]
    code, out, _ = run(["blend", "tests/data/serving_small.jsonl", "--trace", "--r", "0.15", "--price", "0.05",
                        "--beta", "1"], capsys)
    assert code == 0 and "saved 38.39%" in out and "38.40" not in out
    assert f"saved {100 * (32309 - d['cost']) / 32309:.2f}%" in out and f"objective {d['objective']:.10g}" in out


def test_greedy_modes_past_the_exact_limit_are_labelled_an_upper_bound(capsys, monkeypatch):
    # chunks of more than EXACT_MODES_T nodes (beta > 0) are priced by forward greedy: with the limit
    # lowered to 3, the constructed chunk of test_blend.py (greedy 3.4, exact 2.8) is priced 3.4 and the
    # result must say "upper bound", not exact
    import mptsearch.blend.model as model
    from mptsearch.blend.exact import blend_summary

    inst = parse_instance("0 1230 12340 12350")
    layout = [list(o) for o in inst.orders]
    p = BlendParams(0.1, 0.1, 2.0)
    exact = model.price_layout(inst, layout, p)
    assert exact.modes_exact
    monkeypatch.setattr(model, "EXACT_MODES_T", 3)
    capped = model.price_layout(inst, layout, p)
    assert not capped.modes_exact and capped.objective > exact.objective + 0.5
    d = blend_summary(parse_instance("01 21 31 41"), BlendParams(0.1, 0.05, 1.0))
    assert d["exact"] is False and "upper bound" in d["method"]
    code, out, _ = run(["blend", "01 21 31 41", "--r", "0.1", "--price", "0.05", "--beta", "1"], capsys)
    assert code == 0 and "OPT_blend <= (upper bd.)" in out and "(at least)" in out
    monkeypatch.setattr(model, "EXACT_MODES_T", 16)
    d = blend_summary(parse_instance("01 21 31 41"), BlendParams(0.1, 0.05, 1.0))
    assert d["exact"] is True and d["method"] == "exhaustive"
    code, out, _ = run(["blend", "01 21 31 41", "--r", "0.1", "--price", "0.05", "--beta", "1"], capsys)
    assert "upper" not in out and "OPT_blend                " in out

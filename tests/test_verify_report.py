"""experiments/report.py: every verdict is a test that turns "no" on other data."""

from experiments import report


def _table(tmp_path, name, rows):
    path = tmp_path / name
    lines = ["W \\ capacity (x largest request),1,4,16,inf"]
    for label, vals in rows:
        lines.append(",".join([label] + [str(v) for v in vals] + ["0.0"]))
    lines.append("all,0.0,0.0,0.0,0.0")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_l_shape_accepts_min_form_and_rejects_a_bump(tmp_path):
    f = {"1": 40.0, "4": 30.0, "16": 10.0}
    g = {"1": 50.0, "4": 20.0, "16": 5.0}
    good = _table(tmp_path, "good.csv", [(w, [min(f[w], g[c]) for c in ("1", "4", "16")]) for w in f])
    assert report.l_shape(good)["l_shaped"]
    # same border (zero row and column), interior far from min(f, g)
    bad = _table(tmp_path, "bad.csv", [("1", [40.0, 20.0, 5.0]), ("4", [30.0, 35.0, 5.0]), ("16", [10.0, 10.0, 30.0])])
    s = report.l_shape(bad)
    assert not s["l_shaped"] and s["share"] > report.L_TOLERANCE


def test_l_shape_ignores_the_zero_border_only(tmp_path):
    """A table that is 0 in the whole-stream row and unbounded column but flat inside is not
    L-shaped by virtue of the border."""
    flat = _table(tmp_path, "flat.csv", [("1", [10.0, 10.0, 10.0]), ("4", [10.0, 40.0, 10.0]), ("16", [10.0, 10.0, 10.0])])
    assert not report.l_shape(flat)["l_shaped"]


def test_verdicts_can_say_no():
    row = {"claim": "C9", "what": "x", "paper": "1.20", "ours": "1.2500 (20/16)", "agree": True}
    assert report.verdict(row)[0] == "**no**"
    row["ours"] = "1.2000 (18/15)"
    assert report.verdict(row)[0] == "yes"
    row["agree"] = False
    assert report.verdict(row)[0] == "**no**"
    assert report.verdict({"claim": "C1", "paper": "8 vs 9", "ours": "8 vs 10", "agree": True})[0] == "**no**"
    assert report.verdict({"claim": "C2", "paper": "equality", "ours": "999/1000", "agree": False})[0] == "**no**"


def test_no_generator_claims_are_not_comparable():
    for c in ("C5", "C6", "C7", "C11", "C12"):
        assert report.verdict({"claim": c, "paper": "35 vs 121", "ours": "35 vs 121", "agree": True})[0] == "n/a"


def test_campaign_verdicts_follow_the_data():
    from experiments.verify_campaigns import _claims
    rec = {"values": {"free": 14, "glob": 21}, "verdict": "proved",
           "quantities": {"free": {"methods": ["dp-free", "sat-free"]}, "glob": {"methods": ["dp-glob", "sat-glob"]}}}
    res = {"record": {"ratio_record": rec, "ratio_record_false_claim": {"verdict": "failed"}},
           "k2_equal": {"instances": 10, "unequal": 0}}
    claims = {c["claim"]: c for c in _claims(res)}
    assert claims["C9"]["agree"] and claims["C2"]["agree"]
    assert "sat-free" in claims["C9"]["detail"]
    res["record"]["ratio_record_false_claim"]["verdict"] = "undecided"  # the false claim slipped through
    assert not {c["claim"]: c for c in _claims(res)}["C9"]["agree"]
    res["record"]["ratio_record"]["verdict"] = "undecided"
    res["record"]["ratio_record_false_claim"]["verdict"] = "failed"
    assert not {c["claim"]: c for c in _claims(res)}["C9"]["agree"]
    res["k2_equal"]["unequal"] = 1
    assert not {c["claim"]: c for c in _claims(res)}["C2"]["agree"]

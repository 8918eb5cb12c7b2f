"""experiments/anneal_k4.py (issue 25 (a)): the verdict is decided from the shard rows (off by
one it changes), a tiny campaign past m = 16 certifies, resumes and summarises, and the committed
results are their own data, recomputed."""

import json
from fractions import Fraction
from pathlib import Path

import pytest

from experiments import anneal_k4 as ak

RESULTS = Path(__file__).resolve().parent.parent / "results" / "anneal_k4"


def _row(n, fraction, *, certified=True, name="s", m=8):
    f = Fraction(fraction)
    return {"shard": name, "n": n, "m_range": [3, 16], "evaluations": 1000, "cpu_seconds": 1.0,
            "certify_cpu_seconds": 0.5,
            "best": {"fraction": fraction, "value": float(f), "m": m, "n": n, "canonical": "0123 4567",
                     "certified": certified, "opt_free": f.denominator, "opt_glob": f.numerator}}


def _claim(rows, rechecks=None):
    (c,) = ak.summary(rows, rechecks)["claims"]
    return c


def test_verdict_reached_equal_above_below():
    eq = _claim([_row(8, "3/2"), _row(8, "4/3", name="t")])
    assert eq["agree"] is True and eq["ours"].startswith("3/2 = 1.5000") and "equals the reference" in eq["ours"]
    assert "2,000 evaluations" in eq["ours"]
    below = _claim([_row(9, "45/27")])                     # one below 46/27
    assert below["agree"] is False and "below the reference" in below["ours"]
    assert _claim([_row(9, "46/27")])["agree"] is True
    above = [_row(9, "47/27")]                             # one above: needs `mptsearch verify` exit 0
    assert _claim(above)["agree"] is False and "not claimed" in _claim(above)["ours"]
    assert _claim(above, {9: 3})["agree"] is False
    ok = _claim(above, {9: 0})
    assert ok["agree"] is True and "ABOVE the reference" in ok["ours"]
    assert _claim([_row(8, "3/2"), _row(8, "1/1", certified=False, name="t")])["agree"] is False


def test_best_per_n_takes_the_largest_fraction():
    rows = [_row(8, "4/3", name="a"), _row(8, "3/2", name="b"), _row(9, "5/3", name="c"), _row(8, "3/2", name="d")]
    best = ak.best_per_n(rows)
    assert best[8]["shard"] == "b" and best[9]["shard"] == "c"


@pytest.mark.slow  # ~8 CPU s: the certificate tries every global order of 8 chunks
def test_tiny_campaign_past_16_certifies_and_resumes(tmp_path):
    """m = 17-18 on 8 chunks: the step kernel's OPT_free is the prefix-set search there, and the
    certificate recomputes the find with the public solvers (it raises on a mismatch)."""
    shard = (8, 17, 18, 1, 1, 30)
    assert ak.run_shards(tmp_path, [shard], command="test") == [ak.shard_name(*shard)]
    assert ak.run_shards(tmp_path, [shard], command="test") == []      # stored: a rerun skips it
    (row,) = ak.load_shards(tmp_path)
    assert row["best"]["certified"] is True and row["best"]["m"] in (17, 18)
    q = row["best"]["verification"]["quantities"]
    assert q["glob"]["methods"]["brute-orders"] == q["glob"]["methods"]["dp-glob"] == row["best"]["opt_glob"]
    assert len(q["free"]["families"]) >= 2
    data = ak.finish(tmp_path, recheck=False)
    (c,) = data["claims"]
    assert c["agree"] is False and "below the reference" in c["ours"] and c["command"] == ak.COMMAND
    assert (tmp_path / "table.md").read_text() == ak.table_md(ak.load_shards(tmp_path), None)
    assert [p.stem for p in (tmp_path / "shards").glob("*.json")] == [ak.shard_name(*shard)]


@pytest.mark.skipif(not (RESULTS / "summary.json").exists(), reason="campaign not committed")
def test_committed_results_are_their_data():
    from mptsearch.canonical import canonical_form
    from mptsearch.exact.auto import opt_free_auto
    from mptsearch.exact.glob import opt_glob
    from mptsearch.instance import compact, from_compact

    rows = ak.load_shards(RESULTS)
    stored = json.loads((RESULTS / "summary.json").read_text())
    rechecks = {int(n): c for n, c in stored.get("rechecks", {}).items()}
    claims = ak.summary(rows, rechecks)["claims"]
    for c in claims:
        c["command"] = ak.COMMAND
    assert stored["claims"] == claims
    rates = json.loads((RESULTS / "rates.json").read_text()) if (RESULTS / "rates.json").exists() else None
    assert (RESULTS / "table.md").read_text() == ak.table_md(rows, rates)
    assert {r["shard"] for r in rows} == {ak.shard_name(*s) for s in ak.SHARDS}
    for r in rows:
        b = r["best"]
        inst = from_compact(b["canonical"])
        assert compact(canonical_form(inst)) == b["canonical"] and inst.m == b["m"]
        assert all(len(q) == ak.K for q in inst.requests) and inst.n <= r["n"]
        assert r["m_range"][0] <= inst.m <= r["m_range"][1]
        assert Fraction(opt_glob(inst).value, opt_free_auto(inst).value) == Fraction(b["fraction"])
        assert b["certified"] is True


def test_nine_chunk_best_is_s34_less_two_requests():
    """The 9-chunk best at m <= 16 (41/25) is S(3, 4) (46/27, m = 18) less two requests, and
    S(3, 4) less any one request has 21/13 < 41/25: the walk between them goes downhill."""
    from mptsearch.canonical import canonical_form
    from mptsearch.exact.auto import opt_free_auto
    from mptsearch.exact.glob import opt_glob
    from mptsearch.families import sunflowers
    from mptsearch.instance import compact, from_lists

    reqs = [sorted(o) for o in sunflowers(3, 4).orders]
    start = ak.SHARDS[-1][6]
    less_two = from_lists([q for j, q in enumerate(reqs) if j not in (0, 6)])
    assert compact(canonical_form(less_two)) == start
    assert Fraction(opt_glob(less_two).value, opt_free_auto(less_two).value) == Fraction(41, 25)
    for i in range(len(reqs)):
        less_one = from_lists(reqs[:i] + reqs[i + 1:])
        assert Fraction(opt_glob(less_one).value, opt_free_auto(less_one).value) == Fraction(21, 13) < Fraction(41, 25)


@pytest.mark.slow  # ~5 CPU s: the certificate tries every global order of 8 chunks
def test_seeded_shard_starts_at_its_family(tmp_path):
    """A shard with a start family begins every restart there: 20 steps from the 3/2 record
    keep (at least) 3/2, which random starts do not reach in 20 steps."""
    record = "0123 1234 1235 1236 0456 1456 2456 3456"
    shard = (8, 8, 9, 1, 2, 10, record)
    (name,) = ak.run_shards(tmp_path, [shard], command="test")
    assert name.startswith("n8-m8-9-s1-r2x10-from")
    (row,) = ak.load_shards(tmp_path)
    assert row["start"] == record and Fraction(row["best"]["fraction"]) >= Fraction(3, 2)
    assert row["best"]["certified"] is True and row["steps"] == 20

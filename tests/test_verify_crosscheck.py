"""A small cross-check campaign, resumption, and saving a disagreement."""

import json

from mptsearch.cli import main
from mptsearch.verify import verify as V
from mptsearch.verify.crosscheck import crosscheck, trial_instance


def test_small_campaign_agrees(tmp_path):
    s = crosscheck(40, seed=3, m_max=6, n_max=7, time_limit=10.0, out_dir=str(tmp_path))
    assert s.disagreements == []
    assert s.runs["dp-free"] == s.runs["trie-search"] == s.runs["dp-glob"] == s.runs["cpsat-glob"] == 40
    assert s.runs.get("vc-maxsat", 0) > 0 and s.runs.get("brute-layouts", 0) > 0
    again = crosscheck(45, seed=3, m_max=6, n_max=7, time_limit=10.0, out_dir=str(tmp_path))
    assert again.resumed == 40 and again.trials == 45 and not again.disagreements
    assert len((tmp_path / "trials.jsonl").read_text().splitlines()) == 45


def test_trial_instances_are_reproducible_and_mixed():
    a = [trial_instance(7, t) for t in range(60)]
    b = [trial_instance(7, t) for t in range(60)]
    assert [x.orders for x in a] == [x.orders for x in b]
    assert {max(len(o) for o in x.orders) for x in a} >= {2, 3, 4}
    assert all(2 <= x.m <= 8 and x.n <= 9 for x in a)
    assert any(not x.unit_weights for x in a) and any(x.unit_weights for x in a)


def test_disagreement_saved(tmp_path, monkeypatch):
    q, kind, too_big, run = V.METHODS["dp-glob"]

    def broken(inst, lim, opt):
        value, bound, optimal, order = run(inst, lim, opt)
        return value + (inst.m % 2), bound, optimal, order

    monkeypatch.setitem(V.METHODS, "dp-glob", (q, kind, too_big, broken))
    s = crosscheck(6, seed=1, m_max=5, n_max=6, out_dir=str(tmp_path))
    assert s.disagreements
    files = sorted((tmp_path / "disagreements").glob("trial_1_*.json"))
    inst_files = [f for f in files if not f.name.endswith("certificate.json")]
    assert len(inst_files) == len(s.disagreements)
    saved = json.loads(inst_files[0].read_text())
    assert "requests" in saved and "disagree" in saved["note"]


def test_cli_crosscheck(capsys):
    assert main(["crosscheck", "--trials", "8", "--seed", "2", "--m-max", "5", "--n-max", "6", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["trials"] == 8 and out["disagreements"] == []

"""verify(): agreement, witness rechecks, claims, and the CLI's exit codes."""

import json

import pytest

from mptsearch.cli import main
from mptsearch.families import k4_3, ratio_record
from mptsearch.instance import InstanceError, from_lists
from mptsearch.verify import verify as V
from mptsearch.verify.verify import parse_claims, verify

RECORD = "0145 0236 1236 1245 1345 1456 2346 2356"
FAST = dict(time_limit=20.0, workers=1)


def test_record_all_methods_agree():
    rep = verify(ratio_record(), ["free=14", "glob=21"], **FAST)
    assert rep.ok and rep.values == {"free": 14, "glob": 21}
    proved = {r.method for r in rep.rows if r.status == "optimal"}
    assert {"dp-free", "trie-search", "dp-glob", "brute-orders", "cpsat-glob"} <= proved
    assert all(r.witness_cost == r.value for r in rep.rows if r.status == "optimal")


def test_false_claim_fails_with_reason():
    rep = verify(k4_3(), {"free": 8, "glob": 8}, **FAST)
    assert not rep.ok and not rep.problems
    bad = [c for c in rep.claims if not c.holds]
    assert len(bad) == 1 and bad[0].found == 9 and "1 below" in bad[0].reason


def test_k2_runs_vertex_cover_models():
    rep = verify(from_lists([[0, 1], [1, 2], [2, 3], [3, 0], [0]], {0: 3, 1: 1, 2: 2, 3: 5}), **FAST)
    assert rep.ok
    assert {"vc-cpsat", "vc-maxsat", "brute-layouts"} <= {r.method for r in rep.rows if r.status == "optimal"}


def test_disagreement_detected(monkeypatch):
    """A broken method (value one too low, witness honest) must be caught twice over."""
    q, kind, too_big, run = V.METHODS["trie-search"]

    def broken(inst, lim, opt):
        value, bound, optimal, witness = run(inst, lim, opt)
        return value - 1, bound - 1, optimal, witness

    monkeypatch.setitem(V.METHODS, "trie-search", (q, kind, too_big, broken))
    rep = verify(k4_3(), {"free": 8}, **FAST)
    assert not rep.ok
    assert any("disagree" in p for p in rep.problems)
    assert any("costs 8 when rechecked" in p for p in rep.problems)


def test_bad_witness_detected(monkeypatch):
    q, kind, too_big, run = V.METHODS["dp-glob"]
    monkeypatch.setitem(V.METHODS, "dp-glob", (q, kind, too_big, lambda i, L, o: (9, 9, True, [0, 1, 2])))
    rep = verify(k4_3(), methods=["dp-glob"], **FAST)
    assert not rep.ok and any("not a valid order" in p for p in rep.problems)


def test_unverifiable_claim_fails():
    rep = verify(k4_3(), {"glob": 9}, methods=["dp-free"], **FAST)
    assert not rep.ok and "unverified" in rep.claims[0].reason


def test_parse_claims():
    assert parse_claims(["free=14", "glob = 21"]) == {"free": 14, "glob": 21}
    for bad in (["free"], ["ratio=2"], ["free=x"]):
        with pytest.raises(InstanceError):
            parse_claims(bad)


def test_cli_exit_codes(capsys, tmp_path):
    assert main(["verify", RECORD, "--claim", "free=14", "--claim", "glob=21"]) == 0
    out = capsys.readouterr().out
    assert "verified" in out and "cpsat-glob" in out and "order costs 21 ok" in out
    assert main(["verify", RECORD, "--claim", "glob=20"]) == 1
    out = capsys.readouterr().out
    assert "claim glob=20: FALSE (OPT_glob is 21, not 20" in out and "NOT verified" in out
    assert main(["verify", RECORD, "--claim", "glob=twenty"]) == 2
    assert main(["verify", "01 0", "--method", "nope"]) == 2
    assert main(["verify", "0 0 1 1 1"]) == 0  # duplicates merged, with a note
    cert = tmp_path / "cert.json"
    assert main(["verify", "012 013 023 123", "--claim", "free=8", "--json", str(cert)]) == 0
    data = json.loads(cert.read_text())
    assert data["ok"] and data["values"] == {"free": 8, "glob": 9}
    assert data["instance"]["requests"] == [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]]
    assert all(len(r["witness"]) == 4 for r in data["methods"] if r["status"] == "optimal" and r["quantity"] == "free")

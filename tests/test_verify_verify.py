"""verify(): agreement, witness rechecks, claims, and the CLI's exit codes."""

import contextlib
import io
import json

import pytest

from mptsearch.cli import main
from mptsearch.families import k4_3, ratio_record
from mptsearch.instance import InstanceError, from_lists
from mptsearch.verify import verify as V
from mptsearch.verify.verify import parse_claims, verify

RECORD = "0145 0236 1236 1245 1345 1456 2346 2356"
FAST = dict(time_limit=20.0, workers=1)


def _cli_and_report(argv):
    """``main(argv)`` in this process: its exit code, what it printed and the report it printed
    (the report of ``verify`` as the command called it)."""
    reports, real = [], V.verify

    def keep(*args, **kwargs):
        reports.append(real(*args, **kwargs))
        return reports[-1]

    out = io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(out):
        mp.setattr(V, "verify", keep)
        code = main(argv)
    assert len(reports) == 1
    return code, out.getvalue(), reports[0]


@pytest.fixture(scope="module")
def record_run():
    """Every method on the record with both true claims, run once (about a CPU second) through
    the command and shared by the test of the report and the test of the command's output."""
    return _cli_and_report(["verify", RECORD, "--claim", "free=14", "--claim", "glob=21"])


def test_record_all_methods_agree(record_run):
    _, _, rep = record_run
    assert rep.instance.requests == ratio_record().requests
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


def test_unverifiable_claim_is_undecided():
    rep = verify(k4_3(), {"glob": 9}, methods=["dp-free"], **FAST)
    assert rep.verdict == "undecided" and rep.exit_code == 3
    assert rep.claims[0].status == "undecided" and "no method computed" in rep.claims[0].reason


def test_one_method_is_unconfirmed():
    """One method per quantity: values shown, not proved; --min-methods 1 accepts them."""
    rep = verify(k4_3(), {"free": 8}, methods=["dp-free", "dp-glob"], **FAST)
    assert rep.values == {"free": 8, "glob": 9}
    assert rep.verdict == "undecided" and not rep.quantities["free"].proved
    assert "unconfirmed" in rep.claims[0].reason
    rep = verify(k4_3(), {"free": 8}, methods=["dp-free", "dp-glob"], min_methods=1, **FAST)
    assert rep.verdict == "proved" and rep.exit_code == 0


def test_same_family_counts_once():
    """vc-cpsat and vc-maxsat solve the same model: two methods, one independent family."""
    inst = from_lists([[0, 1], [1, 2], [2, 3]])
    rep = verify(inst, methods=["vc-cpsat", "vc-maxsat", "dp-glob", "brute-orders"], **FAST)
    assert rep.quantities["free"].methods == ["vc-cpsat", "vc-maxsat"]
    assert len(rep.quantities["free"].families) == 1 and not rep.quantities["free"].proved
    assert rep.quantities["glob"].proved and rep.verdict == "undecided"


def test_planted_wrong_value_in_one_method_fails(monkeypatch):
    """A method that returns a wrong value with a witness that really costs that much is
    still caught: it disagrees with the independent methods."""
    q, kind, too_big, run = V.METHODS["sat-glob"]
    monkeypatch.setitem(V.METHODS, "sat-glob", (q, kind, too_big, lambda i, L, o: (10, 10, True, [3, 2, 1, 0])))
    rep = verify(k4_3(), methods=["dp-glob", "sat-glob"], **FAST)
    assert rep.verdict == "failed" and rep.exit_code == 1
    assert any("disagree" in p for p in rep.problems)


def test_rejected_proof_makes_sat_method_fail(monkeypatch):
    from mptsearch.verify import satproof
    monkeypatch.setitem(satproof.CHECKERS, "rup", (lambda nv, cl, pr: (False, "planted"), lambda: True))
    rep = verify(k4_3(), methods=["dp-free", "sat-free"], **FAST)
    assert rep.verdict == "failed"
    assert any("sat-free failed" in p and "planted" in p for p in rep.problems)


def _wide_instance():
    """21 requests over 36 chunks: every exact method is past its size limit for OPT_glob."""
    import random
    rng = random.Random(3)
    reqs = [rng.sample(range(36), rng.randint(3, 6)) for _ in range(21)]
    for c in range(36):  # every chunk used
        reqs[c % 21].append(c)
    return from_lists([sorted(set(r)) for r in reqs])


def test_past_every_limit_is_undecided_not_verified():
    inst = _wide_instance()
    assert inst.m == 21 and inst.n == 36
    import json as _json
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        _json.dump(inst.to_json(), fh)
    code, out, rep = _cli_and_report(["verify", fh.name, "-t", "0.5"])  # one run: the report and its print
    assert rep.verdict == "undecided" and rep.exit_code == 3
    assert rep.values["glob"] is None
    assert any("n=36 > 24" in s for s in rep.quantities["glob"].stopped)
    assert code == 3
    assert "undecided at this size" in out and "verified\n" not in out.replace("NOT verified", "")
    assert "stopped by a limit: dp-glob: n=36 > 24" in out


def test_parse_claims():
    assert parse_claims(["free=14", "glob = 21"]) == {"free": 14, "glob": 21}
    for bad in (["free"], ["ratio=2"], ["free=x"]):
        with pytest.raises(InstanceError):
            parse_claims(bad)


def test_cli_exit_codes(capsys, tmp_path, record_run):
    code, out, _ = record_run
    assert code == 0
    assert "verified" in out and "cpsat-glob" in out and "order costs 21 ok" in out
    assert "OPT_free = 14  proved by 6 independent methods" in out and "closure-mip=14" in out
    assert main(["verify", "012 013 023 123", "--claim", "glob=8"]) == 1  # K4^(3): the record's path, smaller
    out = capsys.readouterr().out
    assert "claim glob=8: FALSE (OPT_glob is 9, not 8" in out and "NOT verified" in out
    assert main(["verify", RECORD, "--claim", "glob=twenty"]) == 2
    assert main(["verify", "01 0", "--method", "nope"]) == 2
    assert main(["verify", "0 0 1 1 1"]) == 0  # duplicates merged, with a note
    cert = tmp_path / "cert.json"
    assert main(["verify", "012 013 023 123", "--claim", "free=8", "-o", str(cert)]) == 0
    data = json.loads(cert.read_text())
    assert data["ok"] and data["values"] == {"free": 8, "glob": 9} and data["verdict"] == "proved"
    capsys.readouterr()
    assert main(["verify", "012 013 023 123", "--claim", "free=8", "--json"]) == 0
    stdout = json.loads(capsys.readouterr().out)  # one JSON object and nothing else
    assert stdout["quantities"]["free"]["proved"] and stdout["exit_code"] == 0
    assert main(["verify", "012 013 023 123", "--method", "dp-free", "--json"]) == 3
    assert data["instance"]["requests"] == [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]]
    assert all(len(r["witness"]) == 4 for r in data["methods"] if r["status"] == "optimal" and r["quantity"] == "free")


def test_prefix_sets_and_cpsat_orders_are_families_of_their_own_past_the_dp():
    """At m = 19 (past dp-free's 18) the prefix-set search and the order-choice CP-SAT are
    two independent methods; weighted instances are not the prefix-set search's business."""
    import itertools
    import random

    rng = random.Random(5)
    inst = from_lists([list(c) for c in rng.sample(list(itertools.combinations(range(7), 3)), 19)])
    rep = verify(inst, methods=["prefix-sets", "cpsat-orders", "dp-glob", "brute-orders"], **FAST)
    assert rep.quantities["free"].families == ["order-choice CP-SAT", "prefix-set search"]
    assert rep.verdict == "proved"
    weighted = from_lists([[0, 1], [1, 2]], {0: 2, 1: 1, 2: 1})
    row = verify(weighted, methods=["prefix-sets"], **FAST).rows[0]
    assert row.status == "skipped" and "weighted" in row.note

"""The LP-dual certificate of OPT_free over the closure: sound on random instances (its bound
never passes the DP's OPT_free), tight on S(c,k), rechecked in fractions, and rejected when
tampered with (a multiplier, the stated bound, a row that is not valid)."""

import json
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings

from mptsearch.exact.arborescence import opt_free_closure
from mptsearch.exact.free import opt_free
from mptsearch.families import k4_3, sunflowers
from mptsearch.verify.certify import certify, check
from mptsearch.verify.lpdual import check_dual, dual_certificate

from .strategies import instances


def _cert(inst):
    return json.loads(json.dumps(dual_certificate(inst, opt_free_closure(inst, keep_duals=True))))


@settings(max_examples=60, deadline=None)
@given(instances(max_n=7, max_m=7, max_weight=6))
def test_dual_is_accepted_and_never_passes_opt_free(inst):
    cert = _cert(inst)
    got = check_dual(inst, cert)
    assert got.ok, got.problem
    assert got.lower == math.ceil(Fraction(cert["bound"])) <= opt_free(inst).value


@pytest.mark.parametrize("c,k", [(3, 4), (4, 5), (6, 7)])
def test_sunflowers_are_certified_by_the_dual_alone(c, k):
    inst = sunflowers(c, k)
    got = check_dual(inst, _cert(inst))
    assert got.ok and got.lower == c * c * (k - 1)


def test_tampering_is_rejected():
    inst = sunflowers(3, 4)
    cert = _cert(inst)
    assert check_dual(inst, cert).ok
    # the stated bound one more than the rows give
    bad = dict(cert, bound=str(Fraction(cert["bound"]) + 1))
    assert not check_dual(inst, bad).ok
    # a multiplier raised: some arc is overloaded (or the bound no longer matches)
    rows = [list(r) for r in cert["rows"]]
    j = next(i for i, r in enumerate(rows) if r[0] == "req")
    rows[j][-1] = str(Fraction(rows[j][-1]) + 1)
    assert not check_dual(inst, dict(cert, rows=rows)).ok
    # a negative multiplier
    rows = [list(r) for r in cert["rows"]]
    rows[0][-1] = "-1"
    assert "negative" in check_dual(inst, dict(cert, rows=rows)).problem
    # rows that are not valid: a chunk inside its set, a set outside the closure, no such arc
    for row in (["chunk", [0, 1, 2], 0, "1"], ["indeg", [0, 1, 3, 4], "1"], ["ub", [], [0, 1, 2, 3], "1"],
                ["req", 99, "1"], ["what", "1"]):
        got = check_dual(inst, dict(cert, rows=cert["rows"] + [row]))
        assert not got.ok and got.problem.startswith(f"row {len(cert['rows'])}")


def test_certify_and_check_by_dual(tmp_path):
    d = tmp_path / "s45"
    cert = certify(sunflowers(4, 5), str(d), kinds=("free",), free_by="dual")
    q = cert["quantities"]["free"]
    assert q["optimal"] and q["value"] == q["lower"] == 64
    rep = check(str(d))
    assert rep.ok and not rep.partial and rep.values == {"free": 64}
    # K4^(3): the LP bound is 20/3, so the certificate is a bracket 7..8, not a proof
    d2 = tmp_path / "k4"
    q = certify(k4_3(), str(d2), kinds=("free",), free_by="dual")["quantities"]["free"]
    assert not q["optimal"] and (q["lower"], q["value"]) == (7, 8)
    rep = check(str(d2))
    assert not rep.ok and rep.partial
    # a tampered dual file is rejected, not partial
    path = d / "free.dual.json"
    data = json.loads(path.read_text())
    data["bound"] = "65"
    path.write_text(json.dumps(data))
    rep = check(str(d))
    assert not rep.ok and not rep.partial


def test_cli_exit_codes_of_a_dual_certificate(tmp_path, capsys):
    from mptsearch.cli import main

    full, part = str(tmp_path / "s24"), str(tmp_path / "k4")
    assert main(["certify", "0123 0124 0125 0345 1345 2345", "--out", full, "--free-by", "dual", "--free-only"]) == 0
    assert main(["check", full]) == 0
    assert "certificate checked: OPT_free = 12" in capsys.readouterr().out
    assert main(["certify", "012 013 023 123", "--out", part, "--free-by", "dual", "--free-only"]) == 3
    assert main(["check", part]) == 3
    out = capsys.readouterr().out
    assert "OPT_free in 7..8" in out and "no value proved" in out


def test_an_infinite_number_is_malformed_not_a_traceback():
    """JSON's Infinity as a multiplier or as the bound (the closure referee's find: an
    OverflowError traceback from Fraction)."""
    inst = sunflowers(3, 4)
    cert = _cert(inst)
    rows = [list(r) for r in cert["rows"]]
    rows[0][-1] = float("inf")
    assert "malformed" in check_dual(inst, dict(cert, rows=rows)).problem
    assert check_dual(inst, dict(cert, bound=float("inf"))).problem == "malformed certificate"

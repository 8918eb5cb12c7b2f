"""The LP-dual certificate of OPT_free over the closure: sound on random instances (its bound
never passes the DP's OPT_free), tight on S(c,k), rechecked in fractions, and rejected when
tampered with (a multiplier, the stated bound, a row that is not valid)."""

import json
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from mptsearch.exact.arborescence import opt_free_closure
from mptsearch.exact.free import opt_free
from mptsearch.families import k4_3, sunflowers
from mptsearch.verify.certify import certify, check
from mptsearch.verify.lpdual import check_dual, dual_certificate

from mptsearch.instance import from_compact

from .strategies import instances

#: OPT_free 10 (the DP), directed-cut LP 9: the smallest such family found in a random sweep
PARTIAL = "12 0124 14 1234 0234"


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
    # K4^(3): the cover LP's 20/3 would leave 7..8; the directed cuts give 22/3, so 8 is proved
    d3 = tmp_path / "k4"
    q = certify(k4_3(), str(d3), kinds=("free",), free_by="dual")["quantities"]["free"]
    assert q["optimal"] and (q["lower"], q["value"]) == (8, 8)
    # a family whose directed-cut LP is 9 and OPT_free 10: a bracket 9..10, not a proof
    d2 = tmp_path / "gap"
    q = certify(from_compact(PARTIAL), str(d2), kinds=("free",), free_by="dual")["quantities"]["free"]
    assert not q["optimal"] and (q["lower"], q["value"]) == (9, 10)
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
    assert main(["certify", PARTIAL, "--out", part, "--free-by", "dual", "--free-only"]) == 3
    assert main(["check", part]) == 3
    out = capsys.readouterr().out
    assert "OPT_free in 9..10" in out and "no value proved" in out


def test_an_infinite_number_is_malformed_not_a_traceback():
    """JSON's Infinity as a multiplier or as the bound (the closure referee's find: an
    OverflowError traceback from Fraction)."""
    inst = sunflowers(3, 4)
    cert = _cert(inst)
    rows = [list(r) for r in cert["rows"]]
    rows[0][-1] = float("inf")
    assert "malformed" in check_dual(inst, dict(cert, rows=rows)).problem
    assert check_dual(inst, dict(cert, bound=float("inf"))).problem == "malformed certificate"


def _dcut_cert(inst):
    from mptsearch.exact.dcut_bnc import opt_free_dcut

    return json.loads(json.dumps(dual_certificate(inst, opt_free_dcut(inst, keep_duals=True))))


@settings(max_examples=25, deadline=None)
@given(instances(max_n=7, max_m=7, max_weight=6))
def test_directed_cut_dual_is_accepted_and_never_passes_opt_free(inst):
    cert = _dcut_cert(inst)
    got = check_dual(inst, cert)
    assert got.ok, got.problem
    assert got.lower <= opt_free(inst).value
    # at least the cover program's certified bound
    assert got.bound >= check_dual(inst, _cert(inst)).bound - Fraction(1, 10**5)


def test_partial_family_is_what_it_says():
    inst = from_compact(PARTIAL)
    assert opt_free(inst).value == 10
    assert check_dual(inst, _dcut_cert(inst)).lower == 9


def test_k4_is_certified_by_directed_cuts():
    cert = _dcut_cert(k4_3())
    got = check_dual(k4_3(), cert)
    assert got.ok and got.bound == Fraction(22, 3) and got.lower == 8
    assert any(r[0] == "cut" for r in cert["rows"])


def test_tampered_cuts_are_rejected():
    inst = k4_3()
    cert = _dcut_cert(inst)
    j = next(i for i, r in enumerate(cert["rows"]) if r[0] == "cut")
    i, members = cert["rows"][j][1], cert["rows"][j][2]
    req = sorted(inst.requests[i])

    def with_row(row):
        rows = [list(r) for r in cert["rows"]]
        rows[j] = row
        return check_dual(inst, dict(cert, rows=rows))

    assert with_row(list(cert["rows"][j])).ok
    # the request taken out of its cut's set: not a valid cut
    got = with_row(["cut", i, [S for S in members if sorted(S) != req] or [[0]], cert["rows"][j][3]])
    assert not got.ok and ("does not hold its request" in got.problem or "outside the closure" in got.problem)
    # a set outside the closure, a repeated set, another request's index
    assert "outside the closure" in with_row(["cut", i, members + [[0, 1, 2, 3]], "1"]).problem
    assert "repeats" in with_row(["cut", i, members + [members[0]], cert["rows"][j][3]]).problem
    other = next(t for t in range(inst.m) if sorted(inst.requests[t]) not in [sorted(S) for S in members])
    assert not with_row(["cut", other, members, cert["rows"][j][3]]).ok
    # its multiplier raised: the bound no longer matches or an arc is overloaded
    assert not with_row(["cut", i, members, str(Fraction(cert["rows"][j][3]) + Fraction(1, 3))]).ok
    # the empty set is not a member of any cut
    assert not with_row(["cut", i, members + [[]], cert["rows"][j][3]]).ok


def test_a_tampered_witness_is_rejected(tmp_path):
    d = tmp_path / "k4"
    certify(k4_3(), str(d), kinds=("free",), free_by="dual")
    assert check(str(d)).ok
    path = d / "certificate.json"
    data = json.loads(path.read_text())
    lay = data["quantities"]["free"]["layout"]
    lay[0], lay[1] = lay[0], list(reversed(lay[1]))  # another order: a different trie cost
    path.write_text(json.dumps(data))
    rep = check(str(d))
    assert not rep.ok


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=(1 << 300) - 1))
def test_set_ids_are_the_set_bits_in_order(mask):
    from mptsearch.verify.lpdual import _ids

    assert _ids(mask) == [c for c in range(mask.bit_length()) if mask >> c & 1]

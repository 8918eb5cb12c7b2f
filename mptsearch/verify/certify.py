"""Proof-carrying optimality certificates: write them (:func:`certify`), re-check them (:func:`check`).

A value V of OPT_free (or OPT_glob) is optimal when a witness attains it and nothing cheaper
exists. The certificate folder holds both halves:

- ``instance.json``: the instance;
- ``certificate.json``: V and the witness (a layout, or a global order) for each quantity,
  with sizes, times and the checkers' verdicts when it was written;
- ``free.cnf`` / ``glob.cnf``: the CNF of "a layout / global order of cost <= V - 1 exists"
  (:func:`mptsearch.encodings.trie_cnf.trie_cnf`);
- ``free.drup`` / ``glob.drup``: the SAT solver's DRUP proof that the CNF is unsatisfiable;
- or, for OPT_free with ``free_by="dual"`` (instances past SAT's reach), ``free.dual.json``:
  an LP dual over the intersection closure (:mod:`mptsearch.verify.lpdual`) whose bound,
  rechecked in exact fractions, is at least V (else the certificate is a bracket, *partial*).

:func:`check` trusts neither our DP nor the SAT solver: it recomputes the witness's cost with
the trie definition (:mod:`mptsearch.trie`), regenerates the CNF from the instance and compares
it with the file (so the proof is about the right question), and checks the proof with the
RUP checker of :mod:`mptsearch.verify.rup` and, when installed, with :mod:`dratify`.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass, field

from .._atomic import atomic_open
from ..instance import Instance, InstanceError, compact, from_json
from ..trie import order_cost, trie_cost

__all__ = ["certify", "check", "CheckReport"]

KINDS = ("free", "glob")


def _write(path: str, text: str) -> None:
    with atomic_open(path) as fh:
        fh.write(text)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def certify(inst: Instance, out_dir: str, *, time_limit: float | None = 600.0,
            kinds=KINDS, checkers=("rup", "dratify"), free_by: str = "sat", encoding: str = "adder") -> dict:
    """Compute OPT_free and OPT_glob by SAT with checked proofs and write the certificate folder.

    Parameters
    ----------
    inst : Instance
    out_dir : str
        Created if needed; the files above are written atomically.
    time_limit : float or None
        Wall seconds for the whole certificate: the SAT searches and the proof checks of all
        the quantities together, each one getting what the ones before it left;
        ``SatBudgetExceeded`` when it runs out (the checks of a long proof can take longer
        than its search).
    kinds : tuple
        "free", "glob" or both.
    free_by : {"sat", "dual"}
        How OPT_free's lower half is proved: a checked DRUP proof, or an LP dual over the
        closure rechecked in fractions (:func:`_certify_free_by_dual`).
    encoding : str
        The CNFs' encoding of the cost bound (:data:`mptsearch.encodings.trie_cnf.ENCODINGS`);
        recorded in ``certificate.json`` for :func:`check`.

    Returns
    -------
    dict
        The contents of ``certificate.json``.
    """
    from .satproof import SatBudgetExceeded, check_unsat, sat_optimum

    deadline = None if time_limit is None else time.perf_counter() + float(time_limit)
    os.makedirs(out_dir, exist_ok=True)
    _write(os.path.join(out_dir, "instance.json"), json.dumps(inst.to_json()) + "\n")
    cert = {"instance": compact(inst), "n": inst.n, "m": inst.m, "quantities": {}}
    if free_by not in ("sat", "dual"):
        raise InstanceError(f"unknown free_by {free_by!r}; use 'sat' or 'dual'")
    for kind in kinds:
        left = None if deadline is None else deadline - time.perf_counter()
        if left is not None and left <= 0:
            raise SatBudgetExceeded(f"time limit reached before OPT_{kind}")
        if kind == "free" and free_by == "dual":
            cert["quantities"]["free"] = _certify_free_by_dual(inst, out_dir, left)
            continue
        r = sat_optimum(inst, kind, time_limit=left, checkers=(), encoding=encoding)  # checked below, within the limit
        r.checks = check_unsat(r.cnf.nvars, r.cnf.clauses, r.proof, checkers, deadline=deadline)
        r.optimal = bool(r.checks) and all(c.ok for c in r.checks)
        r.seconds += sum(c.seconds for c in r.checks)
        cnf_text = r.cnf.dimacs()
        proof_text = "\n".join(r.proof) + "\n"
        _write(os.path.join(out_dir, f"{kind}.cnf"), cnf_text)
        _write(os.path.join(out_dir, f"{kind}.drup"), proof_text)
        if kind == "free":
            witness = {"layout": [list(s) for s in r.witness], "layout_labels": inst.label_orders(r.witness)}
        else:
            witness = {"order": list(r.witness), "order_labels": [inst.labels[x] for x in r.witness]}
        cert["quantities"][kind] = {
            "value": r.value, **witness, "optimal": r.optimal,
            "cnf": {"file": f"{kind}.cnf", "bound": r.value - 1, "encoding": r.cnf.encoding, "variables": r.cnf.nvars,
                    "clauses": len(r.cnf.clauses), "bytes": len(cnf_text), "sha256": _sha(cnf_text)},
            "proof": {"file": f"{kind}.drup", "lines": len(r.proof), "bytes": len(proof_text),
                      "sha256": _sha(proof_text), "solver": "cadical153 (PySAT)"},
            "sat_calls": r.solves, "solve_seconds": round(r.solve_seconds, 4), "seconds": round(r.seconds, 4),
            "checks": [asdict(c) for c in r.checks],
        }
    _write(os.path.join(out_dir, "certificate.json"), json.dumps(cert, indent=1) + "\n")
    return cert


def _certify_free_by_dual(inst: Instance, out_dir: str, time_limit: float | None) -> dict:
    """OPT_free by the directed-cut branch-and-cut (:mod:`mptsearch.exact.dcut_bnc`), its
    lower half the root directed-cut LP's dual written to ``free.dual.json`` and rechecked at
    once by :func:`mptsearch.verify.lpdual.check_dual`. ``optimal`` only when the dual's
    ceiling reaches the layout's trie cost; otherwise ``lower`` and ``value`` bracket OPT_free."""
    from ..exact.dcut_bnc import opt_free_dcut
    from .lpdual import check_dual, dual_certificate
    from .satproof import SatBudgetExceeded

    t0 = time.perf_counter()
    r = opt_free_dcut(inst, time_limit=time_limit, keep_duals=True)
    dual = dual_certificate(inst, r)
    text = json.dumps(dual) + "\n"
    _write(os.path.join(out_dir, "free.dual.json"), text)
    t1 = time.perf_counter()
    got = check_dual(inst, dual)
    value = trie_cost(inst, r.layout)
    if time_limit is not None and time.perf_counter() - t0 > time_limit and not got.ok:
        raise SatBudgetExceeded("time limit reached while certifying OPT_free")
    return {
        "value": value, "layout": [list(s) for s in r.layout], "layout_labels": inst.label_orders(r.layout),
        "optimal": got.ok and got.lower >= value, "method": "lp-dual", "lower": got.lower,
        "dual": {"file": "free.dual.json", "bound": dual["bound"], "rows": len(dual["rows"]),
                 "arcs": got.arcs, "bytes": len(text), "sha256": _sha(text), "solver": "HiGHS (row duals of the directed-cut LP)"},
        "seconds": round(time.perf_counter() - t0, 4),
        "checks": [{"checker": "lpdual", "ok": got.ok, "seconds": round(time.perf_counter() - t1, 4),
                    "message": got.problem or f"bound {got.bound} in exact arithmetic"}],
    }


class _Corrupt(ValueError):
    """A certificate file that is not UTF-8 text: the certificate is rejected."""


def _decode(data: bytes, name: str) -> str:
    """The text of a certificate file, or :class:`_Corrupt` naming the file and line of the
    first byte that is not UTF-8 (a NUL byte counts as corrupt too)."""
    try:
        text = data.decode("utf-8")
        bad = text.find("\0")
        if bad < 0:
            return text
        at, byte = len(text[:bad].encode()), 0
    except UnicodeDecodeError as exc:
        at, byte = exc.start, data[exc.start]
    line = data.count(b"\n", 0, at) + 1
    raise _Corrupt(f"{name} line {line} is not text (byte 0x{byte:02x} at offset {at})")


@dataclass
class CheckReport:
    """What :func:`check` checked, line by line, and whether everything passed."""

    ok: bool
    values: dict
    lines: list = field(default_factory=list)
    seconds: dict = field(default_factory=dict)
    partial: bool = False  # every part accepted, but a lower bound stops short of its value


def check(cert_dir: str, *, checkers=("rup", "dratify")) -> CheckReport:
    """Re-check a certificate folder written by :func:`certify`.

    Raises
    ------
    InstanceError
        When the folder is not a certificate (files missing or unreadable).
    """
    from ..encodings.trie_cnf import ENCODINGS, trie_cnf
    from .rup import parse_dimacs
    from .satproof import check_unsat

    def read(name):
        path = os.path.join(cert_dir, name)
        try:
            with open(path, "rb") as fh:
                return _decode(fh.read(), name)
        except OSError as exc:
            raise InstanceError(f"{path}: {exc.strerror}") from None

    # a file that is there but corrupt is a rejected certificate (exit 1), not bad input;
    # a folder without the files is not a certificate (InstanceError from read)
    try:
        texts = {name: read(name) for name in ("instance.json", "certificate.json")}
    except _Corrupt as exc:
        return CheckReport(False, {}, [f"{exc}: certificate rejected"])
    parsed = {}
    for name, text in texts.items():
        try:
            parsed[name] = json.loads(text)
        except json.JSONDecodeError as exc:
            return CheckReport(False, {}, [f"{name} line {exc.lineno} is not JSON ({exc.msg}): certificate rejected"])
    try:
        inst = from_json(parsed["instance.json"])
    except InstanceError as exc:
        return CheckReport(False, {}, [f"instance.json is not an instance ({exc}): certificate rejected"])
    quantities = parsed["certificate.json"].get("quantities") if isinstance(parsed["certificate.json"], dict) else None
    if not isinstance(quantities, dict):
        return CheckReport(False, {}, ["certificate.json has no quantities: certificate rejected"])
    ok, lines, values, seconds, partial = True, [], {}, {}, False
    for kind, q in quantities.items():
        t0 = time.perf_counter()
        try:
            if kind not in KINDS:
                raise ValueError(f"unknown quantity {kind!r}")
            value = int(q["value"])
        except (KeyError, TypeError, ValueError) as exc:
            ok = False
            lines.append(f"certificate.json: the entry of OPT_{kind} has no value ({type(exc).__name__}: {exc}): rejected")
            continue
        values[kind] = value
        try:
            cost = trie_cost(inst, q["layout"]) if kind == "free" else order_cost(inst, q["order"])
        except (InstanceError, KeyError, TypeError, ValueError) as exc:
            ok = False
            lines.append(f"OPT_{kind}: witness rejected ({exc})")
            continue
        what = "layout" if kind == "free" else "global order"
        good = cost == value
        ok &= good
        lines.append(f"OPT_{kind} <= {value}: the {what} costs {cost} on the prefix trie "
                     f"({'ok' if good else 'MISMATCH'})")
        if kind == "free" and "dual" in q:
            try:
                good, short = _check_dual_file(inst, q, value, read, lines)
            except _Corrupt as exc:
                good, short = False, False
                lines.append(f"OPT_free: {exc}: rejected")
            ok &= good
            partial |= short
            seconds[kind] = round(time.perf_counter() - t0, 4)
            continue
        try:
            cnf_text = read(q["cnf"]["file"])
            proof_text = read(q["proof"]["file"])
        except _Corrupt as exc:
            ok = False
            lines.append(f"OPT_{kind}: {exc}: rejected")
            continue
        # certificates written before the "encoding" field used the unit-copy counter
        encoding = q["cnf"].get("encoding", "seqcounter")
        if encoding not in ENCODINGS:
            ok = False
            lines.append(f"OPT_{kind}: certificate.json names an unknown CNF encoding {encoding!r}: rejected")
            continue
        expected = trie_cnf(inst, value - 1, kind, encoding=encoding, max_bytes=None).dimacs()
        same = cnf_text == expected
        ok &= same
        lines.append(f"OPT_{kind} >= {value}: {q['cnf']['file']} is the CNF of 'a {what} of cost <= {value - 1} "
                     f"exists' regenerated from the instance ({'identical' if same else 'DIFFERENT'})")
        try:
            nvars, clauses = parse_dimacs(cnf_text)
        except ValueError as exc:
            ok = False
            lines.append(f"OPT_{kind}: {q['cnf']['file']} is not DIMACS ({exc})")
            continue
        proof_lines = proof_text.splitlines()
        results = check_unsat(nvars, clauses, proof_lines, checkers)
        if not results:
            ok = False
            lines.append(f"OPT_{kind}: no proof checker available")
        for r in results:
            ok &= r.ok
            lines.append(f"OPT_{kind} >= {value}: {q['proof']['file']} ({len(proof_lines)} lines) "
                         f"{'accepted' if r.ok else 'REJECTED'} by {r.checker} in {r.seconds:.3f} s ({r.message})")
        seconds[kind] = round(time.perf_counter() - t0, 4)
    return CheckReport(ok and not partial, values, lines, seconds, partial=partial and ok)


def _check_dual_file(inst: Instance, q: dict, value: int, read, lines: list) -> tuple[bool, bool]:
    """Recheck ``free.dual.json``; returns (accepted, partial) and appends what it found."""
    from .lpdual import check_dual

    name = q["dual"]["file"]
    try:
        dual = json.loads(read(name))
    except json.JSONDecodeError as exc:
        lines.append(f"OPT_free: {name} line {exc.lineno} is not JSON ({exc.msg}): rejected")
        return False, False
    t0 = time.perf_counter()
    got = check_dual(inst, dual)
    if not got.ok:
        lines.append(f"OPT_free: {name} REJECTED: {got.problem}")
        return False, False
    lines.append(f"OPT_free >= {got.lower}: {name} ({got.rows} rows) is an LP dual over the closure's "
                 f"{got.arcs} cover arcs with bound {got.bound}, accepted in exact arithmetic in "
                 f"{time.perf_counter() - t0:.3f} s")
    if got.lower < value:
        lines.append(f"OPT_free in {got.lower}..{value}: the LP bound stops short of the layout (partial certificate)")
        return True, True
    return True, False

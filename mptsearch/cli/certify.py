"""``mptsearch certify`` and ``mptsearch check``: proof-carrying optimality certificates."""

from __future__ import annotations

import json

import click

from . import fail
from ._common import time_limit_option


@click.command("certify")
@click.argument("instance")
@click.option("-o", "--out", "out_dir", metavar="DIR", required=True,
              help="A folder (docs/cli.md) for the witness, the CNFs and the proofs, each file "
                   "written atomically (created if needed).")
@time_limit_option(default=600.0, help="Wall seconds for the whole command (the SAT searches and "
                                       "proof checks of OPT_free and OPT_glob together); then exit 3.")
@click.option("--free-by", type=click.Choice(["sat", "dual"]), default="sat", show_default=True,
              help="Prove OPT_free's lower half by a checked DRUP proof (sat) or by an LP dual over the "
                   "intersection closure rechecked in exact fractions (dual: large instances; docs/exact.md).")
@click.option("--free-only", is_flag=True, help="Certify OPT_free only (OPT_glob's SAT search grows with n!).")
@click.option("--json", "as_json", is_flag=True, help="Print certificate.json on stdout instead of the table.")
@click.option("-q", "--quiet", is_flag=True, help="Nothing on stderr but errors.")
def certify(instance, out_dir, time_limit, free_by, free_only, as_json, quiet):
    """Prove OPT_free and OPT_glob of INSTANCE: a witness that attains each value, and a checked
    DRUP proof that nothing cheaper exists. Re-check the folder later with `mptsearch check DIR`.

        mptsearch certify "012 013 023 123" --out k4-cert
    """
    from ..exitcodes import FAILED, OK, UNDECIDED
    from ..instance import parse_instance
    from ..verify.certify import certify as run
    from ..verify.satproof import SatBudgetExceeded

    inst = parse_instance(instance)
    try:
        cert = run(inst, out_dir, time_limit=time_limit, free_by=free_by,
                   kinds=("free",) if free_only else ("free", "glob"))
    except SatBudgetExceeded as exc:  # out of time, or a CNF refused before it was built
        hint = "raise --time-limit" if "time limit" in str(exc) else "no proof at this size"
        click.echo(f"mptsearch: undecided: {exc} (-t {time_limit:g}); {hint}", err=True)
        return UNDECIDED
    except MemoryError:
        click.echo("mptsearch: undecided: out of memory while certifying; no proof at this size", err=True)
        return UNDECIDED
    except OSError as exc:
        fail(f"cannot write {out_dir}: {exc.strerror}")
    ok = all(q["optimal"] for q in cert["quantities"].values())
    rejected = any(not c["ok"] for q in cert["quantities"].values() for c in q["checks"])
    verdict = OK if ok else (FAILED if rejected else UNDECIDED)
    if as_json:
        click.echo(json.dumps(cert))
        return verdict
    for kind, q in cert["quantities"].items():
        if "dual" in q:
            d, c = q["dual"], q["checks"][0]
            head = (f"OPT_{kind} = {q['value']}: witness attains it" if q["optimal"] else
                    f"OPT_{kind} in {q['lower']}..{q['value']} (partial: the LP bound is not tight)")
            click.echo(f"{head}; {d['file']} ({d['rows']} rows over {d['arcs']} cover arcs) bounds it below by "
                       f"{d['bound']}: lpdual {'accepted' if c['ok'] else 'REJECTED'} ({c['seconds']:.3f} s)")
            continue
        checks = ", ".join(f"{c['checker']} {'accepted' if c['ok'] else 'REJECTED'} ({c['seconds']:.3f} s)"
                           for c in q["checks"])
        click.echo(f"OPT_{kind} = {q['value']}: witness attains it; {q['cnf']['file']} ({q['cnf']['variables']} vars, "
                   f"{q['cnf']['clauses']} clauses) UNSAT at {q['value'] - 1}, proof {q['proof']['file']} "
                   f"({q['proof']['lines']} lines): {checks}")
    click.echo(f"certificate written to {out_dir}; re-check with: mptsearch check {out_dir}")
    return verdict


@click.command("check")
@click.argument("cert_dir", metavar="DIR", type=click.Path(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
@click.option("-q", "--quiet", is_flag=True, help="Nothing on stderr but errors.")
def check(cert_dir, as_json, quiet):
    """Re-check a certificate folder written by `mptsearch certify`, using only the trie
    definition and the proof checkers. Exit 0 when every part is accepted, 1 otherwise, 3
    when every part is accepted but a lower bound stops short of its value (a bracket)."""
    from ..exitcodes import FAILED, OK, UNDECIDED
    from ..verify.certify import check as run

    rep = run(cert_dir)
    verdict = OK if rep.ok else (UNDECIDED if rep.partial else FAILED)
    if as_json:
        click.echo(json.dumps({"ok": rep.ok, "partial": rep.partial, "values": rep.values, "checked": rep.lines,
                               "seconds": rep.seconds}))
        return verdict
    for line in rep.lines:
        click.echo(line)
    vals = ", ".join(f"OPT_{k} = {v}" for k, v in rep.values.items())
    if rep.partial:
        click.echo("certificate checked as a bracket only (partial): the brackets above, no value proved")
    else:
        click.echo(f"certificate {'checked' if rep.ok else 'REJECTED'}" + (f": {vals}" if vals else ""))
    return verdict

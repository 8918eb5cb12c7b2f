"""``mptsearch verify``, ``mptsearch crosscheck`` and ``mptsearch hardness``."""

from __future__ import annotations

import json
import os
import sys

import click

from . import fail
from ._common import SOLVE_KERNELS, FiniteFloat, announce_compile, jobs_option, out_option, seed_option, write_json


def _load_kernels(quiet: bool) -> None:
    """Compile or load the DP kernels before any method's clock starts (as ``solve`` does)."""
    from ..solve import load_kernels

    announce_compile(*SOLVE_KERNELS, quiet=quiet)
    load_kernels()


def _fmt(v):
    return "-" if v is None else str(v)


@click.command("verify")
@click.argument("instance")
@click.option("--claim", "claims", multiple=True, metavar="Q=VALUE",
              help="A value to check: free=VALUE or glob=VALUE; repeatable.")
@click.option("--method", "methods", multiple=True, metavar="NAME",
              help="Run only these methods (repeatable; default: every method that applies at this size).")
@click.option("--min-methods", type=click.IntRange(1), default=2, show_default=True,
              help="Independent methods (sharing no code) that must agree before a value counts as proved.")
@click.option("-t", "--time-limit", type=FiniteFloat(0.01, what="number of seconds"), default=60.0, show_default=True,
              help="Seconds per CP-SAT solve and per SAT descent (per method, not for the whole "
                   "command: docs/cli.md).")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="CP-SAT workers (1 is deterministic).")
@click.option("--json", "as_json", is_flag=True, help="Print the whole certificate as one JSON object on stdout.")
@out_option(help="Write the whole certificate (values, witnesses, timings) as JSON to PATH, atomically.")
@click.option("-q", "--quiet", is_flag=True, help="No notes on stderr.")
def verify(instance, claims, methods, min_methods, time_limit, workers, as_json, out, quiet):
    """Compute OPT_free and OPT_glob of INSTANCE by every method that applies, recheck each
    witness, and check the claims. A value is proved when --min-methods methods that share no
    code agree. Exit 0 when every claim and optimum is proved, 1 when something is false (a
    refuted claim, methods that disagree, a witness or proof rejected), 3 when it could not be
    decided at this size (the limit that stopped each method is printed).

        mptsearch verify "0145 0236 1236 1245 1345 1456 2346 2356" --claim free=14 --claim glob=21
    """
    from ..instance import InstanceError, compact, parse_instance
    from ..verify.verify import METHODS, parse_claims, verify as run

    inst = parse_instance(instance)
    try:
        claim_map = parse_claims(claims)
    except InstanceError as exc:
        fail(str(exc))
    bad = [m for m in methods if m not in METHODS]
    if bad:
        fail(f"unknown method {bad[0]!r}; choose from {', '.join(METHODS)}")
    if not quiet:
        for note in inst.notes:
            click.echo(f"note: {note}", err=True)
    _load_kernels(quiet)
    rep = run(inst, claim_map, methods=list(methods) or "auto", time_limit=time_limit, workers=workers,
              min_methods=min_methods)
    if out:
        write_json(out, rep.to_json())
    if as_json:
        click.echo(json.dumps(rep.to_json()))
        return rep.exit_code
    click.echo(f"instance  {compact(inst, inst.orders) if inst.m <= 40 else f'({inst.m} requests)'}")
    click.echo(f"n={inst.n} chunks, m={inst.m} requests, k<={max(len(o) for o in inst.orders)}, "
               f"sum_i w(R_i)={inst.total_weight()}")
    click.echo(f"{'method':<15}{'computes':<10}{'value':>8}{'seconds':>10}  {'witness rechecked'}")
    for r in rep.rows:
        if r.status == "skipped":
            click.echo(f"{r.method:<15}{'OPT_' + r.quantity:<10}{'skipped':>8}{'':>10}  {r.note}")
            continue
        if r.status == "error":
            click.echo(f"{r.method:<15}{'OPT_' + r.quantity:<10}{'ERROR':>8}{r.seconds:>10.3f}  {r.note}")
            continue
        # a time-limited row's upper bound is its witness's cost, rechecked on the trie (the
        # solver's own objective can be higher: 47 beside a witness of 45)
        upper = r.witness_cost if r.witness_cost is not None else r.value
        val = _fmt(r.value) if r.status == "optimal" else f"<={_fmt(upper)}"
        wit = (f"{r.witness_kind} costs {r.witness_cost}" if r.witness_cost is not None else "no witness")
        if r.status == "optimal":
            wit += " ok" if r.witness_cost == r.value else " MISMATCH"
        else:
            wit += f" (time limit; proven >= {r.bound})"
        click.echo(f"{r.method:<15}{'OPT_' + r.quantity:<10}{val:>8}{r.seconds:>10.3f}  {wit}")
    for q, qt in rep.quantities.items():
        if qt.value is None:
            rng = f"in [{_fmt(qt.lower)}, {_fmt(qt.upper)}] " if qt.lower is not None or qt.upper is not None else ""
            click.echo(f"OPT_{q} = - {rng}(undecided: no method computed it)")
            for why in qt.stopped:
                click.echo(f"  stopped by a limit: {why}")
            continue
        by = ", ".join(f"{m}={qt.value}" for m in qt.methods)
        if qt.proved:
            click.echo(f"OPT_{q} = {qt.value}  proved by {len(qt.families)} independent methods ({by})")
        else:
            click.echo(f"OPT_{q} = {qt.value}  unconfirmed: {len(qt.families)} independent method(s) "
                       f"of {rep.min_methods} needed ({by})")
            for why in qt.stopped:
                click.echo(f"  stopped by a limit: {why}")
    for c in rep.claims:
        word = {"proved": "holds", "refuted": "FALSE", "undecided": "undecided"}[c.status]
        click.echo(f"claim {c.quantity}={c.claimed}: {word} ({c.reason})")
    for p in rep.problems:
        click.echo(f"problem: {p}")
    if out:
        click.echo(f"certificate written to {out}")
    click.echo({"proved": "verified", "failed": "NOT verified: something is false",
                "undecided": "undecided at this size (exit 3)"}[rep.verdict])
    return rep.exit_code


@click.command("crosscheck")
@click.option("--trials", type=click.IntRange(1), default=200, show_default=True)
@seed_option()
@click.option("--m-max", type=click.IntRange(2, 12), default=8, show_default=True, help="Most requests per instance.")
@click.option("--n-max", type=click.IntRange(2, 14), default=9, show_default=True, help="Most chunks per instance.")
@jobs_option()
@click.option("-t", "--time-limit", type=FiniteFloat(0.01, what="number of seconds"), default=20.0, show_default=True,
              help="Seconds per CP-SAT solve (per method, not for the whole command: docs/cli.md).")
@click.option("-o", "--out", "out_dir", metavar="DIR", default=None,
              help="A folder (docs/cli.md): checkpoint, disagreement instance files and summary; "
                   "a rerun resumes.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
def crosscheck(trials, seed, m_max, n_max, jobs, time_limit, out_dir, as_json, quiet):
    """Random weighted instances through every exact method; exit 1 on any disagreement."""
    from ..verify.crosscheck import crosscheck as run

    _load_kernels(quiet)  # here, once, before the workers load them from the cache
    s = run(trials, seed, m_max=m_max, n_max=n_max, time_limit=time_limit,
            jobs=jobs or os.cpu_count() or 1, out_dir=out_dir,
            progress=not (as_json or quiet) and sys.stderr.isatty())
    if as_json:
        click.echo(json.dumps(s.to_json()))
        return 0 if not s.disagreements else 1
    click.echo(f"{s.trials} trials (seed {s.seed}, m<={m_max}, n<={n_max}; {s.resumed} resumed) "
               f"in {s.wall_seconds:.1f} s")
    click.echo(f"{'method':<15}{'proved':>8}{'seconds':>10}")
    for meth, cnt in s.runs.items():
        click.echo(f"{meth:<15}{cnt:>8}{s.method_seconds.get(meth, 0):>10.2f}")
    click.echo(f"disagreements: {len(s.disagreements)}")
    for d in s.disagreements[:20]:
        click.echo(f"  trial {d['trial']}: {'; '.join(d['problems'])}")
    if s.disagreements and out_dir:
        click.echo(f"instance files in {out_dir}/disagreements/")
    return 0 if not s.disagreements else 1


@click.command("hardness")
@click.option("--edges", "edge_file", metavar="FILE", default=None, help="Edge list, one 'u v' per line.")
@click.option("--random", "random_graph", nargs=2, type=click.IntRange(2), metavar="V E", default=None,
              help="A random graph with V vertices and E edges instead.")
@click.option("-k", "--k", "k", type=click.IntRange(2), default=2, show_default=True,
              help="Chunks per request: each edge is padded with k-2 chunks (docs/approximation.md).")
@click.option("--pad", type=click.Choice(["shared", "private"]), default="shared", show_default=True,
              help="Padding chunks common to every request (OPT = tau + |E| + k-2) or private to each "
                   "(OPT = tau + (k-1)|E|).")
@seed_option(help="Seed of the --random graph.")
@click.option("-t", "--time-limit", type=FiniteFloat(0.01, what="number of seconds"), default=60.0, show_default=True,
              help="Seconds per solver run (per method, not for the whole command: docs/cli.md).")
@click.option("--json", "as_json", is_flag=True)
@out_option(help="Write the reduced instance (JSON, readable as an INSTANCE) to PATH, atomically.")
@click.option("-q", "--quiet", is_flag=True, help="Nothing on stderr but errors.")
def hardness(edge_file, random_graph, k, pad, seed, time_limit, as_json, out, quiet):
    """Graph -> instance with requests of k chunks; check its cost = tau(G) + |E| + padding with
    independent vertex-cover solvers, and that every optimal layout's first vertices form a
    minimum vertex cover. Exit 0 when all agree, 1 when a check fails.

        mptsearch hardness --random 8 12 --k 3 -o reduced.json
    """
    from ..verify.hardness import hardness_check, random_graph as rg, read_edge_list, reduced_instance

    if (edge_file is None) == (random_graph is None):
        fail("give exactly one of --edges FILE or --random V E")
    edges = read_edge_list(edge_file) if edge_file else rg(random_graph[0], random_graph[1], seed=seed)
    if out:
        write_json(out, reduced_instance(edges, k, pad).to_json())
    _load_kernels(quiet)
    rep = hardness_check(edges, k=k, pad=pad, time_limit=time_limit)
    if as_json:
        click.echo(json.dumps(rep.to_json()))
        return 0 if rep.ok else 1
    pad_note = f"; k = {rep.k}, {rep.pad} padding (adds {rep.padding})" if rep.k > 2 else ""
    click.echo(f"graph: {rep.vertices} vertices, {rep.edges} edges{pad_note}")
    for name, t in rep.tau.items():
        click.echo(f"tau(G) by {name:<12}{t:>8}{rep.seconds[name]:>10.3f} s")
    for name, c in rep.cost.items():
        click.echo(f"cost by {name:<15}{c:>8}{rep.seconds[name]:>10.3f} s")
    for name, why in rep.skipped.items():
        click.echo(f"skipped {name}: {why}")
    for p in rep.problems:
        click.echo(f"problem: {p}")
    if out and not quiet:
        click.echo(f"reduced instance written to {out}", err=True)
    identity = "cost = tau(G) + |E|" + (" + padding" if rep.padding else "")
    click.echo(f"{identity} holds" if rep.ok else "NOT verified")
    return 0 if rep.ok else 1

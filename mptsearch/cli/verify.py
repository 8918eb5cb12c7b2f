"""``mptsearch verify``, ``mptsearch crosscheck`` and ``mptsearch hardness``."""

from __future__ import annotations

import json

import click

from . import fail


def _fmt(v):
    return "-" if v is None else str(v)


@click.command("verify")
@click.argument("instance")
@click.option("--claim", "claims", multiple=True, metavar="Q=VALUE",
              help="A value to check: free=VALUE or glob=VALUE; repeatable.")
@click.option("--method", "methods", multiple=True, metavar="NAME",
              help="Run only these methods (repeatable; default: every method that applies at this size).")
@click.option("--time-limit", type=click.FloatRange(0.01), default=60.0, show_default=True,
              help="Seconds per CP-SAT solve.")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="CP-SAT workers (1 is deterministic).")
@click.option("--json", "json_path", metavar="FILE", default=None,
              help="Write the whole certificate (values, witnesses, timings) as JSON to FILE (- for stdout).")
def verify(instance, claims, methods, time_limit, workers, json_path):
    """Compute OPT_free and OPT_glob of INSTANCE by every method that applies, recheck each
    witness, and check the claims. Exit 0 when all agree and every claim holds, 1 otherwise.

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
    for note in inst.notes:
        click.echo(f"note: {note}", err=True)
    rep = run(inst, claim_map, methods=list(methods) or "auto", time_limit=time_limit, workers=workers)
    if json_path == "-":
        click.echo(json.dumps(rep.to_json()))
        return 0 if rep.ok else 1
    click.echo(f"instance  {compact(inst) if inst.m <= 40 else f'({inst.m} requests)'}")
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
        val = _fmt(r.value) if r.status == "optimal" else f"<={_fmt(r.value)}"
        wit = (f"{r.witness_kind} costs {r.witness_cost}" if r.witness_cost is not None else "no witness")
        if r.status == "optimal":
            wit += " ok" if r.witness_cost == r.value else " MISMATCH"
        else:
            wit += f" (time limit; proven >= {r.bound})"
        click.echo(f"{r.method:<15}{'OPT_' + r.quantity:<10}{val:>8}{r.seconds:>10.3f}  {wit}")
    for q in ("free", "glob"):
        n_ok = sum(1 for r in rep.rows if r.quantity == q and r.status == "optimal")
        click.echo(f"OPT_{q} = {_fmt(rep.values[q])}  ({n_ok} method(s))")
    for c in rep.claims:
        click.echo(f"claim {c.quantity}={c.claimed}: {'holds' if c.holds else 'FALSE'} ({c.reason})")
    for p in rep.problems:
        click.echo(f"problem: {p}")
    if json_path:
        try:
            with open(json_path, "w", encoding="utf-8") as fh:
                json.dump(rep.to_json(), fh, indent=1)
        except OSError as exc:
            fail(f"cannot write {json_path}: {exc.strerror}")
        click.echo(f"certificate written to {json_path}")
    click.echo("verified" if rep.ok else "NOT verified")
    return 0 if rep.ok else 1


@click.command("crosscheck")
@click.option("--trials", type=click.IntRange(1), default=200, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--m-max", type=click.IntRange(2, 12), default=8, show_default=True, help="Most requests per instance.")
@click.option("--n-max", type=click.IntRange(2, 14), default=9, show_default=True, help="Most chunks per instance.")
@click.option("--jobs", type=click.IntRange(1, 64), default=1, show_default=True, help="Parallel processes.")
@click.option("--time-limit", type=click.FloatRange(0.01), default=20.0, show_default=True,
              help="Seconds per CP-SAT solve.")
@click.option("--out", "out_dir", metavar="DIR", default=None,
              help="Checkpoint, disagreement instance files and summary go here; a rerun resumes.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def crosscheck(trials, seed, m_max, n_max, jobs, time_limit, out_dir, as_json):
    """Random weighted instances through every exact method; exit 1 on any disagreement."""
    from ..verify.crosscheck import crosscheck as run

    s = run(trials, seed, m_max=m_max, n_max=n_max, time_limit=time_limit, jobs=jobs, out_dir=out_dir,
            progress=not as_json)
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
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--time-limit", type=click.FloatRange(0.01), default=60.0, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def hardness(edge_file, random_graph, seed, time_limit, as_json):
    """Graph -> k=2 instance; check its cost = tau(G) + |E| with independent vertex-cover solvers."""
    from ..verify.hardness import hardness_check, random_graph as rg, read_edge_list

    if (edge_file is None) == (random_graph is None):
        fail("give exactly one of --edges FILE or --random V E")
    edges = read_edge_list(edge_file) if edge_file else rg(random_graph[0], random_graph[1], seed=seed)
    rep = hardness_check(edges, time_limit=time_limit)
    if as_json:
        click.echo(json.dumps(rep.to_json()))
        return 0 if rep.ok else 1
    click.echo(f"graph: {rep.vertices} vertices, {rep.edges} edges")
    for name, t in rep.tau.items():
        click.echo(f"tau(G) by {name:<12}{t:>8}{rep.seconds[name]:>10.3f} s")
    for name, c in rep.cost.items():
        click.echo(f"cost by {name:<15}{c:>8}{rep.seconds[name]:>10.3f} s")
    for name, why in rep.skipped.items():
        click.echo(f"skipped {name}: {why}")
    for p in rep.problems:
        click.echo(f"problem: {p}")
    click.echo("cost = tau(G) + |E| holds" if rep.ok else "NOT verified")
    return 0 if rep.ok else 1

"""``mptsearch solve INSTANCE``: every solver, heuristic and bound on one instance."""

from __future__ import annotations

import json

import click

from . import fail


@click.command("solve")
@click.argument("instance")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of the table.")
@click.option("--skip", multiple=True, metavar="METHOD",
              help="Skip a method (opt_free, opt_glob, agglomerative, greedy, production, lower_bound); repeatable.")
@click.option("--max-free-m", type=click.IntRange(1, 32), default=25, show_default=True,
              help="Skip exact OPT_free above this many requests (its time is O(3^m)).")
@click.option("--max-glob-n", type=click.IntRange(1, 34), default=26, show_default=True,
              help="Skip exact OPT_glob above this many chunks (time and memory O(2^n)).")
def solve(instance, as_json, skip, max_free_m, max_glob_n):
    """Solve INSTANCE exactly and with every heuristic and bound.

    INSTANCE is a JSON file, - for JSON on stdin, or compact notation, e.g.

        mptsearch solve "0145 0236 1236 1245 1345 1456 2346 2356"
    """
    from ..instance import compact, parse_instance
    from ..solve import METHODS, solve as run

    inst = parse_instance(instance)
    bad = [s for s in skip if s not in METHODS]
    if bad:
        fail(f"unknown method {bad[0]!r} for --skip; choose from {', '.join(METHODS)}")
    for note in inst.notes:
        click.echo(f"note: {note}", err=True)
    summary = run(inst, methods=[m for m in METHODS if m not in skip],
                  max_free_m=max_free_m, max_glob_n=max_glob_n)
    out = summary.to_json()
    if as_json:
        click.echo(json.dumps(out))
        return
    click.echo(f"instance  {compact(inst) if inst.m <= 40 else f'({inst.m} requests)'}")
    click.echo(f"n={inst.n} chunks, m={inst.m} requests, sum_i w(R_i)={inst.total_weight()}")
    click.echo(f"{'method':<14}{'cost':>12}{'seconds':>12}")
    for meth in METHODS:
        if meth in out["skipped"]:
            click.echo(f"{meth:<14}{'skipped':>12}  {out['skipped'][meth]}")
        elif out[meth] is not None:
            click.echo(f"{meth:<14}{out[meth]:>12}{out['seconds'].get(meth, 0):>12.4f}")
    if "kernel_load" in out["seconds"]:
        click.echo(f"(compiled kernels loaded in {out['seconds']['kernel_load']:.2f} s, not counted above)")
    if out["ratio"] is not None:
        click.echo(f"OPT_glob / OPT_free = {out['opt_glob']}/{out['opt_free']} = {out['ratio']:.4f}")
    if out["layout"] is not None and inst.m <= 40:
        click.echo(f"layout ({out['layout_method']}):")
        for i, seq in enumerate(out["layout"]):
            click.echo(f"  R{i}: {' '.join(map(str, seq))}")
    if out["order"] is not None and inst.n <= 60:
        click.echo(f"optimal global order: {' '.join(map(str, out['order']))}")

"""``mptsearch solve INSTANCE``: every solver, heuristic and bound on one instance."""

from __future__ import annotations

import click

from ._common import SOLVE_KERNELS, announce_compile, emit_json, fail, json_option, note, out_option, quiet_option, write_json, \
    write_text_atomic, writable_path

# the numba modules OPT_free and OPT_glob compile on their first run


@click.command("solve")
@click.argument("instance")
@json_option
@quiet_option
@out_option("Also write the JSON result to PATH, atomically.")
@click.option("--tree", is_flag=True,
              help="Draw the prefix trie of the best layout found: chunk, weight w=, requests ending there.")
@click.option("--dot", "dot_path", type=click.Path(dir_okay=False), default=None, metavar="PATH", callback=writable_path,
              help="Write that trie as Graphviz dot to PATH (render: dot -Tsvg PATH).")
@click.option("--skip", multiple=True, metavar="METHOD",
              help="Skip a method (opt_free, opt_glob, agglomerative, greedy, production, lower_bound); repeatable.")
@click.option("--max-free-m", type=click.IntRange(1, 32), default=25, show_default=True,
              help="Use the subset DP (time O(3^m)) up to this many requests; past it OPT_free comes "
                   "from the closure arborescence (docs/exact.md).")
@click.option("--free-time-limit", type=click.FloatRange(min=0, min_open=True), default=60.0, show_default=True,
              help="Seconds for the closure arborescence; past them OPT_free is skipped with the bounds it proved.")
@click.option("--max-glob-n", type=click.IntRange(1, 34), default=26, show_default=True,
              help="Skip exact OPT_glob above this many chunks (time and memory O(2^n)).")
@click.option("--max-dense-m", type=click.IntRange(1, None), default=5000, show_default=True,
              help="Skip the quadratic methods (agglomerative, lower_bound) above this many requests.")
def solve(instance, as_json, quiet, out, tree, dot_path, skip, max_free_m, free_time_limit, max_glob_n,
          max_dense_m):
    """Solve INSTANCE exactly and with every heuristic and bound.

    INSTANCE is a file (JSON or compact notation), - for stdin, or compact notation, e.g.

        mptsearch solve "0145 0236 1236 1245 1345 1456 2346 2356"
    """
    from ..draw import draw_trie, trie_dot
    from ..instance import compact, parse_instance
    from ..exact.auto import METHOD_NAMES
    from ..solve import METHODS, solve as run

    bad = [s for s in skip if s not in METHODS]
    if bad:
        fail(f"unknown method {bad[0]!r} for --skip; choose from {', '.join(METHODS)}")
    methods = [m for m in METHODS if m not in skip]
    if (tree or dot_path) and not {"opt_free", "agglomerative", "greedy"} & set(methods):
        fail("--tree and --dot draw a layout: keep opt_free, agglomerative or greedy")
    inst = parse_instance(instance)
    for msg in inst.notes:
        note(f"note: {msg}", quiet)
    if "opt_free" in methods or ("opt_glob" in methods and inst.n <= max_glob_n) \
            or "lower_bound" in methods:  # what makes solve() load the kernels
        announce_compile(*SOLVE_KERNELS, quiet=quiet)
    summary = run(inst, methods=methods, max_free_m=max_free_m, max_glob_n=max_glob_n,
                  free_time_limit=free_time_limit, max_dense_m=max_dense_m)
    out_json = summary.to_json()
    if out is not None:
        write_json(out, out_json)
    if dot_path is not None:
        write_text_atomic(dot_path, trie_dot(inst, summary.layout))
    if as_json:
        emit_json(out_json)
        return
    if out is not None:
        note(f"wrote {out}", quiet)
    if dot_path is not None:
        note(f"wrote {dot_path}", quiet)
    click.echo(f"instance  {compact(inst, inst.orders) if inst.m <= 40 else f'({inst.m} requests)'}")
    click.echo(f"n={inst.n} chunks, m={inst.m} requests, sum_i w(R_i)={inst.total_weight()}")
    click.echo(f"{'method':<14}{'cost':>12}{'seconds':>12}")
    for meth in METHODS:
        if meth in out_json["skipped"]:
            click.echo(f"{meth:<14}{'skipped':>12}  {out_json['skipped'][meth]}")
        elif out_json[meth] is not None:
            by = f"  by {METHOD_NAMES[summary.free_method]}" if meth == "opt_free" and summary.free_method else ""
            click.echo(f"{meth:<14}{out_json[meth]:>12}{out_json['seconds'].get(meth, 0):>12.4f}{by}")
    if "kernel_load" in out_json["seconds"]:
        click.echo(f"(compiled kernels loaded in {out_json['seconds']['kernel_load']:.2f} s, not counted above)")
    if out_json["ratio"] is not None:
        click.echo(f"OPT_glob / OPT_free = {out_json['opt_glob']}/{out_json['opt_free']} = {out_json['ratio']:.4f}")
    if out_json["layout"] is not None and inst.m <= 40:
        click.echo(f"layout ({out_json['layout_method']}):")
        for i, seq in enumerate(out_json["layout"]):
            click.echo(f"  R{i}: {' '.join(map(str, seq))}")
    if out_json["order"] is not None and inst.n <= 60:
        click.echo(f"optimal global order: {' '.join(map(str, out_json['order']))}")
    if tree:
        which = "optimal prefix trie" if summary.layout_method == "opt_free" else f"prefix trie ({summary.layout_method})"
        click.echo(draw_trie(inst, summary.layout, title=which))

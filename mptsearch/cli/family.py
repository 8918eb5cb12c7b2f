"""``mptsearch family NAME --k K``: a named family with exact OPT_glob and a free layout."""

from __future__ import annotations

import json
import os
import tempfile

import click

from . import fail


def _write_atomic(path: str, text: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".family-", suffix=".json")
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
    os.replace(tmp, path)


@click.command("family")
@click.argument("name", metavar="NAME")
@click.option("-k", "--k", "k", type=click.IntRange(2), default=None,
              help="Request size (leave-one-out: n = K+1 chunks; k4-3 and record are fixed).")
@click.option("--cores", type=click.IntRange(2), default=3, show_default=True,
              help="Number of cores of the sunflowers family.")
@click.option("--with-cores", is_flag=True,
              help="sunflowers: also each core alone as a request (S+(c,k), sizes K-1 and K).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of the table.")
@click.option("-o", "--out", "out_path", default=None, metavar="PATH", help="Also write the JSON object to PATH.")
@click.option("--max-free-m", type=click.IntRange(1, 25), default=16, show_default=True,
              help="Run the exact OPT_free DP (O(3^m)) up to this many requests.")
def family(name, k, cores, with_cores, as_json, out_path, max_free_m):
    """Build the family NAME at request size K and solve it: exact OPT_glob with an optimal
    global order (orbit DP, docs/theta_k.md), a free layout with its trie cost, and the ratio.

    NAME is two-sunflowers (D_k), sunflowers (S(c,k): c cores of K-1 chunks, --cores,
    --with-cores), leave-one-out (n = K+1), k4-3 or record.
    Exit code 1 if the order's recomputed trie cost differs from OPT_glob.
    """
    from ..families import FAMILY_NAMES, family_summary
    from ..instance import InstanceError

    if name not in FAMILY_NAMES:
        fail(f"unknown family {name!r}; choose from {', '.join(FAMILY_NAMES)}")
    try:
        out = family_summary(name, k, cores=cores, with_cores=with_cores, max_free_m=max_free_m)
    except InstanceError as exc:
        fail(str(exc))
    text = json.dumps(out)
    if out_path:
        _write_atomic(out_path, text + "\n")
    ok = out["order_cost"] == out["opt_glob"]
    if as_json:
        click.echo(text)
    else:
        label = name + (f" c={out['cores']}" if out["cores"] else "") + (" with cores" if with_cores else "")
        click.echo(f"{label} k={out['k']}: n={out['n']} chunks, m={out['m']} requests")
        click.echo(f"OPT_glob   {out['opt_glob']}  ({out['method']}; order rechecked on the trie: "
                   f"{out['order_cost']})")
        click.echo(f"free cost  {out['free_cost']}  ({out['free_method']})")
        if out["free_lower_bound"] is not None:
            click.echo(f"OPT_free  >= {out['free_lower_bound']}  ({out['free_lower_bound_source']})")
        if out["opt_free"] is not None:
            click.echo(f"OPT_free   {out['opt_free']}  ({out['opt_free_source']})")
            click.echo(f"OPT_glob / OPT_free = {out['opt_glob']}/{out['opt_free']} = {out['ratio']:.4f}")
        else:
            click.echo(f"OPT_glob / OPT_free >= {out['opt_glob']}/{out['free_cost']} = {out['ratio']:.4f}")
        if out["n"] <= 60:
            click.echo(f"optimal global order: {' '.join(map(str, out['order']))}")
    if not ok:
        click.echo(f"mptsearch: error: the order costs {out['order_cost']} on the trie, not {out['opt_glob']}",
                   err=True)
        return 1
    return 0

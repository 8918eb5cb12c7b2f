"""``mptsearch family NAME --k K``: a named family with exact OPT_glob and a free layout."""

from __future__ import annotations

import click

from ..exitcodes import FAILED, OK
from ._common import emit_json, fail, json_option, out_option, quiet_option, write_json


@click.command("family")
@click.argument("name", metavar="NAME")
@click.option("-k", "--k", "k", type=click.IntRange(2), default=None,
              help="Request size (leave-one-out: n = K+1 chunks; k4-3 and record are fixed; greedy-trap: q).")
@click.option("--cores", type=click.IntRange(2), default=3, show_default=True,
              help="Number of cores of the sunflowers family.")
@click.option("--with-cores", is_flag=True,
              help="sunflowers: also each core alone as a request (S+(c,k), sizes K-1 and K).")
@json_option
@quiet_option
@out_option("Also write the JSON object to PATH, atomically.")
@click.option("--max-free-m", type=click.IntRange(1, 25), default=16, show_default=True,
              help="Run the exact OPT_free DP (O(3^m)) up to this many requests.")
@click.option("--length", type=click.IntRange(1), default=8, show_default=True,
              help="online-star / online-sliding: requests per gadget (docs/online.md).")
@click.option("--window", type=click.IntRange(1), default=1, show_default=True,
              help="online-star / online-sliding: window W (W interleaved gadgets).")
@click.option("--heavy", type=click.IntRange(1), default=None,
              help="greedy-trap: the heavy chunks' weight W  [default: q^2]")
def family(name, k, cores, with_cores, max_free_m, length, window, heavy, as_json, quiet, out):
    """Build the family NAME at request size K and solve it: exact OPT_glob with an optimal
    global order (orbit DP, docs/theta_k.md), a free layout with its trie cost, and the ratio.

    NAME is two-sunflowers (D_k), sunflowers (S(c,k): c cores of K-1 chunks, --cores,
    --with-cores), leave-one-out (n = K+1), k4-3 or record; the online adversary families
    online-star and online-sliding (--length, --window; docs/online.md); or greedy-trap (G(q, W),
    --k is q, --heavy W: level-wise greedy's cost / OPT_free tends to q,
    mptsearch/families/heuristic.py).
    Exit code 1 if the order's recomputed trie cost differs from OPT_glob (online families:
    if OnlineLayouter's cost differs from the proved one; greedy-trap: if a cost on the trie
    differs from the proved one).
    """
    from ..families.named import FAMILY_NAMES, family_summary
    from ..families.heuristic import HEURISTIC_FAMILY_NAMES
    from ..families.online import ONLINE_FAMILY_NAMES

    if name in ONLINE_FAMILY_NAMES:
        return _online(name, k, length, window, max_free_m, as_json, out)
    if name in HEURISTIC_FAMILY_NAMES:
        return _heuristic_family(name, k, heavy, max_free_m, as_json, out)
    if name not in FAMILY_NAMES:
        fail(f"unknown family {name!r}; choose from "
             f"{', '.join(FAMILY_NAMES + ONLINE_FAMILY_NAMES + HEURISTIC_FAMILY_NAMES)}")
    res = _summary(lambda: family_summary(name, k, cores=cores, with_cores=with_cores, max_free_m=max_free_m),
                   as_json, out)
    if not as_json:
        label = name + (f" c={res['cores']}" if res["cores"] else "") + (" with cores" if with_cores else "")
        click.echo(f"{label} k={res['k']}: n={res['n']} chunks, m={res['m']} requests")
        click.echo(f"OPT_glob   {res['opt_glob']}  ({res['method']}; order rechecked on the trie: "
                   f"{res['order_cost']})")
        click.echo(f"free cost  {res['free_cost']}  ({res['free_method']})")
        if res["free_lower_bound"] is not None:
            click.echo(f"OPT_free  >= {res['free_lower_bound']}  ({res['free_lower_bound_source']})")
        if res["opt_free"] is not None:
            click.echo(f"OPT_free   {res['opt_free']}  ({res['opt_free_source']})")
            click.echo(f"OPT_glob / OPT_free = {res['opt_glob']}/{res['opt_free']} = {res['ratio']:.4f}")
        else:
            click.echo(f"OPT_glob / OPT_free >= {res['opt_glob']}/{res['free_cost']} = {res['ratio']:.4f}")
        if res["n"] <= 60:
            click.echo(f"optimal global order: {' '.join(map(str, res['order']))}")
    return _verdict(res["order_cost"], res["opt_glob"], "the order costs")


def _verdict(got, want, what: str) -> int:
    """Exit code 1 (with one line on stderr) when a recomputed cost differs from the claimed one."""
    if got != want:
        click.echo(f"mptsearch: error: {what} {got} on the trie, not {want}", err=True)
        return FAILED
    return OK


def _summary(compute, as_json, out) -> dict:
    """Run the library call, mapping bad input to exit code 2; write and emit the JSON."""
    from ..instance import InstanceError

    try:
        res = compute()
    except InstanceError as exc:
        fail(str(exc))
    if out:
        write_json(out, res)
    if as_json:
        emit_json(res)
    return res


def _online(name, k, length, window, max_free_m, as_json, out):
    from ..families.online import online_family_summary

    res = _summary(lambda: online_family_summary(name, k, length, window, max_free_m=max_free_m), as_json, out)
    if not as_json:
        click.echo(f"{name} k={res['k']} length={res['m']} W={res['window']}: n={res['n']} chunks, "
                   f"{len(res['requests'])} requests in arrival order")
        click.echo(f"online_layout (W={window})  {res['online_cost']}  (proved: {res['claimed_online_cost']})")
        click.echo(f"OPT_free {'<=' if 'bound' in res['opt_free_source'] else '  '} {res['opt_free']}  "
                   f"({res['opt_free_source']})")
        click.echo(f"ratio {'>=' if 'bound' in res['opt_free_source'] else '='} {res['ratio']:.4f}")
    return _verdict(res["online_cost"], res["claimed_online_cost"], "online_layout costs")


def _heuristic_family(name, q, heavy, max_free_m, as_json, out):
    """A family on which a heuristic's cost ratio grows (mptsearch/families/heuristic.py)."""
    from ..families.heuristic import greedy_trap_summary

    if q is None:
        fail(f"{name} needs --k (q, the number of heavy chunks)")
    res = _summary(lambda: greedy_trap_summary(q, heavy, max_free_m=max_free_m), as_json, out)
    if not as_json:
        click.echo(f"{name} q={res['q']} W={res['heavy']}: n={res['n']} chunks, m={res['m']} requests of at most 2 chunks")
        click.echo(f"greedy cost  {res['greedy_cost']}  (proved q^2 W + q - 1 = {res['greedy_cost_proved']})")
        click.echo(f"free layout  {res['free_cost']}  (proved qW + q^2 - q + 1 = {res['free_cost_proved']})")
        if res["opt_free"] is not None:
            click.echo(f"OPT_free     {res['opt_free']}  (exact DP)  greedy / OPT_free = {res['ratio']:.4f}")
        click.echo(f"greedy / OPT_free >= {res['ratio_lower_bound']} = {res['ratio_lower_bound_float']:.4f} (proved)")
    return _verdict((res["greedy_cost"], res["free_cost"]), (res["greedy_cost_proved"], res["free_cost_proved"]),
                    "greedy and free-layout costs")

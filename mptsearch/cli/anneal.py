"""``mptsearch anneal``: simulated annealing for OPT_glob/OPT_free ratios and greedy shortfall."""

from __future__ import annotations

import click

from ..exitcodes import FAILED, INTERRUPTED, OK, UNDECIDED

from ._common import KERNEL_MODULES, announce_compile, emit_json, fail, jobs_option, json_option, note, out_option, progress_bar, \
    quiet_option, seed_option, time_limit_option, write_json


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


@click.command("anneal")
@click.option("--objective", type=click.Choice(["ratio", "shortfall"]), default="ratio", show_default=True,
              help="ratio = OPT_glob/OPT_free; shortfall = optimal savings / agglomerative savings.")
@click.option("-k", "--k", "k_text", default=None, metavar="K|LO-HI",
              help="Request size or range  [default: 4 for ratio, 2-4 for shortfall]")
@click.option("-n", "--chunks", type=int, default=7, show_default=True, help="Chunks in the universe (n).")
@click.option("-m", "--requests", "m_text", default=None, metavar="M|LO-HI",
              help="Number of requests or range  [default: 3 up to the distinct requests that exist, at most 16 "
                   "unless the weights are 1 and n <= 7 (prefix-set search); "
                   "every other restart keeps to m <= 10]")
@click.option("--weights", "w_text", default=None, metavar="W|LO-HI",
              help="Chunk weight or range  [default: 1 for ratio, 1-9 for shortfall]")
@seed_option(help="Run seed (restart r derives its own); with --steps the find does not depend on --jobs.")
@click.option("--steps", type=click.IntRange(1), default=None,
              help="Total steps over all restarts; with it the best find does not depend on --jobs.")
@time_limit_option(help="Wall seconds of the search, kernel compilation and the certificate of the best "
                        "find excluded (docs/cli.md)  [default: 60 without --steps, none with it]")
@click.option("--restart-steps", type=click.IntRange(1), default=200_000, show_default=True,
              help="Steps per restart (one cooling schedule).")
@click.option("--t-start", type=click.FloatRange(0, min_open=True), default=0.05, show_default=True)
@click.option("--t-end", type=click.FloatRange(0, min_open=True), default=0.002, show_default=True)
@jobs_option("Parallel restarts  [default: all cores; 0 also means all cores]")
@click.option("--scheduler", default=None, metavar="ADDRESS", help="Dask scheduler address, e.g. tcp://host:8786.")
@click.option("--check", is_flag=True, help="Count instances with agglomerative savings below half the optimum.")
@out_option("Write the JSON record (settings, history, certified best) to PATH  [default: nothing written]")
@json_option
@quiet_option
def anneal(objective, k_text, chunks, m_text, w_text, seed, steps, time_limit, restart_steps,
           t_start, t_end, jobs, scheduler, check, out, as_json, quiet):
    """Search small families for a large OPT_glob/OPT_free ratio (or agglomerative shortfall).

    Example: mptsearch anneal -k 4 -n 7 -t 60 -o run.json
    """
    from ..instance import InstanceError
    from ..search.anneal import DEFAULT_M_NARROW, AnnealConfig, default_requests
    from ..search.certificate import CertificateError, certify, run_record
    from ..search.parallel import anneal as run_anneal

    k_text = k_text or ("4" if objective == "ratio" else "2-4")
    k = _range(k_text, "--k")
    weights = _range(w_text or ("1" if objective == "ratio" else "1-9"), "--weights")
    m = _range(m_text, "--requests") if m_text else default_requests(chunks, k, weights)
    m_alternate = None if m_text else DEFAULT_M_NARROW
    if steps is None and time_limit is None:
        time_limit = 60.0
    config = AnnealConfig(n=chunks, k=k, m=m, weights=weights, objective=objective,
                          restart_steps=restart_steps, t_start=t_start, t_end=t_end, check=check,
                          m_alternate=m_alternate)
    try:
        config.validate()
    except InstanceError as exc:
        fail(str(exc))
    jobs = jobs or None  # 0: all cores, as without the option
    if announce_compile("mptsearch.search.steps", "mptsearch.search.objective", *KERNEL_MODULES, quiet=quiet):
        # compile in this process before the clock of --time-limit starts; workers then load
        # the kernels from numba's on-disk cache
        run_anneal(config, seed=seed, steps=min(200, restart_steps), time_limit=None, jobs=1)

    total = round(time_limit) if time_limit is not None else steps
    bar = progress_bar(quiet, total=total, unit="s" if time_limit is not None else "step", leave=True,
                       bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt}{unit} [{elapsed}<{remaining}{postfix}]")

    def progress(run):
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
    if run.instance is None:
        fail("interrupted before the first round finished: nothing to report")
    settings = {"objective": objective, "k": list(k), "chunks": chunks, "requests": list(m), "m_alternate": m_alternate,
                "weights": list(weights), "seed": seed, "steps": steps, "time_limit": time_limit,
                "restart_steps": restart_steps, "t_start": t_start, "t_end": t_end, "jobs": jobs,
                "scheduler": scheduler, "check": check}
    try:
        cert = certify(run.instance, objective, run.num, run.den)
    except CertificateError as exc:
        click.echo(f"mptsearch: certificate check failed: {exc}", err=True)
        return FAILED
    record = run_record(run, cert, settings)
    # interrupted wins; else a find is OK only when both values are proved (docs/cli.md)
    code = INTERRUPTED if run.stopped == "interrupted" else (OK if cert["certified"] else UNDECIDED)
    if out is not None:
        write_json(out, record)
    if as_json:
        emit_json(record)
        return code

    click.echo(f"stopped ({run.stopped}) after {run.seconds:.1f} s: {run.evaluations:,} evaluations "
               f"({run.evaluations / max(run.seconds, 1e-9):,.0f}/s), {run.restarts_started} restarts")
    click.echo(f"best      {cert['instance']}")
    if objective == "ratio":
        click.echo(f"canonical {cert['canonical']}")
        click.echo(f"OPT_free {cert['opt_free']}  OPT_glob {cert['opt_glob']}  "
                   f"ratio {cert['fraction']} = {cert['value']:.4f}")
        click.echo("optimal free layout: " + " ".join("".join(map(str, s)) if all(len(str(c)) == 1 for c in s)
                                                    else "/".join(map(str, s)) for s in cert["free_layout"]))
        click.echo("optimal global order: " + " ".join(map(str, cert["glob_order"])))
    else:
        click.echo(f"weights   {' '.join(f'{lab}:{w}' for lab, w in cert['instance_weights'].items())}")
        click.echo(f"canonical {cert['canonical']}  weights {cert['weights']}")
        click.echo(f"optimal savings {cert['optimal_savings']}  agglomerative savings {cert['agglomerative_savings']}"
                   f"  shortfall {cert['fraction']} = {cert['value']:.4f}")
        click.echo(f"optimal hierarchy {cert['free_hierarchy']}  agglomerative {cert['agglomerative_hierarchy']}")
    for q, v in cert["verification"]["quantities"].items():
        by = ", ".join(f"{name}={val}" for name, val in v["methods"].items())
        click.echo(f"OPT_{q} {'proved' if v['proved'] else 'UNCONFIRMED'} by independent methods: {by}")
    click.echo("certified: every value proved by two independent methods" if cert["certified"]
               else "not certified: a value lacks a second independent method (see above)")
    if check or objective == "shortfall":
        click.echo(f"instances below half the optimal savings: {run.violations}")
    note(f"wrote {out}" if out is not None else "nothing written (-o PATH keeps the JSON record)", quiet)
    return code

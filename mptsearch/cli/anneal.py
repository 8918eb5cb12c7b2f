"""``mptsearch anneal``: simulated annealing for OPT_glob/OPT_free ratios and greedy shortfall."""

from __future__ import annotations

import os
import time

import click

from . import fail


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
@click.option("--k", "k_text", default=None, metavar="K|LO-HI",
              help="Request size or range  [default: 4 for ratio, 2-4 for shortfall]")
@click.option("--chunks", type=int, default=7, show_default=True, help="Chunks in the universe (n).")
@click.option("--requests", "m_text", default=None, metavar="M|LO-HI",
              help="Number of requests or range  [default: 3-10, capped by the distinct requests that exist]")
@click.option("--weights", "w_text", default=None, metavar="W|LO-HI",
              help="Chunk weight or range  [default: 1 for ratio, 1-9 for shortfall]")
@click.option("--seed", type=int, default=0, show_default=True, help="Run seed (restart r derives its own).")
@click.option("--steps", type=click.IntRange(1), default=None,
              help="Total steps over all restarts; with it the best find does not depend on --jobs.")
@click.option("--time-limit", type=click.FloatRange(0, min_open=True), default=None,
              help="Seconds  [default: 60 without --steps, none with it]")
@click.option("--restart-steps", type=click.IntRange(1), default=200_000, show_default=True,
              help="Steps per restart (one cooling schedule).")
@click.option("--t-start", type=click.FloatRange(0, min_open=True), default=0.05, show_default=True)
@click.option("--t-end", type=click.FloatRange(0, min_open=True), default=0.002, show_default=True)
@click.option("--jobs", type=click.IntRange(1), default=None, help="Parallel restarts  [default: all cores]")
@click.option("--scheduler", default=None, metavar="ADDRESS", help="Dask scheduler address, e.g. tcp://host:8786.")
@click.option("--check", is_flag=True, help="Count instances with agglomerative savings below half the optimum.")
@click.option("--out", default=None, metavar="FILE",
              help="JSON result  [default: results/anneal/_work/anneal-<objective>-k<K>-n<N>-s<seed>-<time>.json]")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def anneal(objective, k_text, chunks, m_text, w_text, seed, steps, time_limit, restart_steps,
           t_start, t_end, jobs, scheduler, check, out, quiet):
    """Search small families for a large OPT_glob/OPT_free ratio (or agglomerative shortfall).

    Example: mptsearch anneal --k 4 --chunks 7 --time-limit 60
    """
    from ..instance import InstanceError
    from ..search.anneal import AnnealConfig
    from ..search.certificate import CertificateError, certify, run_record, write_json
    from ..search.parallel import anneal as run_anneal

    k_text = k_text or ("4" if objective == "ratio" else "2-4")
    k = _range(k_text, "--k")
    weights = _range(w_text or ("1" if objective == "ratio" else "1-9"), "--weights")
    probe = AnnealConfig(n=chunks, k=k, m=(1, 1))
    cap = probe.capacity() if 1 <= k[0] <= k[1] <= chunks else 0
    m = _range(m_text, "--requests") if m_text else (min(3, max(cap, 1)), max(1, min(10, cap)))
    if steps is None and time_limit is None:
        time_limit = 60.0
    config = AnnealConfig(n=chunks, k=k, m=m, weights=weights, objective=objective,
                          restart_steps=restart_steps, t_start=t_start, t_end=t_end, check=check)
    try:
        config.validate()
    except InstanceError as exc:
        fail(str(exc))
    if out is None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        out = os.path.join("results", "anneal", "_work",
                           f"anneal-{objective}-k{k_text}-n{chunks}-s{seed}-{stamp}.json")

    bar = None
    if not quiet:
        from tqdm import tqdm
        total = round(time_limit) if time_limit is not None else steps
        unit = "s" if time_limit is not None else "step"
        bar = tqdm(total=total, unit=unit, dynamic_ncols=True, leave=True,
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
    settings = {"objective": objective, "k": list(k), "chunks": chunks, "requests": list(m),
                "weights": list(weights), "seed": seed, "steps": steps, "time_limit": time_limit,
                "restart_steps": restart_steps, "t_start": t_start, "t_end": t_end, "jobs": jobs,
                "scheduler": scheduler, "check": check}
    try:
        cert = certify(run.instance, objective, run.num, run.den)
    except CertificateError as exc:
        click.echo(f"mptsearch: certificate check failed: {exc}", err=True)
        return 1
    write_json(out, run_record(run, cert, settings))

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
    click.echo(f"wrote {out}")
    return 130 if run.stopped == "interrupted" else (0 if cert["certified"] else 3)

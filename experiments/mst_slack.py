"""C6: slack of the maximum-spanning-tree lower bound on random instances.

The paper: "mean slack 1.45x on random instances" without the generator or the definition of
slack. We report both readings: the cost ratio OPT_free / LB and the savings ratio
MST / SAV* (the bound is a bound on savings: SAV* <= MaxSpanningTree).

Generator (stated): n = 12 chunks, m uniform in 6..14 distinct requests, sizes uniform in
2..6, weights uniform in 1..9.
"""

from __future__ import annotations

import numpy as np

from ._common import Run, parser


def main(argv=None):
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--instances", type=int, default=500)
    args = p.parse_args(argv)
    from mptsearch.bounds import mst_lower_bound
    from mptsearch.exact.free import opt_free
    from mptsearch.families import random_instance

    config = {"instances": args.instances, "n": 12, "m": [6, 14], "k": [2, 6], "weights": [1, 9]}
    run = Run("mst_slack", config, args.seed, args.out)
    rng = np.random.default_rng(args.seed)
    rows = []
    with run.timed("instances"):
        for i in range(args.instances):
            inst = random_instance(n=12, m=int(rng.integers(6, 15)), k=(2, 6), weights=(1, 9), seed=rng)
            opt = opt_free(inst)
            lb = mst_lower_bound(inst)
            total = inst.total_weight()
            rows.append({"i": i, "m": inst.m, "opt_free": opt.value, "lower_bound": lb,
                         "cost_ratio": opt.value / lb, "mst_savings": total - lb, "opt_savings": opt.savings,
                         "savings_ratio": (total - lb) / opt.savings if opt.savings else None})
    run.write_csv("mst_slack.csv", rows)
    cr = np.array([r["cost_ratio"] for r in rows])
    sr = np.array([r["savings_ratio"] for r in rows if r["savings_ratio"] is not None])
    stats = {"cost_ratio": {"mean": float(cr.mean()), "median": float(np.median(cr)), "max": float(cr.max())},
             "savings_ratio": {"mean": float(sr.mean()), "median": float(np.median(sr)), "max": float(sr.max())}}
    run.write_json("mst_slack.json", stats)
    _plot(run, cr, sr)
    claims = [{"claim": "C6", "what": "MST bound slack, mean over random instances (cost OPT/LB; savings MST/SAV*)",
               "paper": "1.45x", "ours": f"{stats['cost_ratio']['mean']:.3f}x cost; {stats['savings_ratio']['mean']:.3f}x savings",
               "agree": None, "detail": "generator and slack definition not given by the paper; ours in meta.json"}]
    run.finish(claims)
    return claims


def _plot(run, cr, sr):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(8, 3.4))
    axes[0].hist(cr, bins=30)
    axes[0].set_xlabel("OPT_free / MST lower bound")
    axes[1].hist(sr, bins=30, color="tab:orange")
    axes[1].set_xlabel("MST savings / optimal savings")
    for ax in axes:
        ax.set_ylabel("instances")
    fig.suptitle("Slack of the maximum-spanning-tree bound")
    fig.tight_layout()
    fig.savefig(run.dir / "mst_slack.png", dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()

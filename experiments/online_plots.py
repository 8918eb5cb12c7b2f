"""The online-ratio figure of results/online/: proved bounds, searched worst cases and the
trace against the window W (docs/online.md).

    python -m experiments.online_plots [--dir results/online] [--search FILE]

Reads ``bounds.csv`` and ``trace_ratio.csv`` of the folder (written by experiments/online.py;
the trace's ratio is drawn as a line where OPT_free is exact, else as the proved band between
ALG / best layout and ALG / LP-dual bound, HiGHS's bound dotted inside it)
and, when present, the anneal search's ``search.json`` (rows {"window", "k", "ratio_float",
"certified", ...}); without it the search series is skipped with a printed note.
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

from ._common import save_figure


def _csv(path: Path) -> list[dict]:
    with open(path) as fh:
        return list(csv.DictReader(fh))


def load_search(path: Path) -> list[dict] | None:
    """The search rows, or None (with a note) when the file is absent."""
    if not path.exists():
        print(f"note: {path} not found; the search series is left out of the plot")
        return None
    data = json.loads(path.read_text())
    rows = data["rows"] if isinstance(data, dict) and "rows" in data else data
    return [r for r in rows if "window" in r and "ratio_float" in r]


def plot(folder: Path, search: Path | None = None, k: int = 10) -> Path:
    """Draw ``online_ratio.png`` in ``folder``; returns its path."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder = Path(folder)
    bounds = {int(r["k"]): r for r in _csv(folder / "bounds.csv")}
    trace = _csv(folder / "trace_ratio.csv")
    rows = load_search(Path(search) if search else folder / "search.json")
    ws = [int(r["W"]) for r in trace if r["W"] != "offline" and r["arrival"] == "given"]
    lb = folder / "length_bound.csv"
    lr = _csv(lb) if lb.exists() else []
    wmax = max(ws + [int(r["window"]) for r in rows or []] + [int(r["W"]) for r in lr])
    xs = [1, wmax]
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.2))
    ax = axes[0]
    b = bounds[k]
    ax.plot(xs, [k, k], "k-", label=f"upper bound, every algorithm: k = {k} (Prop. 1)")
    ax.plot(xs, [float(b["online_layouter_star_m1000"])] * 2, "r--", lw=2,
            label=f"online_layout on online-star (m=1000): {float(b['online_layouter_star_m1000']):.2f} (Prop. 6)")
    ax.plot(xs, [float(b["det_lower_float"])] * 2, "b-",
            label=f"lower bound, every deterministic algorithm: {b['det_lower']} (nested chain, Thm. N)")
    if "det_lower_exactly_k_float" in b:
        ax.plot(xs, [float(b["det_lower_exactly_k_float"])] * 2, "c-",
                label=f"same, exactly k chunks per request: {b['det_lower_exactly_k']} (drop-first, Thm. 3)")
    ax.plot(xs, [float(b["rand_lower_float"])] * 2, "b:",
            label=f"lower bound, randomised: {b['rand_lower']} (Thm. RN)")
    if lr:
        ax.step([int(r["W"]) for r in lr], [float(r["det_lower_float"]) for r in lr], "g--", lw=1, where="post",
                label=f"lower bound on streams of m = {lr[0]['m']} requests (Cor. 4; nothing proved past W = m / 2)")
    for arrival, mark in (("given", "o"), ("shuffled", "s")):
        sel = [r for r in trace if r["arrival"] == arrival and r["W"] != "offline"]
        x = [int(r["W"]) for r in sel]
        if sel and sel[0].get("ratio"):
            ax.plot(x, [float(r["ratio"]) for r in sel], mark + "-", ms=4,
                    label=f"FanOutQA k={k} ({arrival} arrival): ALG / OPT_free, exact ({sel[0]['opt_free_how']})")
            continue
        lo, hi = [float(r["ratio_at_least"]) for r in sel], [float(r["ratio_at_most"]) for r in sel]
        fill = ax.fill_between(x, lo, hi, alpha=0.25)
        if "ratio_at_most_highs" in (sel[0] if sel else {}):
            label = f"FanOutQA k={k} ({arrival}): ALG / best layout .. ALG / LP dual (proved)"
            ax.plot(x, [float(r["ratio_at_most_highs"]) for r in sel], ".", ms=3, color=fill.get_facecolor()[0][:3],
                    label=f"FanOutQA k={k} ({arrival}): ALG / HiGHS's bound (computed)")
        else:
            label = f"FanOutQA k={k} ({arrival} arrival): ALG / agglomerative .. ALG / MST bound"
        ax.plot(x, lo, mark + "-", ms=4, label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("reorder window W")
    ax.set_ylabel("ALG / OPT_free")
    ax.set_title(f"k = {k}: proved bounds, flat in W (Thm. 4; unit weights) and the trace (token weights)")
    ax.set_ylim(1, 1.5 * k)
    ax.legend(fontsize=7, loc="upper right", bbox_to_anchor=(1.0, 0.9))
    ax = axes[1]
    if rows:
        for kk in sorted({int(r["k"]) for r in rows}):
            sel = sorted((int(r["window"]), float(r["ratio_float"]))
                         for r in rows if int(r["k"]) == kk and r.get("certified"))
            worst = {}
            for w, ratio in sel:  # one search per (k, W, m): the line is the worst over m
                worst[w] = max(worst.get(w, 0.0), ratio)
            line, = ax.plot(sorted(worst), [worst[w] for w in sorted(worst)], "o-",
                            label=f"search worst over m (certified), k={kk}")
            ax.plot([s[0] for s in sel], [s[1] for s in sel], ".", color=line.get_color(), alpha=0.35)
            if kk in bounds:
                c = line.get_color()
                ax.plot(xs, [float(bounds[kk]["det_lower_float"])] * 2, "-", color=c, alpha=0.5,
                        label=f"proved deterministic lower bound, k={kk}: {bounds[kk]['det_lower']}")
                ax.plot(xs, [kk, kk], "--", color=c, alpha=0.5, label=f"upper bound k={kk}")
        ax.set_xscale("log", base=2)
        ax.legend(fontsize=7)
        ax.set_title("annealed worst arrival sequences for OnlineLayouter (search.json)")
    else:
        ax.text(0.5, 0.5, "search.json absent:\nno search series", ha="center", va="center",
                transform=ax.transAxes)
        ax.set_title("annealed worst arrival sequences (not available)")
    ax.set_xlabel("reorder window W")
    ax.set_ylabel("OnlineLayouter / OPT_free")
    fig.tight_layout()
    return save_figure(fig, folder / "online_ratio.png", dpi=110)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dir", type=Path, default=Path(__file__).resolve().parent.parent / "results" / "online")
    p.add_argument("--search", type=Path, default=None)
    args = p.parse_args(argv)
    print("wrote", plot(args.dir, args.search))


if __name__ == "__main__":
    main()

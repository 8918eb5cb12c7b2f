"""Plots of the serving results, built from results/serving/*.csv only (no trace needed).

- online.png: prefill saved against production order by the online layout, against the
  reorder window W (claim C11), one line per (k, arrival);
- pinning.png: prefill saved with the top-t passages pinned, against t (claim C12), one line
  per (k, method of the free part).

    python -m experiments.serving_plots
"""

from __future__ import annotations

import csv
from collections import defaultdict

from ._common import RESULTS

SERVING = RESULTS / "serving"


def _series(path, key, x, y="saved_pct"):
    """({key tuple: [(x, y), ...]} with x sorted, {key tuple: {label: y}} for rows whose x is a
    label such as W="offline" (the whole stream laid out at once)."""
    out, labelled = defaultdict(list), defaultdict(dict)
    with open(path, newline="") as fh:
        for row in csv.DictReader(fh):
            k = tuple(row[c] for c in key)
            try:
                out[k].append((float(row[x]), float(row[y])))
            except ValueError:
                labelled[k][row[x]] = float(row[y])
    return {k: sorted(v) for k, v in out.items()}, labelled


def main(argv=None) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    online, offline = _series(SERVING / "online.csv", ("k", "arrival"), "W")
    fig, ax = plt.subplots(figsize=(6, 4))
    for (k, arrival), pts in sorted(online.items(), key=lambda kv: (int(kv[0][0]), kv[0][1])):
        line, = ax.plot(*zip(*pts), marker="o", ms=3, ls="-" if arrival == "given" else "--",
                        label=f"k={k}, {arrival} arrival")
        if arrival == "given" and "offline" in offline.get((k, arrival), {}):
            ax.axhline(offline[(k, arrival)]["offline"], color=line.get_color(), ls=":", lw=1,
                       label=f"k={k}, offline (whole stream)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("reorder window W (requests)")
    ax.set_ylabel("prefill saved vs production order (%)")
    ax.set_title("Online layout with window W (C11)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(SERVING / "online.png", dpi=120)
    plt.close(fig)
    written.append("online.png")

    pinning, _ = _series(SERVING / "pinning.csv", ("k", "free_part_method"), "t")
    fig, ax = plt.subplots(figsize=(6, 4))
    for (k, method), pts in sorted(pinning.items(), key=lambda kv: (int(kv[0][0]), kv[0][1])):
        ax.plot(*zip(*pts), marker="o", ms=3, ls="-" if method == "agglomerative" else "--", label=f"k={k}, {method}")
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xlabel("pinned top-t passages")
    ax.set_ylabel("prefill saved vs production order (%)")
    ax.set_title("Pinning the most relevant passages (C12)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(SERVING / "pinning.png", dpi=120)
    plt.close(fig)
    written.append("pinning.png")
    return written


if __name__ == "__main__":
    print("wrote", ", ".join(f"results/serving/{name}" for name in main()))

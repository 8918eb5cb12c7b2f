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


def _figure(plt, series, dashed, label, xlabel, title, refs=()):
    """One line per key of ``series`` (dashed where ``dashed(key)``), dotted reference lines
    ``refs`` = [(key, y, label)] in the colour of their key's line; returns (figure, axes)."""
    fig, ax = plt.subplots(figsize=(6, 4))
    colours = {}
    for key, pts in sorted(series.items(), key=lambda kv: (int(kv[0][0]), kv[0][1])):
        line, = ax.plot(*zip(*pts), marker="o", ms=3, ls="--" if dashed(key) else "-", label=label(key))
        colours[key] = line.get_color()
    for key, y, text in refs:
        ax.axhline(y, color=colours.get(key, "k"), ls=":", lw=1, label=text)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("prefill saved vs production order (%)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig, ax


def main(argv=None) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    online, offline = _series(SERVING / "online.csv", ("k", "arrival"), "W")
    refs = [(key, ys["offline"], f"k={key[0]}, offline (whole stream)")
            for key, ys in sorted(offline.items()) if key[1] == "given" and "offline" in ys]
    fig, ax = _figure(plt, online, lambda key: key[1] != "given", lambda key: f"k={key[0]}, {key[1]} arrival",
                      "reorder window W (requests)", "Online layout with window W (C11)", refs=refs)
    ax.set_xscale("log", base=2)
    fig.savefig(SERVING / "online.png", dpi=120)
    plt.close(fig)

    pinning, _ = _series(SERVING / "pinning.csv", ("k", "free_part_method"), "t")
    fig, ax = _figure(plt, pinning, lambda key: key[1] != "agglomerative", lambda key: f"k={key[0]}, {key[1]}",
                      "pinned top-t passages", "Pinning the most relevant passages (C12)")
    ax.axhline(0, color="k", lw=0.6)
    fig.savefig(SERVING / "pinning.png", dpi=120)
    plt.close(fig)
    return ["online.png", "pinning.png"]


if __name__ == "__main__":
    print("wrote", ", ".join(f"results/serving/{name}" for name in main()))

"""Build results/README.md from the result files only: one row per claim of the paper.

Every experiment writes ``results/<name>/summary.json`` with rows {claim, what, paper, ours,
agree, command, detail}. This script reads them all and decides each row's verdict itself, by a
test that says "no" on other data (:func:`verdict`):

- claims whose generator or trace the paper does not give (C5-C7, C11, C12: the paper names no
  generator for them) are *n/a*: our figure is not comparable one to one, whatever it is;
- C10's "L-shaped" is tested on the interior of the W x capacity tables
  (results/serving/heatmap_*.csv, without the whole-stream row and the unbounded column that
  are 0 by definition): the table is L-shaped when every interior cell is within
  :data:`L_TOLERANCE` of min(its row's value at the smallest capacity, its column's value at
  the smallest window), the form min(f(W), g(C)) of two substitutes;
- where the paper states a figure, ours must equal it at the paper's precision;
- otherwise the experiment's own boolean, computed from its data, stands.
"""

from __future__ import annotations

import csv
import json
import re

from ._common import RESULTS

#: C claims whose generator or trace the paper does not specify.
NO_GENERATOR = {"C5", "C6", "C7", "C11", "C12"}
#: Largest interior deviation from the min(row, column) form, as a share of the table's largest
#: excess, that still counts as L-shaped.
L_TOLERANCE = 0.10

_NUM = re.compile(r"-?\d+(?:\.\d+)?")
_NOT_FIGURES = re.compile(r"K\d\^\(\d\)|\(.*?\)|\bof \d+|`[^`]*`")
_QUALITATIVE = re.compile(r"\b(under|dies|rise|equality|shaped|only|none|bound)\b")


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, (list, dict)):
        return json.dumps(v).replace("|", "\\|")
    return str(v).replace("|", "\\|")


def _key(row):
    m = re.match(r"C(\d+)", row["claim"])
    return (int(m.group(1)) if m else 99, row.get("what", ""))


def read_table(path) -> tuple[list, list, list]:
    """A W x capacity CSV -> (row labels, column labels, values as floats)."""
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    cols = rows[0][1:]
    return [r[0] for r in rows[1:]], cols, [[float(v) for v in r[1:]] for r in rows[1:]]


def l_shape(path) -> dict:
    """How far the interior of a W x capacity table is from min(f(W), g(C)).

    The interior leaves out the row "all" (the whole stream reordered) and the column "inf"
    (unbounded cache), which are 0 by definition. f(W) is the row's value at the smallest
    capacity, g(C) the column's value at the smallest window.
    """
    wl, cl, vals = read_table(path)
    ri = [i for i, w in enumerate(wl) if w.strip().lower() != "all"]
    ci = [j for j, c in enumerate(cl) if c.strip().lower() not in ("inf", "unbounded")]
    top = max(vals[i][j] for i in ri for j in ci)
    worst, where = 0.0, None
    for i in ri:
        for j in ci:
            pred = min(vals[i][ci[0]], vals[ri[0]][j])
            dev = abs(vals[i][j] - pred)
            if dev > worst:
                worst, where = dev, (wl[i], cl[j], vals[i][j], pred)
    share = worst / top if top > 0 else 0.0
    return {"file": path.name, "cells": len(ri) * len(ci), "largest_excess": top, "worst_deviation": worst,
            "share": share, "at": where, "l_shaped": share <= L_TOLERANCE}


def _figures(text: str) -> list[float]:
    return [float(x) for x in _NUM.findall(_NOT_FIGURES.sub(" ", text))]


def _decimals(text: str) -> list[int]:
    return [len(x.split(".")[1]) if "." in x else 0 for x in _NUM.findall(_NOT_FIGURES.sub(" ", text))]


def verdict(row: dict) -> tuple[str, str]:
    """(word, why) for one summary row; see the module docstring."""
    claim = row["claim"].split("/")[0]
    if claim in NO_GENERATOR:
        return "n/a", "the paper gives no generator or trace for this claim: our figure comes from our own"
    paper, ours = str(row.get("paper", "")), row.get("ours", "")
    if claim == "C10" and "L-shaped" in paper:
        which = "shuffled" if "shuffled" in row.get("what", "") else "given"
        path = RESULTS / "serving" / f"heatmap_{which}.csv"
        if not path.exists():
            return "n/a", f"{path.name} is missing"
        s = l_shape(path)
        w, c, v, p = s["at"] or ("-", "-", 0, 0)
        why = (f"interior of {s['file']} ({s['cells']} cells): largest deviation from min(f(W), g(C)) is "
               f"{s['share']:.1%} of the largest excess (W={w}, capacity {c}x: {v} vs {p}); "
               f"L-shaped means at most {L_TOLERANCE:.0%}")
        return ("yes" if s["l_shaped"] else "**no**"), why
    if not _QUALITATIVE.search(_NOT_FIGURES.sub(" ", paper)):
        pf, of = _figures(paper), _figures(ours if isinstance(ours, str) else json.dumps(ours))
        if pf:
            if len(of) < len(pf):
                return "**no**", "our result has fewer figures than the paper's"
            dec = _decimals(paper)
            same = all(round(o, d) == round(p, d) for o, p, d in zip(of, pf, dec))
            if not same:
                return "**no**", (f"ours {', '.join(f'{o:g}' for o in of[:len(pf)])} vs the paper's "
                                  f"{', '.join(f'{p:g}' for p in pf)} (see the note for what the difference means)")
            if row.get("agree") is False:
                return "**no**", "the figures match but the experiment's own check failed"
            return "yes", "our figures equal the paper's at its precision"
    if row.get("agree") is None:
        return "n/a", "the experiment gives no verdict"
    return ("yes" if row["agree"] else "**no**"), "the experiment's check on its data"


def main(argv=None) -> str:
    rows = []
    for summary in sorted(RESULTS.glob("*/summary.json")):
        data = json.loads(summary.read_text())
        for c in data.get("claims", []):
            c = dict(c)
            c["folder"] = summary.parent.name
            meta = summary.parent / "meta.json"
            c["commit"] = json.loads(meta.read_text()).get("git_commit", "?")[:10] if meta.exists() else "?"
            c["verdict"], c["why"] = verdict(c)
            rows.append(c)
    rows.sort(key=_key)
    counts = {w: sum(r["verdict"] == w for r in rows) for w in ("yes", "**no**", "n/a")}
    lines = [
        "# Results: the paper's claims against our exact computation",
        "",
        "Generated by `python -m experiments.report` from `results/*/summary.json` and the data files they",
        "name. Each folder holds the experiment's `meta.json` (config, seed, version, git commit, machine)",
        "written before its data. `agree` is decided by `experiments/report.py`: *yes* when our figure",
        "equals the paper's at its precision (or, for a claim without a figure, when the experiment's",
        "check on its data passes), **no** when it differs, *n/a* where the paper gives no generator or",
        "trace (C5-C7, C11, C12). C10's L-shape is tested on the table's interior (see the note).",
        "",
        f"{counts['yes']} rows agree, {counts['**no**']} differ, {counts['n/a']} are not comparable.",
        "",
        "| claim | what | paper | ours | agree | folder | command |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['claim']} | {_fmt(r.get('what', ''))} | {_fmt(r.get('paper'))} | {_fmt(r.get('ours'))} "
                     f"| {r['verdict']} | [{r['folder']}]({r['folder']}/) | `{r.get('command', '')}` |")
    lines += ["", "## Why each verdict", ""]
    for r in rows:
        detail = f" {r['detail']}" if r.get("detail") else ""
        lines.append(f"- **{r['claim']}** ({r.get('what', '')}): {r['verdict']}: {r['why']}.{detail}")
    lines += ["", "## Plots", "", "Every picture in results/, each made by its folder's script from that folder's data:", ""]
    lines += [f"- [{p.relative_to(RESULTS)}]({p.relative_to(RESULTS)})" for p in sorted(RESULTS.glob("**/*.png"))
              if "_work" not in p.parts]
    text = "\n".join(lines) + "\n"
    (RESULTS / "README.md").write_text(text)
    return text


if __name__ == "__main__":
    print(main())

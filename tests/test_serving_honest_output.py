"""What `layout` tells a user: a relaxed or vacuous bound says so and how to tighten it, a
method worse than production order is flagged, and the online method never runs without a
window."""

import json
import re

import numpy as np
import pytest
from click.testing import CliRunner

from mptsearch.bounds import mst_lower_bound
from mptsearch.cli import cli
from mptsearch.instance import InstanceError
from mptsearch.serving.api import order_contexts
from mptsearch.serving.layout import layout_summary, method_orders
from mptsearch.serving.sparse import mst_bound, orders_cost, sparse_from_lists
from mptsearch.serving.synthetic import mixed_trace, retrieval_trace, write_jsonl

SMALL = "tests/data/serving_small.jsonl"


def run(*args):
    r = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return r.exit_code, r.output


# ---- the bound --------------------------------------------------------------------------------

def test_a_relaxed_bound_is_never_below_each_chunk_once():
    # two pairs sharing a heavy chunk, all four sharing a light one: with every chunk hot the
    # stars count each request's best partner (101) once per star, 3 + 1 + 1 edges, and the
    # bound fell to 408 - 303 = 105, below the 205 tokens of the distinct chunks; the per-chunk
    # relaxation gives 408 - (1 * 3 + 100 + 100) = 205, here also the exact MST bound
    reqs = [["x", "a", "p"], ["x", "a", "q"], ["x", "b", "r"], ["x", "b", "s"]]
    w = {"x": 1, "a": 100, "b": 100, "p": 1, "q": 1, "r": 1, "s": 1}
    tr = sparse_from_lists(reqs, w)
    b = mst_bound(tr, edge_budget=0)
    assert not b.exact and b.hot_chunks == 3
    assert b.trivial == 205 and b.value == 205 == mst_lower_bound(tr.to_instance())
    assert b.vacuous


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("budget", [0, 3, 20])
def test_relaxed_bound_lies_between_each_chunk_once_and_the_exact_bound(seed, budget):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(3, 9)), int(rng.integers(2, 12))
    w = {f"c{x}": int(rng.integers(1, 30)) for x in range(n)}
    reqs = [[f"c{x}" for x in rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False)] for _ in range(m)]
    tr = sparse_from_lists(reqs, w)
    b = mst_bound(tr, edge_budget=budget)
    once = sum(w[c] for c in {c for r in reqs for c in r})  # every distinct chunk computed once
    dense = mst_lower_bound(tr.to_instance())
    assert once <= b.value <= dense
    assert b.trivial == once and b.vacuous == (b.value <= once)
    pairs = sum(d * (d - 1) // 2 for d in (sum(c in set(r) for r in {tuple(sorted(r)) for r in reqs}) for c in w))
    assert b.all_pairs == pairs
    assert mst_bound(tr, edge_budget=pairs).exact and mst_bound(tr, edge_budget=pairs).value == dense


def test_cli_says_the_bound_is_relaxed_and_how_to_make_it_exact():
    code, out = run("layout", SMALL, "--method", "production", "--bound-edges", "50")
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("MST lower bound"))
    assert "relaxed at" in row and "hot chunks" in row and "hot chunks over-estimated" not in row
    edges = int(re.search(r"--bound-edges (\d+) computes it exactly", out).group(1))
    code, out = run("layout", SMALL, "--method", "production", "--bound-edges", str(edges), "--json")
    doc = json.loads(out)
    tr = sparse_from_lists(*_read(SMALL))
    assert doc["lower_bound_exact"] and doc["lower_bound"] == mst_lower_bound(tr.to_instance())
    assert run("layout", SMALL, "--bound-edges", "-1")[0] == 2


def test_cli_calls_a_bound_that_says_nothing_vacuous(tmp_path):
    # every chunk in every request: the only layout is one path, the bound is each chunk once
    path = tmp_path / "t.jsonl"
    write_jsonl(str(path), [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"]], {"a": 5, "b": 6, "c": 7})
    code, out = run("layout", str(path), "--method", "production", "--bound-edges", "0")
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("MST lower bound"))
    assert "vacuous" in row and "no better than computing each distinct chunk once" in row


def _read(path):
    rows = [json.loads(line) for line in open(path)]
    return [r["chunks"] for r in rows], {c: t for r in rows for c, t in zip(r["chunks"], r["tokens"])}


# ---- worse than production ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def chat_trace(tmp_path_factory):
    chunks, tokens = mixed_trace(300, seed=2, sessions=1.0, turns=10, tenants=2)
    path = tmp_path_factory.mktemp("mixed") / "mixed.jsonl"
    write_jsonl(str(path), chunks, tokens)
    return str(path), chunks, tokens


def test_a_method_worse_than_production_is_flagged(chat_trace, tmp_path):
    path, chunks, tokens = chat_trace
    tr = sparse_from_lists(chunks, tokens)
    prod = tr.production_cost()
    lay, _ = method_orders(tr, "popularity")
    pop = orders_cost(tr.weights, lay.indptr, lay.seq)
    assert pop > prod  # the trace is built for that: sessions share their history in production order
    r = CliRunner().invoke(cli, ["layout", path, "--no-bound", "--window", "8",
                                                 "-o", str(tmp_path / "o.jsonl"), "--method", "popularity"])
    assert r.exit_code == 0
    row = next(line for line in r.stdout.splitlines() if line.startswith("popularity"))
    assert f"WORSE than production order (+{100 * (pop - prod) / prod:.2f}% prefill)" in row
    assert "warning: popularity needs" in r.stderr and "more prefill than production order" in r.stderr
    code, out = run("layout", path, "--no-bound", "--window", "8")
    for line in out.splitlines()[2:]:
        if line.split()[0] in ("production", "agglomerative"):
            assert "WORSE" not in line
    s = layout_summary(tr, ["production", "popularity"], bound=False)
    assert [("WORSE" in r.note) for r in s.rows] == [False, True]


# ---- the online method needs a window ---------------------------------------------------------

def test_online_needs_a_window():
    code, out = run("layout", SMALL, "--method", "online")
    assert code == 2 and "needs a window" in out and "--window W" in out
    code, out = run("layout", SMALL, "--json", "--no-bound")
    online = [r for r in json.loads(out)["methods"] if r["method"].startswith("online")]
    assert len(online) == 1 and online[0]["prefill"] is None and "skipped: needs --window" in online[0]["note"]
    code, out = run("layout", SMALL, "--no-bound")
    assert "online (W=" not in out and re.search(r"^online\s.*skipped: needs --window W", out, re.M)
    code, out = run("layout", SMALL, "--no-bound", "--window", "8")
    assert "online (W=8)" in out
    reqs, toks = _read(SMALL)
    with pytest.raises(InstanceError, match="needs a window"):
        order_contexts(reqs, toks, method="online")
    with pytest.raises(InstanceError, match="needs a window"):
        method_orders(sparse_from_lists(reqs, toks), "online")


def test_method_all_never_writes_an_unwindowed_online_layout(tmp_path):
    chunks, tokens = retrieval_trace(120, seed=3)
    path = tmp_path / "t.jsonl"
    write_jsonl(str(path), chunks, tokens)
    out = tmp_path / "o.jsonl"
    code, text = run("layout", str(path), "--no-bound", "--json", "-o", str(out))
    assert code == 0 and not json.loads(text)["written"].startswith("online")

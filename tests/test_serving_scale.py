"""Serving at scale (issue 28, point 6): the fast paths give the outputs of the slow ones.

Each fast path is checked against the code it replaced, kept as a slow twin: the dense
greedy (:func:`mptsearch.heuristics.greedy.greedy`), the Python LRU caches
(``tests/naive.py``), the line-by-line ``json`` reader and writer."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mptsearch.heuristics.greedy import greedy
from mptsearch.serving.cache import SCHEDULES, simulate
from mptsearch.serving.layout import method_orders
from mptsearch.serving.sparse import Layout, sparse_from_lists
from mptsearch.serving.sparse_greedy import sparse_greedy
from mptsearch.serving.synthetic import retrieval_trace, write_jsonl

from .naive import naive_simulate
from .strategies import instances


def random_rows(rng, m, n, wmax):
    rows = [[f"c{x}" for x in rng.choice(n, int(rng.integers(1, n + 1)), replace=False)] for _ in range(m)]
    return rows, {f"c{x}": int(rng.integers(1, wmax + 1)) for x in range(n)}


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.integers(1, 12), st.sampled_from([1, 3, 1000]))
def test_sparse_greedy_gives_the_dense_greedys_orders(seed, m, n, wmax):
    # ties (unit or few weights) are where a different tie rule would show
    rows, tok = random_rows(np.random.default_rng(seed), m, n, wmax)
    tr = sparse_from_lists(rows, tok)
    dense = greedy(tr.to_instance()).layout
    assert sparse_greedy(tr).tolist() == [x for s in dense for x in s]


def test_sparse_greedy_on_a_retrieval_trace_and_per_line():
    ch, tok = retrieval_trace(1500, seed=3)
    tr = sparse_from_lists(ch, tok)
    dense = greedy(tr.to_instance()).layout
    lay, _ = method_orders(tr, "greedy")
    assert lay.rows() == [tuple(dense[r]) for r in tr.line_request.tolist()]


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 25), st.integers(1, 7), st.sampled_from(SCHEDULES),
       st.sampled_from([1, 1, 2, 4, 16]), st.integers(1, 5), st.sampled_from([None, 0, 2]), st.integers(0, 4))
def test_compiled_simulation_serves_as_the_python_caches_do(seed, m, n, schedule, B, W, fcfs, capkind):
    # repeated lines, prefixes of other lines, capacities below, at and above the largest request
    rng = np.random.default_rng(seed)
    seqs = [tuple(int(x) for x in rng.choice(n, int(rng.integers(1, n + 1)), replace=False)) for _ in range(m)]
    w = rng.integers(1, 30, size=n)
    L = max(int(w[list(s)].sum()) for s in seqs)
    cap = [None, 0, L, 2 * L, int(rng.integers(0, 3 * L + 1))][capkind]
    if schedule == "dfs-weight":
        B = 1
    r = simulate(w, seqs, cap, schedule, W, block_size=B, lpm_fcfs_above=fcfs)
    assert (r.prefill, r.order) == naive_simulate(w, seqs, cap, schedule, W, block_size=B, lpm_fcfs_above=fcfs)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_compiled_simulation_on_a_retrieval_trace(schedule):
    # 200 requests: a capacity of 3 largest requests still evicts (the arrival schedule pays 4%
    # over the unbounded cache), 6 full windows of 32 go FCFS and the last one (8) by LPM
    ch, tok = retrieval_trace(200, seed=1)
    tr = sparse_from_lists(ch, tok)
    lay = Layout(tr.indptr, tr.chunks)
    seqs = lay.rows()
    L = max(int(tr.weights[list(s)].sum()) for s in seqs)
    for B in ((1,) if schedule == "dfs-weight" else (1, 16)):
        r = simulate(tr.weights, lay, 3 * L, schedule, 32, block_size=B, lpm_fcfs_above=20)
        assert (r.prefill, r.order) == naive_simulate(tr.weights, seqs, 3 * L, schedule, 32, block_size=B,
                                                      lpm_fcfs_above=20)


GOOD = ['{"id": "a", "chunks": ["x", "y"], "tokens": [3, 4]}', '{"id": "b", "chunks": ["y", "z"], "tokens": [4, 5]}']
ODD = {  # traces the fast reader must hand to the slow one, or read exactly as it does
    "plain": GOOD,
    "no ids": ['{"chunks": ["x"], "tokens": [1]}', '{"chunks": ["x", "w"], "tokens": [1, 2]}'],
    "int labels": ['{"chunks": [1, 2], "tokens": [3, 4]}', '{"chunks": [2], "tokens": [4]}'],
    "int label then a bool": ['{"chunks": [1, 2], "tokens": [3, 4]}', '{"chunks": [true], "tokens": [3]}'],
    "int label then a float": ['{"chunks": [1, 2], "tokens": [3, 4]}', '{"chunks": [1.0], "tokens": [3]}'],
    "mixed kinds": ['{"chunks": [1, 2], "tokens": [3, 4]}', '{"chunks": ["1"], "tokens": [3]}'],
    "mixed in a line": ['{"chunks": [1, "2"], "tokens": [3, 4]}'],
    "unicode": ['{"id": "ü", "chunks": ["é\\"x", "b\\\\", "\\u2028c"], "tokens": [1, 2, 3]}'],
    "lone surrogate": ['{"chunks": ["\\ud800"], "tokens": [1]}'],
    "blank line": [GOOD[0], "", GOOD[1]],
    "spaces line": [GOOD[0], "   ", GOOD[1]],
    "blank first": ["", GOOD[0]],
    "crlf": [g + "\r" for g in GOOD],
    "lone cr": ['{"chunks": ["x"],\r "tokens": [1]}'],
    "lone cr last": [GOOD[0], GOOD[1] + "\r"],
    "NaN token": ['{"chunks": ["x"], "tokens": [NaN]}'],
    "float token": ['{"chunks": ["x"], "tokens": [1.0]}'],
    "bool token": ['{"chunks": ["x"], "tokens": [true]}'],
    "zero token": ['{"chunks": ["x"], "tokens": [0]}'],
    "huge token": ['{"chunks": ["x"], "tokens": [100000000000000000000000]}'],
    "int64 token": ['{"chunks": ["x"], "tokens": [9223372036854775807]}'],
    "2^32 token": ['{"chunks": ["x"], "tokens": [4294967296]}'],
    "2^32 + 1 token": ['{"chunks": ["x"], "tokens": [4294967297]}'],
    "float id": ['{"id": 2.5, "chunks": ["x"], "tokens": [1]}'],
    "huge negative id": ['{"id": -9223372036854775809, "chunks": ["x"], "tokens": [1]}'],
    "list id": ['{"id": [1, "a"], "chunks": ["x"], "tokens": [1]}'],
    "repeated id": [GOOD[0], GOOD[0]],
    "repeated chunk": ['{"chunks": ["x", "x"], "tokens": [1, 1]}'],
    "token mismatch": ['{"chunks": ["x"], "tokens": [1]}', '{"chunks": ["x"], "tokens": [2]}'],
    "chunks null": ['{"chunks": null, "tokens": [1]}'],
    "no tokens": ['{"chunks": ["x"]}'],
    "lengths differ": ['{"chunks": ["x", "y"], "tokens": [1]}'],
    "empty chunks": ['{"chunks": [], "tokens": []}'],
    "array line": ['["x"]'],
    "malformed": [GOOD[0], '{"chunks": ["x"], "tokens": [1]'],
    "deep": ['{"chunks": ' + "[" * 3000 + "]" * 3000 + ', "tokens": [1]}'],
    "duplicate key": ['{"chunks": ["x"], "chunks": ["y"], "tokens": [1]}'],
}


def _outcome(read):
    try:
        tr = read()
    except Exception as exc:  # noqa: BLE001 - the error is the outcome compared
        return type(exc).__name__, str(exc)
    return (tr.ids, tr.labels, tr.weights.tolist(), tr.indptr.tolist(), tr.chunks.tolist(),
            tr.req_indptr.tolist(), tr.req_chunks.tolist(), tr.line_request.tolist())


@pytest.mark.parametrize("case", sorted(ODD))
def test_fast_reader_reads_as_the_line_parser_does(case, tmp_path, monkeypatch):
    from mptsearch.serving import fastread
    from mptsearch.serving.sparse import parse_sparse, read_sparse

    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(ODD[case]) + "\n", encoding="utf-8")
    for batch in (8 << 20, 40):  # one batch, and a batch every line or two
        monkeypatch.setattr(fastread, "BATCH_BYTES", batch)
        with open(path, encoding="utf-8") as fh:
            slow = _outcome(lambda: parse_sparse(fh, where=str(path)))
        assert _outcome(lambda: read_sparse(str(path))) == slow


def test_fast_reader_takes_the_plain_traces_itself(tmp_path):
    from mptsearch.serving.fastread import _read_orjson, _read_scan, read_fast

    path = tmp_path / "t.jsonl"
    ch, tok = retrieval_trace(300, seed=2)
    write_jsonl(str(path), ch, tok)
    assert _read_scan(str(path), 2**32) is not None and _read_orjson(str(path), 2**32) is not None
    path.write_text("\n".join(ODD["blank line"]) + "\n")
    assert _read_scan(str(path), 2**32) is not None and _read_orjson(str(path), 2**32) is None
    path.write_text("\n".join(ODD["unicode"]) + "\n")  # escapes: the second reader's
    assert _read_scan(str(path), 2**32) is None and _read_orjson(str(path), 2**32) is not None
    path.write_bytes(b'{"chunks": ["\xff"], "tokens": [1]}\n')
    assert read_fast(str(path), 2**32) is None


@pytest.mark.parametrize("ids", [None, ["ü", [1, "a"], 2.5], ["a", "b", "c"], [10, 0, 7]])
def test_layout_writer_writes_what_json_dumps_wrote(ids):
    import io

    from mptsearch.serving.fastwrite import write_layout
    from mptsearch.serving.layout import serving_rank

    from .naive import naive_write_layout

    tr = sparse_from_lists([["é\"x", "b\\", "\u2028c"], ["b\\", "é\"x"], ["\x01"]], ids=ids)
    for method in ("production", "greedy"):
        lay, _ = method_orders(tr, method)
        fast, slow = io.BytesIO(), io.StringIO()
        write_layout(fast, tr, lay, serving_rank(lay))
        naive_write_layout(slow, tr, lay)
        assert fast.getvalue().decode("utf-8") == slow.getvalue()


def test_a_label_that_is_not_utf8_is_written_escaped_and_reads_back(tmp_path):
    """A trace may spell a lone surrogate (valid JSON, not UTF-8): ``layout -o`` wrote it with
    a UnicodeEncodeError traceback; now it writes JSON's ASCII escape."""
    from mptsearch.cli import main
    from mptsearch.serving.layout import read_layout
    from mptsearch.serving.sparse import read_sparse

    path, out = tmp_path / "t.jsonl", tmp_path / "lay.jsonl"
    path.write_text('{"id": "\\udc80", "chunks": ["\\ud800", "plain"], "tokens": [1, 2]}\n'
                    '{"id": "b", "chunks": ["plain"], "tokens": [2]}\n', encoding="utf-8")
    assert main(["layout", str(path), "--method", "agglomerative", "--no-bound", "-q", "-o", str(out)]) == 0
    assert '"\\ud800"' in out.read_text(encoding="utf-8")
    tr = read_sparse(str(path))
    lay = read_layout(tr, str(out))
    assert read_sparse(str(out)).ids == tr.ids == ["\udc80", "b"]
    assert [tr.labels[x] for x in lay.seq[:2]] in (["\ud800", "plain"], ["plain", "\ud800"])


def test_layout_out_file_matches_the_old_writer_on_a_retrieval_trace(tmp_path, monkeypatch):
    import io

    from mptsearch.cli import main
    from mptsearch.serving import fastwrite
    from mptsearch.serving.sparse import read_sparse

    from .naive import naive_write_layout

    path, out = tmp_path / "t.jsonl", tmp_path / "lay.jsonl"
    ch, tok = retrieval_trace(700, seed=4)
    write_jsonl(str(path), ch, tok)
    monkeypatch.setattr(fastwrite, "BUFFER_BYTES", 64)  # lines longer than the buffer: it grows; several fills
    assert main(["layout", str(path), "--method", "agglomerative", "--no-bound", "-q", "-o", str(out)]) == 0
    tr = read_sparse(str(path))
    lay, _ = method_orders(tr, "agglomerative")
    slow = io.StringIO()
    naive_write_layout(slow, tr, lay)
    assert out.read_text(encoding="utf-8") == slow.getvalue()


@settings(max_examples=40, deadline=None)
@given(instances(max_n=8, max_m=12))
def test_solves_greedy_is_the_dense_greedy(inst):
    from mptsearch.solve import solve

    s = solve(inst, methods=["greedy"])
    g = greedy(inst)
    assert s.values["greedy"] == g.cost and s.layout == g.layout


def test_solve_skips_the_quadratic_methods_past_max_dense_m(capsys):
    import json

    from mptsearch.cli import main

    inst = "012 013 023 123 014 124"
    assert main(["solve", inst, "--max-dense-m", "5", "--json", "-q"]) == 0
    doc = json.loads(capsys.readouterr().out)
    for name in ("agglomerative", "lower_bound"):
        assert doc[name] is None and "exceeds --max-dense-m 5" in doc["skipped"][name]
    assert doc["greedy"] is not None and doc["opt_free"] is not None
    assert main(["solve", inst, "--max-dense-m", "6", "--json", "-q"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["agglomerative"] is not None and doc["lower_bound"] is not None


def test_layout_and_simulate_show_their_steps_on_a_terminal_bar(monkeypatch, capsys, tmp_path):
    import os

    from mptsearch.cli import _common, main

    shown, made = [], []

    class Bar:
        def __init__(self, **kw):
            self.kw, self.n, self.seen = kw, 0, []
            made.append(self)

        def update(self, k):
            self.n += k
            self.seen.append(self.n)

        def set_postfix_str(self, text, refresh=True):
            shown.append(text)

        def refresh(self):
            pass

        def close(self):
            shown.append(("closed", self.kw["desc"], self.n))

    monkeypatch.setattr(_common, "progress_bar", lambda quiet, **k: None if quiet else Bar(**k))
    out = str(tmp_path / "lay.jsonl")
    trace = "tests/data/serving_small.jsonl"
    size = os.path.getsize(trace)
    assert main(["layout", trace, "--window", "8", "-o", out]) == 0
    steps, read = made
    assert steps.kw["total"] == 10 and steps.kw["delay"] > 0
    # the read step's own bar counts the trace's bytes
    assert read.kw["total"] == size and read.kw["unit"] == "B" and read.kw["delay"] > 0 and read.seen[-1] == size
    assert shown == ["read", ("closed", "read", size), "bound", "production", "popularity", "global", "greedy",
                     "agglomerative", "peer", "online", "write", ("closed", "layout", 9)]
    shown.clear()
    made.clear()
    assert main(["simulate", trace, "--layout", out, "--capacity", "2x"]) == 0
    assert made[0].kw["total"] == 3 and made[1].kw["total"] == size
    assert shown == ["read", ("closed", "read", size), "read layout", "serve", ("closed", "simulate", 2)]
    made.clear()
    assert main(["layout", trace, "--method", "production", "-q"]) == 0
    assert made == []  # -q: no bar at all (progress_bar gives None off a terminal too)


@pytest.mark.parametrize("W, pin", [(1, 0), (3, 0), (7, 2), (10**6, 0), (10**6, 1)])
def test_online_orders_are_the_streaming_layouters(W, pin):
    from mptsearch.serving.online import online_layout, online_orders

    ch, tok = retrieval_trace(600, seed=5)
    tr = sparse_from_lists(ch, tok)
    rows = online_layout([tr.line(j).tolist() for j in range(tr.size)], tr.weights, W, pin)
    assert online_orders(tr.indptr, tr.chunks, tr.weights, W, pin).tolist() == [x for r in rows for x in r]


def test_token_counts_encode_as_json_dumps_does():
    import json

    from mptsearch.serving.fastwrite import _blob, _int_blob

    for vals in ([0, 9, 10, 99, 100, 2**62 + 12345], [7, -3, 12], []):
        a = np.array(vals, dtype=np.int64)
        fast, slow = _int_blob(a), _blob(vals)
        assert bytes(fast[0]) == bytes(slow[0]) == "".join(map(json.dumps, vals)).encode()
        assert fast[1].tolist() == slow[1].tolist()

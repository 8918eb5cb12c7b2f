"""The scale path of ``mptsearch table``: the fast CSV reader and writer (pyarrow) against the
csv module, token counts in one pass against one call per field, GGR's rule against a slow twin,
and the time budget (what is skipped, what always runs)."""

import csv
import io
import json
import random

import numpy as np
import pytest

from mptsearch.instance import InstanceError
from mptsearch.tables.io import read_table, write_table
from tests.naive import naive_ggr_orders

CELLS = ["a", "b c", "", " lead", "x,y", 'say "hi"', "two\nlines", "é ü", "1", "a"]


def random_csv(rng, rows, cols):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator=rng.choice(["\n", "\r\n"]))
    w.writerow([f"c{j}" for j in range(cols)])
    for _ in range(rows):
        w.writerow([rng.choice(CELLS) for _ in range(cols)])
    return buf.getvalue()


@pytest.mark.parametrize("seed", range(4))
def test_fast_csv_reader_and_writer_agree_with_the_csv_module(tmp_path, seed):
    pytest.importorskip("pyarrow")
    rng = random.Random(seed)
    src = tmp_path / "t.csv"
    src.write_bytes(random_csv(rng, rng.randint(1, 30), rng.randint(1, 5)).encode())
    fast, slow = read_table(str(src)), read_table(str(src), fast=False)
    assert fast.arrow is not None and slow.arrow is None
    assert fast.columns == slow.columns and fast.size == slow.size
    for c in range(len(slow.columns)):
        codes, uniq = fast.column_codes(c)
        assert [uniq[k] for k in codes] == slow.texts[c]
        assert fast.column_codes(c)[1] == slow.column_codes(c)[1]  # first-seen order both ways
    assert fast.rows == slow.rows
    serve = list(range(fast.size))
    rng.shuffle(serve)
    k = len(slow.columns)
    orders = np.array([rng.sample(range(k), k) for _ in range(fast.size)], dtype=np.int64)
    written = []
    for tab, name in ((fast, "f.csv"), (slow, "s.csv")):
        write_table(str(tmp_path / name), "csv", read_table(str(src), fast=tab is fast), serve, orders)
        with open(tmp_path / name, newline="") as fh:
            written.append(list(csv.reader(fh)))
    assert written[0] == written[1]
    assert [r[:k] for r in written[0][1:]] == [slow.rows[i] for i in serve]
    assert [json.loads(r[k + 1]) for r in written[0][1:]] == [[slow.columns[c] for c in orders[i]] for i in serve]


@pytest.mark.parametrize("text,word", [("a,b\n1,2\n3\n", "1 fields, the header has 2"),
                                       ("a,b\n1,2,3\n", "3 fields"), ("a,b\n", "no rows"),
                                       ("a,a\n1,2\n", "named twice")])
def test_fast_reader_falls_back_for_the_error(tmp_path, text, word):
    src = tmp_path / "t.csv"
    src.write_text(text)
    with pytest.raises(InstanceError, match=word):
        read_table(str(src))


def test_bad_utf8_and_malformed_jsonl(tmp_path):
    src = tmp_path / "t.csv"
    src.write_bytes(b"a,b\n1,\xff\n")
    with pytest.raises(InstanceError, match="not UTF-8 text"):
        read_table(str(src))
    j = tmp_path / "t.jsonl"
    j.write_text('{"a": 1}\n{"a": 2\n')
    with pytest.raises(InstanceError, match=r"line 2: malformed JSON: the line ends at column 7"):
        read_table(str(j))
    with pytest.raises(InstanceError, match="no such file"):
        read_table(str(tmp_path / "missing.csv"))


@pytest.mark.parametrize("template", ["{column}: {value}\n", "{value}", "<{column}>{value}</{column}>",
                                      "{value} {value}", "{value!r}", "{column}={value:>6}|"])
@pytest.mark.parametrize("name", ["whitespace", "chars"])
def test_count_fields_equals_one_count_per_field(template, name):
    from mptsearch.tables.tokenize import count_fields, get_counter

    values = ["", "a", "b c", " x ", "tab\there", "ü ß", "line\nbreak", "q'\"", "   "]
    one = get_counter(name)
    want = [one(template.format(column="col", value=v)) for v in values]
    assert count_fields(name, template, "col", values).tolist() == want


@pytest.mark.parametrize("seed", range(8))
def test_ggr_rule_equals_the_slow_twin(seed):
    from mptsearch.serving.sparse import sparse_from_lists
    from mptsearch.tables.layout import ggr_layout

    rng = random.Random(seed)
    m, n = rng.randint(2, 9), rng.randint(2, 7)
    rows = [rng.sample(range(n), rng.randint(1, n)) for _ in range(m)]
    tokens = {x: rng.randint(1, 4) for x in range(n)}
    tr = sparse_from_lists(rows, tokens)
    chars = np.array([rng.randint(1, 6) for _ in range(tr.n)], dtype=np.int64)
    for length in (None, chars):
        lay = ggr_layout(tr, length)
        size = tr.weights if length is None else length
        got = [lay.seq[lay.indptr[j]:lay.indptr[j + 1]].tolist() for j in range(tr.size)]
        # the rule runs on the distinct rows (a repeated row counts once in the hit counts)
        distinct = [tr.req_chunks[tr.req_indptr[i]:tr.req_indptr[i + 1]].tolist() for i in range(tr.m)]
        want = naive_ggr_orders(distinct, size.tolist())
        assert got == [want[i] for i in tr.line_request.tolist()]


def test_time_budget_skips_but_ggr_always_runs():
    from mptsearch.tables.io import Table
    from mptsearch.tables.layout import reorder_model
    from mptsearch.tables.model import table_model

    rng = random.Random(0)
    body = [[rng.choice(["p", "q r", "s"]) for _ in range(4)] for _ in range(40)]
    tab = Table(["a", "b", "c", "d"], body, [list(c) for c in zip(*body)])
    model = table_model(tab)
    full = reorder_model(model, bound=True, time_limit=5)
    assert all(r.prefill is not None for r in full.rows if r.method != "class-orders")
    tight = reorder_model(model, bound=True, budget=1e-9)
    ran = {r.method: r for r in tight.rows}
    assert ran["ggr"].prefill is not None
    assert all(ran[m].prefill is None and "skipped" in ran[m].note for m in ("agglomerative", "greedy", "popularity"))
    assert tight.bound_how.startswith("trivial") and "skipped" in tight.bound_note
    assert tight.lower_bound <= full.lower_bound <= full.prefill <= tight.prefill
    assert tight.prefill == ran["ggr"].prefill

"""The trace reader's fast paths (issue 28, point 6) against the line-by-line parser.

:func:`mptsearch.serving.sparse.read_sparse` tries a compiled byte-level pass, then orjson
batches, then the line parser (:func:`~mptsearch.serving.sparse.parse_sparse`, the slow twin
that names the offending line). Whatever path a file takes, the trace (or the one-line error)
must be the parser's. Also the kernels that replaced sorts: the label order, the lexicographic
row order and the duplicate grouping, each against its obvious twin."""

import json
import random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mptsearch.serving import fastread
from mptsearch.serving.sparse import parse_sparse, read_sparse

from .test_serving_scale import _outcome

TRICKY = {
    "raw unicode": ['{"id": "ü", "chunks": ["é", "中文", "x"], "tokens": [1, 2, 3]}',
                    '{"id": "ß", "chunks": ["中文", "😀"], "tokens": [2, 9]}'],
    "escaped equals raw": ['{"chunks": ["é"], "tokens": [1]}', '{"chunks": ["\\u00e9", "a"], "tokens": [1, 2]}'],
    "escaped quote": ['{"chunks": ["a\\"b", "c"], "tokens": [1, 2]}'],
    "escaped token mismatch": ['{"chunks": ["é"], "tokens": [1]}', '{"chunks": ["\\u00e9"], "tokens": [2]}'],
    "shared labels": ['{"chunks": ["a", "b"], "tokens": [1, 2]}', '{"chunks": ["b", "a", "c"], "tokens": [2, 1, 3]}',
                      '{"chunks": ["a", "b"], "tokens": [1, 2]}'],
    "long labels": ['{"chunks": ["' + "p" * 40 + 'a", "' + "p" * 40 + '", "' + "p" * 41 + '"], "tokens": [1, 2, 3]}',
                    '{"chunks": ["' + "p" * 41 + '", "' + "p" * 40 + 'a"], "tokens": [3, 1]}'],
    "labels sharing 16 bytes": ['{"chunks": ["abcdefghijklmnop", "abcdefghijklmnopq", "abcdefghijklmnopr"], '
                                '"tokens": [1, 2, 3]}', '{"chunks": ["abcdefghijklmnopq"], "tokens": [2]}'],
    "empty label": ['{"chunks": ["", "a"], "tokens": [1, 2]}'],
    "int labels -0": ['{"chunks": [0, -0], "tokens": [1, 1]}'],
    "int labels negative": ['{"chunks": [-3, 5, 0], "tokens": [1, 2, 3]}', '{"chunks": [5], "tokens": [2]}'],
    "int label 19 digits": ['{"chunks": [1234567890123456789], "tokens": [1]}'],
    "int label exponent": ['{"chunks": [1e2], "tokens": [1]}'],
    "extra keys": ['{"id": "a", "query": "what \\"is\\" \\u00e9\\n", "n": -1.5e3, "ok": true, "no": false, '
                   '"chunks": ["x"], "tokens": [1], "z": null}'],
    "extra key nested": ['{"meta": {"a": [1]}, "chunks": ["x"], "tokens": [1]}'],
    "extra key bad escape": ['{"q": "\\x", "chunks": ["x"], "tokens": [1]}'],
    "extra key NaN": ['{"q": NaN, "chunks": ["x"], "tokens": [1]}'],
    "keys reordered": ['{"tokens": [1, 2], "id": 7, "chunks": ["x", "y"]}'],
    "no spaces and tabs": ['{"id":"a","chunks":["x","y"],"tokens":[1,2]}', '\t{ "chunks" :\t[ "y" ] , "tokens" : [2] }\t'],
    "leading zero token": ['{"chunks": ["x"], "tokens": [01]}'],
    "negative token": ['{"chunks": ["x"], "tokens": [-1]}'],
    "exponent token": ['{"chunks": ["x"], "tokens": [1e2]}'],
    "minus zero token": ['{"chunks": ["x"], "tokens": [-0]}'],
    "raw tab in a label": ['{"chunks": ["a\tb"], "tokens": [1]}'],
    "NUL escape": ['{"chunks": ["a\\u0000"], "tokens": [1]}'],
    "form feed line": ['{"chunks": ["x"], "tokens": [1]}', "\x0c", '{"chunks": ["y"], "tokens": [1]}'],
    "BOM": ['\ufeff{"chunks": ["x"], "tokens": [1]}'],
    "ids mixed": ['{"id": "a", "chunks": ["x"], "tokens": [1]}', '{"id": 5, "chunks": ["x"], "tokens": [1]}',
                  '{"chunks": ["x"], "tokens": [1]}', '{"id": "5", "chunks": ["x"], "tokens": [1]}'],
    "id equals a default": ['{"id": 2, "chunks": ["x"], "tokens": [1]}', '{"chunks": ["x"], "tokens": [1]}'],
    "id -0 and 0": ['{"id": -0, "chunks": ["x"], "tokens": [1]}', '{"id": 0, "chunks": ["x"], "tokens": [1]}'],
    "id null": ['{"id": null, "chunks": ["x"], "tokens": [1]}'],
    "id true": ['{"id": true, "chunks": ["x"], "tokens": [1]}'],
    "id 19 digits": ['{"id": 1234567890123456789, "chunks": ["x"], "tokens": [1]}'],
    "id twice": ['{"id": 1, "id": 2, "chunks": ["x"], "tokens": [1]}'],
    "tokens twice": ['{"chunks": ["x"], "tokens": [1], "tokens": [2]}'],
    "trailing comma": ['{"chunks": ["x"], "tokens": [1],}'],
    "trailing comma in a list": ['{"chunks": ["x",], "tokens": [1]}'],
    "chunks a string": ['{"chunks": "x", "tokens": [1]}'],
    "tokens null": ['{"chunks": ["x"], "tokens": null}'],
    "no chunks": ['{"tokens": [1]}'],
    "empty object": ["{}"],
    "two objects": ['{"chunks": ["x"], "tokens": [1]} {"chunks": ["y"], "tokens": [1]}'],
    "text after": ['{"chunks": ["x"], "tokens": [1]} x'],
    "CR then spaces": ['{"chunks": ["x"], "tokens": [1]}\r  ', '{"chunks": ["y"], "tokens": [1]}'],
    "blank CRLF line": ['{"chunks": ["x"], "tokens": [1]}\r', "\r", "  \r", '{"chunks": ["y"], "tokens": [1]}\r'],
    "repeat in a long line": ['{"chunks": [' + ", ".join(f'"c{i}"' for i in list(range(40)) + [3]) + '], "tokens": ['
                              + ", ".join(["1"] * 41) + "]}"],
    "long line": ['{"chunks": [' + ", ".join(f'"c{i}"' for i in range(40)) + '], "tokens": [' + ", ".join(["1"] * 40)
                  + "]}"],
}


def _same_as_the_parser(path):
    with open(path, encoding="utf-8", newline=None) as fh:
        slow = _outcome(lambda: parse_sparse(fh, where=str(path)))
    assert _outcome(lambda: read_sparse(str(path))) == slow
    return slow


@pytest.mark.parametrize("case", sorted(TRICKY))
def test_tricky_traces_read_as_the_line_parser_reads_them(case, tmp_path, monkeypatch):
    path = tmp_path / "t.jsonl"
    for end in ("\n", ""):  # with and without a last newline
        path.write_bytes(("\n".join(TRICKY[case]) + end).encode("utf-8"))
        for batch in (8 << 20, 40):
            monkeypatch.setattr(fastread, "BATCH_BYTES", batch)
            _same_as_the_parser(path)


def test_the_byte_reader_takes_the_plain_forms_itself(tmp_path):
    path = tmp_path / "t.jsonl"
    for case in ("raw unicode", "shared labels", "long labels", "labels sharing 16 bytes", "empty label",
                 "int labels negative", "extra keys", "keys reordered", "no spaces and tabs", "ids mixed",
                 "blank CRLF line", "long line"):
        path.write_bytes(("\n".join(TRICKY[case]) + "\n").encode("utf-8"))
        assert fastread._read_scan(str(path), 2**32) is not None, case
    for case in ("escaped equals raw", "extra key nested", "repeat in a long line", "id null", "int labels -0"):
        path.write_bytes(("\n".join(TRICKY[case]) + "\n").encode("utf-8"))
        assert fastread._read_scan(str(path), 2**32) is None, case


def test_a_label_table_that_grows_inside_a_line(tmp_path, monkeypatch):
    # 70,000 new labels in one line pass the first table's 32,768 rows mid-line: the line is read again
    from mptsearch.serving import _read_kernels

    path = tmp_path / "t.jsonl"
    n = 70_000
    lines = [json.dumps({"chunks": [f"c{i}" for i in range(n)], "tokens": [1 + i % 7 for i in range(n)]}),
             json.dumps({"chunks": [f"c{i}" for i in range(n - 1, -1, -3)], "tokens": [1 + i % 7 for i in range(n - 1, -1, -3)]})]
    path.write_text("\n".join(lines) + "\n")
    assert fastread._read_scan(str(path), 2**32) is not None
    tr = _same_as_the_parser(path)
    assert len(tr[1]) == n
    assert len(_read_kernels.new_table()[1]) < n


def test_labels_and_ids_outlive_the_batch_they_were_read_in(tmp_path, monkeypatch):
    """The read buffer is reused from batch to batch; labels and string ids are copied to an
    arena after each. Long labels (compared byte by byte past 16 bytes) met again in later
    batches, and ids, must read as the line parser reads them, with batches of a line or two."""
    rng = random.Random(7)
    words = ["p" * 16 + s for s in ("", "a", "ab", "b", "é" * 5)] + ["short", "x" * 40]
    lines = []
    for j in range(60):
        chunks = rng.sample(words, rng.randint(1, 4))
        lines.append(json.dumps({"id": f"request-{j}-" + "q" * rng.randint(0, 30), "chunks": chunks,
                                 "tokens": [len(c) for c in chunks]}, ensure_ascii=False))
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for batch in (64, 300, 8 << 20):
        monkeypatch.setattr(fastread, "BATCH_BYTES", batch)
        assert fastread._read_scan(str(path), 2**32) is not None
        _same_as_the_parser(path)


@st.composite
def formatted_traces(draw):
    """Random traces in the many spellings JSON allows: key order, spaces, escapes, unicode,
    id kinds, blank lines, CRLF; sometimes a defect (a repeated chunk, a token mismatch)."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    alphabet = ["a", "b", "é", "中", "😀", '"', "\\", "\n", "/", "p" * 17]
    ints = rng.random() < 0.25
    pool = [rng.randrange(-5, 40) for _ in range(12)] if ints else \
        ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 4))) for _ in range(12)]
    tok = {}
    lines = []
    for j in range(rng.randrange(1, 9)):
        cs = rng.sample(pool, rng.randrange(1, 6))
        if rng.random() < 0.05:
            cs.append(cs[0])
        ts = [tok.setdefault(c, rng.randrange(1, 50)) for c in cs]
        if rng.random() < 0.05:
            ts[0] += 1
        rec = {"chunks": cs, "tokens": ts}
        r = rng.random()
        if r < 0.4:
            rec["id"] = f"r{j}" if r < 0.3 else j * 10
        if rng.random() < 0.2:
            rec["note"] = rng.choice(["x", 1.5, None, True, "é\\"])
        items = list(rec.items())
        rng.shuffle(items)
        sep = rng.choice([(", ", ": "), (",", ":"), (" ,\t", " : ")])
        text = "{" + sep[0].join(json.dumps(k) + sep[1] + json.dumps(v, ensure_ascii=rng.random() < 0.3,
                                                                      separators=(sep[0], sep[1]))
                                 for k, v in items) + "}"
        lines.append(text)
        if rng.random() < 0.1:
            lines.append(rng.choice(["", "  ", "\t"]))
    eol = rng.choice(["\n", "\r\n"])
    return (eol.join(lines) + rng.choice([eol, ""])).encode("utf-8")


@settings(max_examples=60, deadline=None)
@given(formatted_traces(), st.sampled_from([8 << 20, 64]))
def test_random_spellings_read_as_the_line_parser_reads_them(data, batch):
    import tempfile
    from pathlib import Path

    old = fastread.BATCH_BYTES
    fastread.BATCH_BYTES = batch
    try:
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "t.jsonl"
            path.write_bytes(data)
            _same_as_the_parser(path)
    finally:
        fastread.BATCH_BYTES = old


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(min_codepoint=1, blacklist_categories=("Cs",)), max_size=24),
                unique=True, min_size=1, max_size=60),
       st.sampled_from(["", "wikipedia:", "p" * 16]))
def test_label_order_is_sorted_order(labels, prefix):
    from mptsearch.serving._read_kernels import label_order

    labels = [prefix + s for s in labels]
    enc = [s.encode("utf-8") for s in labels]
    buf = np.frombuffer(b'"'.join(enc) + b'"', dtype=np.uint8)
    starts = np.cumsum([0] + [len(e) + 1 for e in enc[:-1]]).astype(np.int64)
    lens = np.array([len(e) for e in enc], dtype=np.int64)
    assert [labels[i] for i in label_order(buf, starts, lens)] == sorted(labels)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["", "a", "ab", "r1", "r10", "é", "p" * 16, "p" * 17, "p" * 16 + "q", "x" * 40]),
                max_size=30), st.booleans())
def test_distinct_is_a_set_check(ids, spaced):
    """The byte reader checks string ids distinct on their bytes (``distinct``) instead of a
    set of 1M strings; a repeat then goes to check_unique_ids for its message."""
    from mptsearch.serving._read_kernels import distinct

    enc = [s.encode("utf-8") for s in ids]
    gap = b'", "' if spaced else b""
    buf = np.frombuffer(gap.join(enc) + b"\n" * 17, dtype=np.uint8).copy()
    starts = np.cumsum([0] + [len(e) + len(gap) for e in enc[:-1]]).astype(np.int64)
    lens = np.array([len(e) for e in enc], dtype=np.int64)
    assert distinct(buf, starts[:len(enc)], lens) == (len(set(ids)) == len(ids))


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 200), st.integers(1, 5), st.booleans(), st.sampled_from([3, 22, 31]))
def test_lex_order_and_duplicate_groups_match_their_twins(seed, m, n, empty_rows, id_bits):
    from mptsearch.serving._sparse_kernels import duplicate_groups, lex_order

    rng = np.random.default_rng(seed)
    lens = rng.integers(0 if empty_rows else 1, 13, size=m)
    indptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(lens, out=indptr[1:])
    # n distinct ids below 2^id_bits (the largest always among them): 21, 3 or 2 ids per packed
    # key, so rows of up to 12 ids from a few values reach the keys past the first and runs
    # longer than 16
    pool = np.unique(np.append(rng.integers(0, 2**id_bits - 1, size=n), 2**id_bits - 2))
    seq = pool[rng.integers(0, len(pool), size=int(indptr[-1]))].astype(np.int32)
    rows = [tuple(seq[indptr[r]:indptr[r + 1]].tolist()) for r in range(m)]
    # Python's sort is stable and compares tuples as the trie's DFS does (a prefix first)
    assert lex_order(indptr, seq).tolist() == sorted(range(m), key=rows.__getitem__)
    first = {}
    assert duplicate_groups(indptr, seq).tolist() == [first.setdefault(row, len(first)) for row in rows]

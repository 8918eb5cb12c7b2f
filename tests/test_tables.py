"""``mptsearch table`` and :mod:`mptsearch.tables`: the written file holds every input row with
its fields, the figures printed are those an independent trie counter finds in the written file,
bounds hold against brute force, and bad input is one line with exit code 2."""

import csv
import io
import json
import random

import pytest

from mptsearch.cli import main
from tests.naive import naive_consecutive_hits, naive_table_opt, naive_table_prefill

TEMPLATE = "{column}: {value}\n"


def whitespace_tokens(text):
    return max(1, len(text.split()))


def random_table(rng, rows, cols, values=3, fd=False):
    names = [f"c{j}" for j in range(cols)]
    words = ["a", "b c", "d e f", "g", "h i"]
    body = [[rng.choice(words[:values]) for _ in names] for _ in range(rows)]
    if fd and cols >= 2:  # the last column a one-to-one image of c0 (not next to it when cols > 2)
        for r in body:
            r[-1] = "x " + r[0]
    return names, body


def write_csv(path, names, body):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(names)
        w.writerows(body)


def read_out(path):
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    return rows[0], rows[1:]


def prompt_fields(header, row, order):
    """The (text, tokens) of a written row's fields in its _field_order."""
    at = {c: i for i, c in enumerate(header)}
    fields = []
    for c in order:
        text = TEMPLATE.format(column=c, value=row[at[c]])
        fields.append((text, whitespace_tokens(text)))
    return fields


def run_table(tmp_path, names, body, *extra):
    src = tmp_path / "t.csv"
    out = tmp_path / "o.csv"
    write_csv(src, names, body)
    code = main(["table", str(src), "-o", str(out), "--json", "-q", "--closure-seconds", "5", *extra])
    return code, out


@pytest.mark.parametrize("seed", range(6))
def test_written_table_recounted(tmp_path, capsys, seed):
    """Rows, fields and every printed figure against the written file (slow twins of tests/naive.py)."""
    rng = random.Random(seed)
    rows, cols = rng.randint(2, 4), rng.randint(2, 3)
    names, body = random_table(rng, rows, cols, values=rng.randint(1, 4), fd=seed % 2 == 1)
    first = ["--first", names[0]] if seed % 3 == 2 else []
    last = ["--last", names[-1]] if seed % 3 == 1 else []
    code, out = run_table(tmp_path, names, body, *first, *last)
    doc = json.loads(capsys.readouterr().out)
    assert code == 0
    header, written = read_out(out)
    assert header == names + ["_serve_rank", "_field_order"]
    # every input row appears once, with its own fields (multisets: rows may repeat)
    assert sorted(r[:cols] for r in written) == sorted(body)
    assert [int(r[cols]) for r in written] == list(range(rows))
    prompts = []
    for r in written:
        order = json.loads(r[cols + 1])
        assert sorted(order) == sorted(names)
        if first:
            assert order[0] == names[0]
        if last:
            assert order[-1] == names[-1]
        prompts.append(prompt_fields(header, r, order))
    trie = naive_table_prefill(prompts)
    assert doc["prefill"] == trie
    no_cache = sum(t for p in prompts for _, t in p)
    assert doc["tokens_without_cache"] == no_cache
    tok, sq = naive_consecutive_hits(prompts, lambda f: len(f[0].split(": ", 1)[1][:-1]))
    assert (doc["phc_tokens"], doc["phc_squared"]) == (tok, sq)
    assert tok == no_cache - trie  # served in the written (DFS) order: Theorem 7
    given = [prompt_fields(names, r, names) for r in body]
    if first or last:  # the given order puts fixed columns where they belong
        mid = [c for c in names if c not in (first + last)[1::2]]
        order = (first[1:] if first else []) + mid + (last[1:] if last else [])
        given = [prompt_fields(names, r, order) for r in body]
    g_tok, _ = naive_consecutive_hits(given, lambda f: 0)
    assert doc["given_prefill"] == no_cache - g_tok
    assert doc["saved"] == doc["given_prefill"] - trie
    # the bound is below the brute-force optimum, which is below what was written
    opt = naive_table_opt(given, len(first) // 2, len(last) // 2)
    assert doc["lower_bound"] <= opt <= trie
    if doc["optimal"]:
        assert trie == opt


def test_jsonl_round_trip_and_key_order(tmp_path, capsys):
    src = tmp_path / "t.jsonl"
    rows = [{"id": i, "city": c, "country": "France", "q": q}
            for i, (c, q) in enumerate([("Paris", "big?"), ("Lyon", "big?"), ("Paris", "old?")])]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "o.jsonl"
    assert main(["table", str(src), "-o", str(out), "--exclude", "id", "--last", "q", "-q"]) == 0
    capsys.readouterr()
    got = [json.loads(line) for line in out.read_text().splitlines()]
    assert [g["_serve_rank"] for g in got] == [0, 1, 2]
    assert sorted((g["id"], g["city"], g["q"]) for g in got) == sorted((r["id"], r["city"], r["q"]) for r in rows)
    for g in got:
        keys = list(g)
        assert keys[2] == "q" and keys[3] == "id"  # prompt order (q last), then the excluded column


def test_api_lists_and_frame():
    from mptsearch.tables import reorder_table

    rows = [["France", "Paris", "big?"], ["France", "Lyon", "big?"], ["France", "Paris", "old?"]]
    r = reorder_table(rows, columns=["country", "city", "q"], last=["q"])
    assert [o[-1] for o in r.orders] == ["q"] * 3
    assert sorted(r.serve) == [0, 1, 2] and len(r.prompts) == 3
    pd = pytest.importorskip("pandas")
    f = reorder_table(pd.DataFrame(rows, columns=["country", "city", "q"]), last=["q"])
    assert list(f.table["_serve_rank"]) == [0, 1, 2]
    assert f.prefill == r.prefill


def two_column_family(k):
    """Rows (a, h_i) and (b, h_i), i < k: the family of docs/tables.md on which GGR's PHC is a
    vanishing fraction of the optimum's. W = k tokens for h_i, w tokens for a and b."""
    import math

    W = k
    w = math.isqrt(k + 2) + 1
    assert (k - 1) * w * w > W * W
    body = []
    for i in range(k):
        h = " ".join(f"h{i}" for _ in range(W - 1))
        body.append([" ".join("a" for _ in range(w - 1)), h])
        body.append([" ".join("b" for _ in range(w - 1)), h])
    return ["A", "H"], body, W, w


@pytest.mark.parametrize("k", [5, 12, 40])
def test_ggr_rule_on_the_two_column_family(k):
    """GGR's rule takes a and b first and saves 2(k-1)w; agglomerative pairs the h_i and saves
    k W (the closed forms of docs/tables.md)."""
    from mptsearch.tables import reorder_table

    names, body, W, w = two_column_family(k)
    total = 2 * k * (W + w)
    ggr = reorder_table(body, columns=names, method="ggr", bound=False)
    agg = reorder_table(body, columns=names, method="agglomerative", bound=False)
    assert total - ggr.prefill == 2 * (k - 1) * w
    assert total - agg.prefill == k * W
    assert ggr.phc_squared == 2 * (k - 1) * (2 * w - 3) ** 2  # "a a ..." (w - 1 words) has 2w - 3 characters


def test_fd_detected_and_exact(tmp_path, capsys):
    names, body = ["x", "y", "z"], [["a", "1", "p"], ["b", "2", "p"], ["a", "1", "q"], ["c", "3", "q"]]
    code, _ = run_table(tmp_path, names, body)
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["fd_groups"] == [["x", "y"]]
    code, _ = run_table(tmp_path, names, body, "--fd", "none")
    assert json.loads(capsys.readouterr().out)["prefill"] == doc["prefill"]
    code, _ = run_table(tmp_path, names, body, "--fd", "x,z")
    assert code == 2 and "one-to-one" in capsys.readouterr().err


def one_line_error(err):
    err = err.removeprefix("compiling kernels: first run only\n")
    return err.count("\n") == 1 and err.startswith("mptsearch: error: ") and "Traceback" not in err


@pytest.mark.parametrize("text,extra,word", [
    ("a,b\n1,2\n3\n", [], "fields"),
    ("a,b\n1,2\n", ["--first", "zz"], "unknown column"),
    ("a,b\n", [], "no rows"),
    ("", [], "empty"),
    ("a,a\n1,2\n", [], "named twice"),
    ("a,b\n1,2\n", ["--first", "a", "--last", "a"], "named twice"),
    ("a,b\n1,2\n", ["--exclude", "a", "--exclude", "b"], "excluded"),
])
def test_bad_input_one_line_exit_2(tmp_path, capsys, text, extra, word):
    src = tmp_path / "t.csv"
    src.write_text(text)
    out = tmp_path / "o.csv"
    assert main(["table", str(src), "-o", str(out), *extra]) == 2
    err = capsys.readouterr().err
    assert one_line_error(err) and word in err
    assert not out.exists()


def test_bad_jsonl_rows(tmp_path, capsys):
    src = tmp_path / "t.jsonl"
    src.write_text('{"a": 1, "b": 2}\n{"a": 1}\n')
    assert main(["table", str(src)]) == 2
    err = capsys.readouterr().err
    assert one_line_error(err) and "lacks 'b'" in err


def test_docs_benchmark_table_is_the_benchmarks_output():
    """docs/tables.md's side-by-side table is the one benchmarks/bench_tables.py makes from its
    results file (rewritten by ``--docs``), not typed by hand."""
    import importlib.util
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("bench_tables", root / "benchmarks" / "bench_tables.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    text = (root / "docs" / "tables.md").read_text()
    block = text[text.index(bench.BEGIN) + len(bench.BEGIN):text.index(bench.END)]
    results = json.loads((root / "benchmarks" / "results" / "tables.json").read_text())
    assert block.strip() == bench.markdown(results).strip()

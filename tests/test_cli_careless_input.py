"""Careless input a new user tried (issue 28, point 4): each is one line on stderr and exit 2
(docs/cli.md), never a traceback; and ``global`` under ``--pin`` works (it raised a shape
mismatch): the bug, not only its message, is fixed."""

import json
import re

import pytest

from mptsearch import exitcodes
from mptsearch.cli import main

SMALL = "tests/data/serving_small.jsonl"


def one_error_line(err: str) -> bool:
    err = err.removeprefix("compiling kernels: first run only\n")
    return err.count("\n") == 1 and err.startswith("mptsearch: error: ") and "Traceback" not in err


@pytest.mark.parametrize("argv", [
    ["anneal", "-s", "-1"],
    ["crosscheck", "-s", "-1"],
    ["hardness", "--random", "5", "6", "-s", "-1"],
    ["enumerate", "-n", "5", "--estimate", "-s", "-1"],
    *[[*cmd, "-t", bad] for bad in ("nan", "inf", "-inf", "0", "x") for cmd in (
        ["anneal"], ["certify", "012 013"], ["verify", "012 013"], ["crosscheck"],
        ["hardness", "--random", "5", "6"], ["enumerate", "-n", "5"])],
    ["anneal", "--t-start", "nan"],
    ["simulate", SMALL, "--capacity", "infx"],
    ["family", "two-sunflowers", "--k", "100000"],
    ["family", "sunflowers", "--k", "1000", "--cores", "10"],
])
def test_one_line_and_exit_2(argv, capsys):
    assert main(argv) == exitcodes.BAD_INPUT
    assert one_error_line(capsys.readouterr().err)


def test_a_verdict_never_comes_from_a_nan_limit(capsys):
    """verify -t nan used to print thread tracebacks, a row "cpsat-glob <=-" and "verified"."""
    assert main(["verify", "0145 0236 1236 1245 1345 1456 2346 2356", "-t", "nan"]) == exitcodes.BAD_INPUT
    out, err = capsys.readouterr()
    assert out == "" and "verified" not in err and one_error_line(err)


@pytest.mark.parametrize("command", ["layout", "simulate"])
def test_a_token_count_past_int64_is_one_line(tmp_path, capsys, command):
    trace = tmp_path / "t.jsonl"
    trace.write_text('{"id": "a", "chunks": ["s", "x"], "tokens": [100000000000000000000000, 3]}\n'
                     '{"id": "b", "chunks": ["s", "y"], "tokens": [100000000000000000000000, 3]}\n')
    assert main([command, str(trace)]) == exitcodes.BAD_INPUT
    err = capsys.readouterr().err
    assert one_error_line(err) and "line 1" in err and "2^32" in err


def test_a_store_that_is_not_sqlite_is_refused_before_the_run(tmp_path, capsys):
    store = tmp_path / "notes.txt"
    store.write_text("my notes\n")
    assert main(["enumerate", "-n", "5", "-k", "2", "-m", "3", "-q", "--store", str(store)]) == exitcodes.BAD_INPUT
    err = capsys.readouterr().err
    assert one_error_line(err) and "not an enumeration store" in err
    assert store.read_text() == "my notes\n"


def test_a_store_in_a_missing_folder_is_refused_not_created(tmp_path, capsys):
    store = tmp_path / "no" / "such" / "s.sqlite"
    assert main(["enumerate", "-n", "5", "-k", "2", "-m", "3", "-q", "--store", str(store)]) == exitcodes.BAD_INPUT
    err = capsys.readouterr().err
    assert one_error_line(err) and "no such folder" in err
    assert list(tmp_path.iterdir()) == []


# ---- global under pinning --------------------------------------------------------------------

#: small components (at most 20 chunks each), so that `global` runs the exact DP on them
PINNED_TRACE = [["sys", "a", "b", "q1"], ["sys", "a", "c", "q2"], ["sys", "b", "c", "q3"],
                ["d", "e", "q4"], ["d", "f", "q5"], ["e", "f", "d", "q6"]]


def _free_parts_follow_one_order(orders, pin):
    pos = {}
    for o in orders:
        free = o[:len(o) - pin] if len(o) > pin else []
        for i, x in enumerate(free):
            for y in free[i + 1:]:
                if pos.get((y, x)):
                    return False
                pos[(x, y)] = True
    return True


@pytest.mark.parametrize("pin", [1, 2])
def test_order_contexts_global_with_pin(pin):
    from mptsearch import order_contexts

    r = order_contexts(PINNED_TRACE, tokens=1, method="global", pin=pin)
    for given, got in zip(PINNED_TRACE, r.orders):
        assert sorted(got) == sorted(given)
        assert got[len(got) - pin:] == given[:pin]  # the top-pin chunks last, in relevance order
    assert _free_parts_follow_one_order(r.orders, pin)
    assert re.search(r"exact OPT_glob on (\d+) of \1 components", r.note), r.note  # every one exact


@pytest.mark.parametrize("method", ["global", "all"])
def test_layout_global_and_all_with_pin(tmp_path, capsys, method):
    trace = tmp_path / "t.jsonl"
    trace.write_text("".join(json.dumps({"id": f"r{i}", "chunks": c, "tokens": [10] * len(c)}) + "\n"
                             for i, c in enumerate(PINNED_TRACE)))
    assert main(["layout", str(trace), "--method", method, "--pin", "1", "-q"]) == exitcodes.OK
    out = capsys.readouterr().out
    assert re.search(r"exact OPT_glob on (\d+) of \1 components; top-1 pinned last", out), out

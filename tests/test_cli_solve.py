"""`mptsearch solve`: output, JSON keys, and one-line errors with exit code 2."""

import json
import subprocess
import sys

import pytest

from mptsearch.cli import main


def run(args, capsys, stdin=None, monkeypatch=None):
    if stdin is not None:
        import io
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_json_has_the_documented_keys(capsys):
    code, out, err = run(["solve", "0145 0236 1236 1245 1345 1456 2346 2356", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    for key in ("n", "m", "opt_free", "opt_glob", "greedy", "agglomerative", "lower_bound",
                "production", "layout", "order"):
        assert key in data
    assert (data["opt_free"], data["opt_glob"]) == (14, 21)
    assert len(data["layout"]) == 8 and sorted(data["layout"][0]) == [0, 1, 4, 5]
    assert sorted(data["order"]) == list(range(7))


def test_solve_table_and_skip(capsys):
    code, out, _ = run(["solve", "012 013 023 123", "--skip", "opt_glob"], capsys)
    assert code == 0 and "opt_free" in out and "8" in out
    assert "opt_glob" not in out


def test_slow_methods_are_skipped_with_the_reason(capsys):
    # past --max-free-m the closure arborescence answers (and says so); OPT_glob is skipped
    code, out, _ = run(["solve", "01 12 23 34", "--max-free-m", "3", "--max-glob-n", "2", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["opt_free"] == 6 and data["opt_free_method"] == "closure"
    assert "exceeds --max-glob-n 2" in data["skipped"]["opt_glob"]
    assert data["layout_method"] == "opt_free"


def test_closure_out_of_time_gives_the_bracket_not_a_value(capsys):
    from mptsearch.families import random_instance

    # weighted: the closure program (with unit weights the prefix-set search solves it)
    inst = json.dumps(random_instance(n=8, m=50, k=4, weights=(1, 3), seed=2).to_json())
    code, out, _ = run(["solve", inst, "--max-free-m", "3", "--free-time-limit", "0.2", "--skip", "opt_glob",
                        "--json"], capsys)
    data = json.loads(out)
    low, up = data["opt_free_bounds"]
    assert code == 0 and data["opt_free"] is None and low < up
    assert f"{low} <= OPT_free <= {up}" in data["skipped"]["opt_free"]
    code, out, _ = run(["solve", "012 013 023 123"], capsys)
    assert "by subset DP" in out
    unit = json.dumps(random_instance(n=8, m=30, k=4, seed=2).to_json())
    code, out, _ = run(["solve", unit, "--skip", "opt_glob", "--json"], capsys)
    assert code == 0 and json.loads(out)["opt_free_method"] == "prefix_sets"


def test_stdin_and_file(capsys, monkeypatch, tmp_path):
    code, out, _ = run(["solve", "-", "--json"], capsys, stdin='{"requests": [[0,1],[1,2]], "weights": [1,5,1]}',
                       monkeypatch=monkeypatch)
    assert code == 0 and json.loads(out)["opt_free"] == 7
    p = tmp_path / "i.json"
    p.write_text('{"requests": [["a","b"],["b","c"]]}')
    code, out, _ = run(["solve", str(p), "--json"], capsys)
    assert code == 0 and json.loads(out)["layout"] == [["b", "a"], ["b", "c"]]


@pytest.mark.parametrize("arg", [
    '{"requests": [[0,1],[1,',
    '{"requests": [[0],[]]}',
    '{"requests": [[0,1]], "weights": [1]}',
    '{"requests": [[0,1]], "weights": [1, -2]}',
    '{"requests": [[0,1,1]]}',
    "missing/file.json",
])
def test_bad_input_exit_2_one_line(arg, capsys):
    code, out, err = run(["solve", arg], capsys)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("mptsearch: error: ")
    assert "Traceback" not in err


def test_duplicate_requests_note(capsys):
    code, out, err = run(["solve", "01 10 12", "--json"], capsys)
    assert code == 0 and "merged" in err and json.loads(out)["m"] == 2


def test_console_script_end_to_end():
    """The installed entry point: a real process, a traceback would show on stderr."""
    ok = subprocess.run([sys.executable, "-m", "mptsearch", "solve", "012 013 023 123", "--json"],
                        capture_output=True, text=True)
    assert ok.returncode == 0 and json.loads(ok.stdout)["opt_glob"] == 9
    bad = subprocess.run([sys.executable, "-m", "mptsearch", "solve", '{"requests": [[0,"a"]]}'],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.strip().count("\n") == 0 and "Traceback" not in bad.stderr
    opt = subprocess.run([sys.executable, "-m", "mptsearch", "solve", "--no-such-option"],
                         capture_output=True, text=True)
    assert opt.returncode == 2 and opt.stderr.strip().count("\n") == 0


def _tree_weights(text):
    import re
    return [int(w) for w in re.findall(r"  w=(\d+)", text)]


def test_tree_picture_sums_to_the_optimal_cost(capsys):
    code, out, _ = run(["solve", "0145 0236 1236 1245 1345 1456 2346 2356", "--tree"], capsys)
    assert code == 0
    picture = out[out.index("optimal prefix trie, cost 14"):]
    assert sum(_tree_weights(picture)) == 14
    assert sorted(picture.count(f"R{i}") for i in range(8)) == [1] * 8  # each request ends once


def test_tree_weights_and_dot(capsys, tmp_path):
    dot = tmp_path / "t.dot"
    src = '{"requests": [["a","b"],["b","c"],["a","b","c"]], "weights": {"a": 3, "b": 5, "c": 2}}'
    code, out, err = run(["solve", src, "--tree", "--dot", str(dot)], capsys)
    assert code == 0 and f"wrote {dot}" in err
    data_code, data_out, _ = run(["solve", src, "--json"], capsys)
    data = json.loads(data_out)
    assert sum(_tree_weights(out[out.index("prefix trie"):])) == data["opt_free"] == data["trie"]["cost"]
    text = dot.read_text()
    assert text.startswith('digraph "trie" {') and text.count(" -> ") == len(_tree_weights(out[out.index("prefix trie"):]))


def test_json_has_trie_and_hierarchy_with_intersections(capsys):
    code, out, _ = run(["solve", "0145 0236 1236 1245 1345 1456 2346 2356", "--json", "--skip", "opt_glob"], capsys)
    data = json.loads(out)
    h = data["hierarchy"]

    def walk(node):  # savings = sum of w(I(v)) over internal nodes; I(v) = intersection of leaves
        if "request" in node:
            return [set(node["I"])], 0
        sets, saved = [], node["weight"]
        for child in node["children"]:
            s, w = walk(child)
            sets += s
            saved += w
        assert set(node["I"]) == set.intersection(*sets) and node["weight"] == len(node["I"])
        return sets, saved

    leaves, savings = walk(h)
    assert len(leaves) == 8 and 32 - savings == data["opt_free"] == 14 == data["trie"]["cost"]


def test_out_writes_the_same_json(capsys, tmp_path):
    target = tmp_path / "r.json"
    code, out, err = run(["solve", "012 013 023 123", "--json", "-o", str(target)], capsys)
    assert code == 0 and json.loads(out)["opt_free"] == json.loads(target.read_text())["opt_free"] == 8
    assert err.removeprefix("compiling kernels: first run only\n") == ""  # the note on a cold cache


def test_quiet_silences_notes(capsys):
    code, out, err = run(["solve", "01 10 12", "-q"], capsys)  # -q silences the compile note too
    assert code == 0 and err == ""
    code, out, err = run(["solve", "01 10 12"], capsys)
    assert "merged" in err


def test_tree_needs_a_layout_method(capsys):
    code, out, err = run(["solve", "01 12", "--tree", "--skip", "opt_free", "--skip", "agglomerative",
                          "--skip", "greedy"], capsys)
    assert code == 2 and err.count("\n") == 1


def test_nothing_written_unasked(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["solve", "012 013 023 123", "--tree"]) == 0
    assert main(["solve", "012 013 023 123", "--json"]) == 0
    assert list(tmp_path.iterdir()) == []

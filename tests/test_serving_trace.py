"""The JSONL trace format: parsing, duplicate lines, errors naming the line, CLI exit codes."""

import json
import os

import pytest

from mptsearch.cli import main
from mptsearch.instance import InstanceError
from mptsearch.serving.trace import parse_trace, read_layout, read_trace, sequences_cost, write_trace
from mptsearch.trie import production_cost, trie_cost

DATA = os.path.join(os.path.dirname(__file__), "data")


def test_small_trace_becomes_an_instance():
    tr = read_trace(os.path.join(DATA, "serving_small.jsonl"))
    assert tr.size == 60
    inst = tr.instance
    with open(os.path.join(DATA, "serving_small.jsonl")) as fh:
        recs = [json.loads(line) for line in fh]
    for rec, seq in zip(recs, tr.lines):
        assert [inst.labels[x] for x in seq] == rec["chunks"]
        assert [int(inst.weights[x]) for x in seq] == rec["tokens"]
    assert sequences_cost(inst.weights, inst.orders) == production_cost(inst)


def test_duplicate_lines_map_to_one_request():
    tr = parse_trace(['{"id": 1, "chunks": ["a", "b"], "tokens": [2, 3]}',
                      '{"id": 2, "chunks": ["b", "a"], "tokens": [3, 2]}',
                      '{"id": 3, "chunks": ["c"], "tokens": [1]}'])
    assert tr.instance.m == 2 and list(tr.line_request) == [0, 0, 1]
    assert sequences_cost(tr.instance.weights, tr.lines) == 2 + 3 + 3 + 2 + 1
    assert tr.tokens() == 11


@pytest.mark.parametrize("name, where", [("serving_bad_lengths.jsonl", "line 2"),
                                         ("serving_bad_tokens.jsonl", "line 3"),
                                         ("serving_bad_json.jsonl", "line 2")])
def test_malformed_line_exits_2_naming_the_line(name, where, capsys):
    path = os.path.join(DATA, name)
    with pytest.raises(InstanceError, match=where):
        read_trace(path)
    assert main(["layout", path]) == 2
    err = capsys.readouterr().err.strip()
    assert where in err and "\n" not in err and "Traceback" not in err


@pytest.mark.parametrize("line, msg", [('[1, 2]', "JSON object"), ('{"chunks": []}', "both"),
                                       ('{"chunks": ["a", "a"], "tokens": [1, 1]}', "twice"),
                                       ('{"chunks": ["a"], "tokens": [0]}', "positive"),
                                       ('{"chunks": [1.5], "tokens": [2]}', "string or an integer")])
def test_each_error_is_named(line, msg):
    with pytest.raises(InstanceError, match=msg):
        parse_trace(['{"chunks": ["z"], "tokens": [1]}', line])


def test_mixed_label_kinds_rejected():
    with pytest.raises(InstanceError, match="line 2: chunk labels mix"):
        parse_trace(['{"chunks": ["a"], "tokens": [1]}', '{"chunks": [3], "tokens": [1]}'])


def test_write_then_read_layout_round_trip(tmp_path):
    tr = read_trace(os.path.join(DATA, "serving_small.jsonl"))
    rev = [tuple(reversed(s)) for s in tr.lines]
    out = tmp_path / "lay.jsonl"
    write_trace(str(out), tr, rev)
    assert read_layout(tr, str(out)) == rev
    bad = tmp_path / "bad.jsonl"
    write_trace(str(bad), tr, [tr.lines[1]] + list(tr.lines[1:]))
    with pytest.raises(InstanceError, match="line 1"):
        read_layout(tr, str(bad))

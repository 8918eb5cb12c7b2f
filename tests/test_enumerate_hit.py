"""The enumeration hit record: its JSON, its store row, and rows of stores written before it."""

import json
import sqlite3

import pytest

from mptsearch.cli import main
from mptsearch.enumerate.generate import EnumClass
from mptsearch.enumerate.hit import Hit
from mptsearch.enumerate.run import read_result, run_enumeration
from mptsearch.enumerate.store import open_existing

HIT = Hit(piece=5, m=3, masks=(0b011, 0b110, 0b101), free=7, glob=9, agg=8, greedy=10)


def test_json_names_every_field_and_writes_compact_requests():
    assert HIT.to_json(3) == {"requests": "01 12 02", "m": 3, "opt_free": 7, "opt_glob": 9,
                              "agglomerative": 8, "greedy": 10}
    assert HIT.to_json(4)["requests"] == "01 12 02"
    assert json.loads(json.dumps(HIT.to_json(3))) == HIT.to_json(3)


def test_row_round_trip():
    row = HIT.to_row()
    assert row == (5, 3, "[3, 6, 5]", 7, 9, 8, 10)
    assert Hit.from_row(row) == HIT


@pytest.fixture
def tiny_store(tmp_path):
    path = tmp_path / "s.sqlite"
    run_enumeration(EnumClass(3, 1, 3, 0, 7), path, prop="gap", min_pieces=2)
    return path


def test_old_format_row_reads_as_a_hit(tiny_store, capsys):
    # a row exactly as stores written before the record were filled:
    # (piece, h[0], json.dumps(h[1]), *h[2:]) from the 6-tuple (m, masks list, free, glob, agg, greedy)
    conn = sqlite3.connect(str(tiny_store))
    with conn:
        conn.execute("DELETE FROM hits")
        conn.execute("INSERT INTO hits VALUES (?, ?, ?, ?, ?, ?, ?)",
                     (0, *(2, json.dumps([3, 6])), *(11, 12, 13, 14)))
    conn.close()
    store = open_existing(tiny_store)
    try:
        assert store.hits() == [Hit(0, 2, (3, 6), 11, 12, 13, 14)]
    finally:
        store.close()
    assert read_result(tiny_store).hits[0].masks == (3, 6)
    capsys.readouterr()
    main(["hits", str(tiny_store), "--json"])
    (h,) = json.loads(capsys.readouterr().out)["hits"]
    assert h == {"requests": "01 12", "m": 2, "opt_free": 11, "opt_glob": 12,
                 "agglomerative": 13, "greedy": 14}


def test_commit_refuses_a_hit_of_another_piece(tiny_store):
    store = open_existing(tiny_store)
    try:
        with pytest.raises(ValueError, match="another piece"):
            store.commit_piece(0, 0.0, {}, [HIT])
    finally:
        store.close()

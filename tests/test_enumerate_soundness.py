"""Verdicts of `enumerate` that must turn false: minimality on a shard or a cut hit list,
undecided members, exit codes for complete / incomplete / interrupted runs (issue 10, point 5)."""

import json
import os
import re

import pytest

from mptsearch.cli import main
from mptsearch.enumerate.generate import EnumClass
from mptsearch.enumerate.run import (MinimalityError, check_minimal_allowed, minimal_hits,
                                     read_result, run_enumeration)
from mptsearch.enumerate.store import choose_journal_mode, filesystem_type, store_status

N4_ALL = EnumClass(4, 1, 4, 0, 15)


@pytest.fixture(scope="module")
def n4_shards(tmp_path_factory):
    """The 4-chunk gap class (1992 members) as three shard stores and their merge."""
    d = tmp_path_factory.mktemp("n4")
    paths = []
    for i in range(3):
        p = d / f"s{i}.sqlite"
        run_enumeration(N4_ALL, p, prop="gap", shard=(i, 3), min_pieces=30)
        paths.append(p)
    assert main(["merge", *map(str, paths), "-o", str(d / "all.sqlite")]) == 0
    return paths, d / "all.sqlite"


def _minimal_set(store, capsys):
    capsys.readouterr()
    assert main(["hits", str(store), "--minimal", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    return {h["requests"] for h in data["hits"]}


def test_minimal_after_merge_is_the_whole_class_answer(n4_shards, capsys):
    paths, merged = n4_shards
    mins = _minimal_set(merged, capsys)
    assert len(mins) == 16 and "012 013 023 123" in mins and "01 012 23 023" in mins


def test_shard_hits_would_be_wrongly_minimal_so_minimal_is_refused(n4_shards, capsys):
    paths, merged = n4_shards
    whole = _minimal_set(merged, capsys)
    from mptsearch.enumerate.run import compact_masks
    wrong = 0
    for p in paths:
        res = read_result(p)
        # what a shard-local minimality would say: some hits are "minimal" only because the
        # smaller gap inside them lives in another shard
        local = minimal_hits(N4_ALL, res.hits, "gap", 1)
        wrong += sum(1 for h, mn in zip(res.hits, local) if mn and compact_masks(h.masks, 4) not in whole)
        with pytest.raises(MinimalityError, match="mptsearch hits all.sqlite --minimal"):
            check_minimal_allowed(res)
        assert main(["hits", str(p), "--minimal"]) == 2
    assert wrong > 0  # the refusal is needed: a shard has non-minimal hits that look minimal
    capsys.readouterr()
    assert main(["enumerate", "-n", "4", "--minimal", "--shard", "1/3", "-q", "-j", "1",
                 "--store", str(paths[0].parent / "x.sqlite")]) == 2
    err = capsys.readouterr().err
    assert "mptsearch merge" in err and "hits all.sqlite --minimal" in err
    assert not (paths[0].parent / "x.sqlite").exists()  # refused before anything ran


def test_truncated_hit_list_refuses_minimal(tmp_path, capsys):
    store = tmp_path / "cut.sqlite"
    assert main(["enumerate", "-n", "4", "--max-hits", "2", "-q", "-j", "1", "--store", str(store)]) == 0
    res = read_result(store)
    assert res.hits_stored < res.hits_total == 525
    assert main(["hits", str(store), "--minimal"]) == 2
    assert "--max-hits" in capsys.readouterr().err
    assert main(["enumerate", "-n", "4", "--max-hits", "2", "--minimal", "-q", "--store",
                 str(tmp_path / "y.sqlite")]) == 2


def test_undecided_members_make_the_run_incomplete(tmp_path, capsys):
    cls = EnumClass(6, 3, 3, 2, 9)
    full = run_enumeration(cls, tmp_path / "full.sqlite", prop="gap", min_pieces=40)
    # the DP alone (the prefix-set search has no limit on m on 6 chunks)
    cut = run_enumeration(cls, tmp_path / "cut.sqlite", prop="gap", min_pieces=40, exact_limit=6,
                          prefix_sets=False)
    assert full.complete and full.undecided == 0
    assert cut.undecided > 0 and not cut.complete
    for m, t in cut.by_m.items():
        if t["undecided"]:
            assert not t["exact"]
            assert m > 6
            # what is reported is a lower bound, never above the truth
            assert t["max"] is None or t["max"] <= full.by_m[m]["max"]
        else:
            assert t["exact"] and t["max"] == full.by_m[m]["max"] and t["attain"] == full.by_m[m]["attain"]
    # an m whose maximum lies among the undecided: it would be wrong if reported as exact
    assert any(t["undecided"] and (t["max"] is None or t["max"] < full.by_m[m]["max"])
               for m, t in cut.by_m.items())
    capsys.readouterr()
    argv = ["enumerate", "-n", "6", "-k", "3", "-m", "2-9", "-j", "1", "--exact-limit", "6",
            "--store", str(tmp_path / "cli.sqlite")]
    assert main(argv + ["--json"]) == 3
    data = json.loads(capsys.readouterr().out)
    assert data["complete"] is False and data["undecided"] > 0
    assert main(argv) == 3
    out = capsys.readouterr().out
    assert re.search(r"\[\d+ undecided\]", out) and "incomplete" in out
    assert main(["status", str(tmp_path / "cli.sqlite")]) == 3


def test_exit_codes_complete_and_incomplete(tmp_path, capsys):
    store = tmp_path / "p.sqlite"
    argv = ["enumerate", "-n", "6", "-k", "3", "-m", "2-9", "-j", "1", "-q", "--store", str(store)]
    assert main(argv + ["--max-pieces", "2"]) == 3
    st = store_status(store)
    assert st["pieces_done"] == 2 and not st["complete"] and st["pieces_total"] > 2
    capsys.readouterr()
    assert main(["status", "--json", str(store)]) == 3
    assert json.loads(capsys.readouterr().out)["stores"][0]["pieces_done"] == 2
    assert main(argv) == 0
    assert "resumed: 2 of" in capsys.readouterr().out
    assert main(["status", str(store)]) == 0


def test_journal_mode_on_network_file_systems(tmp_path):
    mounts = tmp_path / "mounts"
    mounts.write_text(f"/dev/sda1 / ext4 rw 0 0\nserver:/home {tmp_path}/nfs nfs4 rw 0 0\n"
                      f"lus@o2ib:/scratch {tmp_path}/scratch lustre rw 0 0\n")
    assert filesystem_type(tmp_path / "nfs" / "a" / "s.sqlite", mounts) == "nfs4"
    assert filesystem_type(tmp_path / "scratch" / "s.sqlite", mounts) == "lustre"
    assert filesystem_type(tmp_path / "nfsx" / "s.sqlite", mounts) == "ext4"
    assert choose_journal_mode(tmp_path / "s.sqlite", "delete") == "delete"
    import mptsearch.enumerate.store as store_mod
    real = store_mod.filesystem_type
    try:
        store_mod.filesystem_type = lambda p: "nfs4"
        assert choose_journal_mode(tmp_path / "s.sqlite") == "delete"
        st = store_mod.Store(tmp_path / "s.sqlite", {"pieces": 1}, (0, 1))
        assert st.conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        st.close()
        store_mod.filesystem_type = lambda p: "ext4"
        assert choose_journal_mode(tmp_path / "s.sqlite") == "wal"
    finally:
        store_mod.filesystem_type = real


def test_default_store_goes_to_the_user_cache(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    assert main(["enumerate", "-n", "3", "-k", "2", "-j", "1", "-q"]) == 0
    out = capsys.readouterr().out
    made = list((tmp_path / "cache").rglob("*.sqlite"))
    assert len(made) == 1 and str(made[0]) in out and "(new;" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache"]  # nothing else written
    assert main(["enumerate", "-n", "3", "-k", "2", "-j", "1", "-q"]) == 0
    assert "resumed: " in capsys.readouterr().out


def test_out_is_written_atomically_and_json_alone_on_stdout(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["enumerate", "-n", "4", "-k", "3", "-j", "1", "--json", "-o", str(out),
                 "--store", str(tmp_path / "s.sqlite")]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert json.loads(out.read_text()) == printed
    assert printed["by_m"]["4"]["max"] == "9/8" and printed["complete"] is True
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_progress_goes_to_stderr_unless_quiet(tmp_path, capsys):
    argv = ["enumerate", "-n", "5", "-k", "2-3", "-m", "3-5", "-j", "1", "--store", str(tmp_path / "p.sqlite")]
    assert main(argv) == 0
    err = capsys.readouterr().err  # not a terminal here: lines, no bar
    assert re.search(r"progress: (\d+)/\1 pieces, [\d,]+ members this run \([\d,]+/s\), "
                     r"best ratio so far \d+/\d+ \(\d\.\d{4}\)", err)
    assert main(argv + ["-q", "--store", str(tmp_path / "q.sqlite")]) == 0
    assert capsys.readouterr().err == ""

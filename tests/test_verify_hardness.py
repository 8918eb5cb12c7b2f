"""Vertex cover -> k=2 MPT: cost = tau(G) + |E| by independent methods."""

import pytest

from mptsearch.cli import main
from mptsearch.instance import InstanceError
from mptsearch.verify.hardness import brute_vertex_cover, graph_instance, hardness_check, random_graph, read_edge_list


def test_small_graphs_every_method():
    for seed in range(6):
        rep = hardness_check(random_graph(9, 5 + seed, seed=seed))
        assert rep.ok, rep.problems
        assert set(rep.tau) == {"vc-cpsat", "vc-maxsat", "brute"}
        assert {"k2-cpsat", "k2-maxsat", "dp-free", "dp-glob", "trie-search"} <= set(rep.cost)


def test_known_graphs():
    # 5-cycle: tau = 3; K4: tau = 3; star with 5 leaves: tau = 1
    for edges, tau in [([(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)], 3),
                       ([(a, b) for a in range(4) for b in range(a + 1, 4)], 3),
                       ([(0, i) for i in range(1, 6)], 1)]:
        assert brute_vertex_cover(edges) == tau
        rep = hardness_check(edges)
        assert rep.ok and set(rep.cost.values()) == {tau + len(edges)}


def test_larger_graph_solvers_only():
    rep = hardness_check(random_graph(80, 160, seed=1))
    assert rep.ok and "brute" in rep.skipped and "dp-free" in rep.skipped


def test_inputs(tmp_path):
    f = tmp_path / "g.txt"
    f.write_text("# a triangle\n0 1\n1 2\n2,0\n")
    assert read_edge_list(str(f)) == [(0, 1), (1, 2), (2, 0)]
    f.write_text("0 1 2\n")
    with pytest.raises(InstanceError):
        read_edge_list(str(f))
    with pytest.raises(InstanceError):
        graph_instance([(1, 1)])
    with pytest.raises(InstanceError):
        random_graph(3, 4)


def test_cli(tmp_path, capsys):
    f = tmp_path / "g.txt"
    f.write_text("0 1\n1 2\n2 0\n2 3\n")
    assert main(["hardness", "--edges", str(f)]) == 0
    assert "cost = tau(G) + |E| holds" in capsys.readouterr().out
    assert main(["hardness", "--random", "30", "50", "--seed", "1"]) == 0
    assert main(["hardness"]) == 2
    assert main(["hardness", "--edges", str(tmp_path / "missing.txt")]) == 2

"""Checkpoints of the directed-cut branch-and-cut (mptsearch.exact.dcut_checkpoint): a resumed
run gives the value of an uninterrupted one and of the present closure program, reuses the saved
cut rows (the first LP of the resumed root starts above the cover LP), and a checkpoint of
another instance, or with a layout or cut set that is not the instance's, is refused."""

import json

import numpy as np
import pytest

from mptsearch.exact.arborescence import opt_free_closure
from mptsearch.exact.closure import closure_graph, reduce_instance
from mptsearch.exact.dcut import cut_lp, request_subdags
from mptsearch.exact.dcut_bnc import opt_free_dcut
from mptsearch.exact.dcut_checkpoint import Checkpoint, CheckpointError
from mptsearch.instance import from_lists
from mptsearch.trie import trie_cost


def _zipf(seed, n=60, m=40, k=6):
    rng = np.random.default_rng(seed)
    p = 1.0 / (np.arange(n) + 1) ** 1.1
    p /= p.sum()
    reqs = set()
    while len(reqs) < m:
        reqs.add(tuple(sorted(rng.choice(n, size=k, replace=False, p=p).tolist())))
    return from_lists(sorted(reqs))


def test_a_resumed_run_gives_the_same_value(tmp_path):
    inst = _zipf(3)
    path = tmp_path / "ck.json"
    first = opt_free_dcut(inst, checkpoint=path, max_rounds=2)
    assert first.lower <= first.upper
    doc = json.loads(path.read_text())
    (entry,) = doc["components"].values()
    assert entry["cuts"] and entry["layout"]
    again = opt_free_dcut(inst, checkpoint=path)
    plain = opt_free_dcut(inst)
    assert again.optimal and plain.optimal and again.value == plain.value == opt_free_closure(inst).value
    assert trie_cost(inst, again.layout) == again.value
    # the saved rows are reused: the resumed root's first LP is above the cover LP
    red = reduce_instance(inst)
    ((idx, masks),) = [c for c in red.components if len(c[0]) > 1]
    g = closure_graph(masks, red.weights)
    cuts, best, layout = Checkpoint(path, inst).component(idx, g, red.groups)
    # as saved by the resumed run (its root loop starts from the saved rows and the dual ascent's)
    (entry,) = json.loads(path.read_text())["components"].values()
    assert best >= plain.value and len(cuts) == len(entry["cuts"])
    sub = request_subdags(g)
    cold = cut_lp(g, subdags=sub, max_rounds=0)
    warm = cut_lp(g, subdags=sub, max_rounds=0, cuts=cuts)
    assert warm.value > cold.value + 1e-6


def test_a_checkpoint_of_another_instance_or_tampered_is_refused(tmp_path):
    inst = _zipf(4)
    path = tmp_path / "ck.json"
    opt_free_dcut(inst, checkpoint=path, max_rounds=2)
    with pytest.raises(CheckpointError, match="another instance"):
        opt_free_dcut(_zipf(5), checkpoint=path)
    doc = json.loads(path.read_text())
    (key,) = doc["components"]
    entry = doc["components"][key]
    bad = json.loads(json.dumps(doc))
    bad["components"][key]["layout"][0] = bad["components"][key]["layout"][0][:-1]
    path.write_text(json.dumps(bad))
    with pytest.raises(CheckpointError, match="layout"):
        opt_free_dcut(inst, checkpoint=path)
    bad = json.loads(json.dumps(doc))
    r, members = entry["cuts"][0]
    bad["components"][key]["cuts"][0] = [r, members + [list(range(inst.n))]]  # not an intersection
    path.write_text(json.dumps(bad))
    with pytest.raises(CheckpointError, match="closure"):
        opt_free_dcut(inst, checkpoint=path)
    bad = json.loads(json.dumps(doc))
    bad["components"][key]["cuts"][0] = [(r + 1) % len(entry["layout"]), members]  # another request's row
    path.write_text(json.dumps(bad))
    with pytest.raises(CheckpointError, match="without its request"):
        opt_free_dcut(inst, checkpoint=path)
    for shape in ({"cuts": None}, {"cuts": [[float(r), members]]}, {"cuts": [[r]]}):
        bad = json.loads(json.dumps(doc))
        bad["components"][key].update(shape)  # a malformed entry is a refused file, not a traceback
        path.write_text(json.dumps(bad))
        with pytest.raises(CheckpointError, match="malformed"):
            opt_free_dcut(inst, checkpoint=path)


def test_an_interrupted_tree_resumes_from_the_saved_root(tmp_path, monkeypatch):
    import mptsearch.exact.dcut as dcut
    import mptsearch.exact.dcut_bnc as bnc

    inst = _zipf(0, n=80, m=60, k=7)
    plain = opt_free_dcut(inst)
    assert plain.status == "optimal (tree)"  # the tree is needed: the interruption falls in it
    path = tmp_path / "ck.json"

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(bnc, "branch_and_cut", interrupted)
    with pytest.raises(KeyboardInterrupt):
        opt_free_dcut(inst, checkpoint=path)
    monkeypatch.undo()
    doc = json.loads(path.read_text())
    (entry,) = doc["components"].values()
    assert entry["root"]["done"] and entry["root"]["rounds"] > 0 and entry["cuts"] and entry["layout"]
    assert entry["fixing"]["upper"] > plain.value - 1 and entry["fixing"]["zero"]
    calls = []
    real = dcut.cut_lp

    def spy(*args, **kwargs):
        r = real(*args, **kwargs)
        calls.append((kwargs["max_rounds"], r.rounds, r.value))
        return r

    monkeypatch.setattr(dcut, "cut_lp", spy)
    again = opt_free_dcut(inst, checkpoint=path)
    # the root is not redone: one LP over the saved rows, no separation round, the saved value
    assert [(a, b) for a, b, _ in calls] == [(0, 0)]
    assert calls[0][2] == pytest.approx(entry["root"]["value"], abs=1e-6)
    # the value itself is checked against the closure program on the smaller instance above
    # (the program takes about 9 CPU s on this one)
    assert again.optimal and again.value == plain.value
    assert trie_cost(inst, again.layout) == again.value
    (entry,) = json.loads(path.read_text())["components"].values()
    assert entry["tree"]["bound"] == again.value

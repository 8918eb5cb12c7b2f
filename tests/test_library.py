"""The library surface: lazy top-level names, py.typed, docstring examples, and the pictures of
a solution (mptsearch.draw) against the trie cost."""

import doctest
import importlib
import importlib.util
import pathlib
import re
import subprocess
import sys

import pytest
from hypothesis import given, strategies as st

import mptsearch
from mptsearch.draw import draw_trie, hierarchy_to_json, layout_trie, trie_dot, trie_to_json
from mptsearch.trie import trie_cost

from .naive import naive_trie_cost
from .strategies import instances

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "mptsearch"
SERVING_API = {"order_contexts", "OnlineLayouter"}  # written in parallel on the serving branch


# ---- import mptsearch ------------------------------------------------------------------------

def test_import_is_fast_and_loads_no_numba():
    code = "import sys, mptsearch; print(sorted(m for m in ('numba', 'numpy', 'scipy', 'ortools') if m in sys.modules))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "[]"


@pytest.mark.parametrize("name", sorted(mptsearch._LAZY))
def test_every_lazy_name_resolves(name):
    module = mptsearch._LAZY[name]
    if name in SERVING_API and (importlib.util.find_spec(module) is None
                                or not hasattr(importlib.import_module(module), name)):
        pytest.skip(f"{module}.{name} is not on this branch yet (the serving engineer writes it)")
    value = getattr(mptsearch, name)
    assert value is getattr(importlib.import_module(module), name)
    assert name in dir(mptsearch) and name in mptsearch.__all__


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        mptsearch.nope  # noqa: B018


def test_py_typed_ships():
    assert (PACKAGE / "py.typed").is_file()
    text = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'\[tool\.setuptools\.package-data\]\s*\nmptsearch\s*=\s*\[[^\]]*"py\.typed"', text)


# ---- docstring examples ----------------------------------------------------------------------

def _modules_with_examples():
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if ">>>" in path.read_text(encoding="utf-8"):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            out.append(".".join(parts))
    return out


def test_examples_are_found():
    found = _modules_with_examples()
    assert {"mptsearch", "mptsearch.trie", "mptsearch.draw", "mptsearch.instance"} <= set(found)


@pytest.mark.parametrize("module", _modules_with_examples())
def test_docstring_examples(module):
    mod = importlib.import_module(module)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    tests = [t for t in finder.find(mod, module) if t.examples]
    assert tests, f"{module} mentions >>> but doctest finds no example"
    for t in tests:
        runner.run(t)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) of {module} failed (run pytest --doctest-modules {module.replace('.', '/')}.py)"


def test_a_wrong_example_fails():
    def f():
        """
        >>> 1 + 1
        3
        """
    runner = doctest.DocTestRunner()
    for t in doctest.DocTestFinder().find(f, "f"):
        runner.run(t, out=lambda s: None)
    assert runner.summarize(verbose=False).failed == 1


# ---- pictures against the trie cost ---------------------------------------------------------

@st.composite
def instance_and_layout(draw):
    inst = draw(instances(max_n=7, max_m=7))
    layout = [tuple(draw(st.permutations(sorted(o)))) for o in inst.orders]
    return inst, layout


@given(instance_and_layout())
def test_drawn_tree_weights_sum_to_the_trie_cost(case):
    inst, layout = case
    cost = trie_cost(inst, layout)
    assert cost == naive_trie_cost(layout, [int(w) for w in inst.weights])
    text = draw_trie(inst, layout)
    lines = text.splitlines()
    assert lines[0].startswith(f"trie, cost {cost} ")
    assert sum(int(w) for w in re.findall(r"  w=(\d+)", text)) == cost
    assert trie_to_json(inst, layout)["cost"] == cost
    # each request ends exactly once, at the node whose root path spells its sequence
    ends = re.findall(r"R(\d+)", text)
    assert sorted(map(int, ends)) == list(range(inst.m))
    root = layout_trie(inst, layout)

    def paths(node, prefix):
        for c in node.children:
            p = prefix + (c.chunk,)
            for i in c.ends:
                yield i, p
            yield from paths(c, p)
    assert dict(paths(root, ())) == dict(enumerate(layout))
    assert trie_dot(inst, layout).count(" -> ") == len(lines) - 1


@given(instances(max_n=6, max_m=6))
def test_hierarchy_json_holds_the_intersections_and_the_cost(inst):
    from mptsearch.exact.free import opt_free

    r = opt_free(inst)
    h = hierarchy_to_json(inst, r.hierarchy)
    index = {lab: x for x, lab in enumerate(inst.labels)}

    def walk(node):
        if "request" in node:
            return [set(inst.orders[node["request"]])], 0
        sets, saved = [], node["weight"]
        for child in node["children"]:
            s, w = walk(child)
            sets += s
            saved += w
        ids = {index[lab] for lab in node["I"]}
        assert ids == set.intersection(*sets)
        assert node["weight"] == sum(int(inst.weights[x]) for x in ids)
        return sets, saved

    leaves, savings = walk(h)
    assert len(leaves) == inst.m and inst.total_weight() - savings == r.value


def test_drawing_a_wrong_cost_would_show():
    inst = mptsearch.parse_instance("01 02")
    good = draw_trie(inst, [(0, 1), (0, 2)])
    worse = draw_trie(inst, [(1, 0), (0, 2)])
    assert "cost 3" in good and "cost 4" in worse and good != worse


def test_anneal_history_plot(tmp_path):
    from mptsearch.draw import plot_anneal_history

    target = tmp_path / "h.png"
    plot_anneal_history([("a", [[0.5, 1.2], [3.0, 1.5]], 10.0), ("empty", [], 5.0)], str(target))
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

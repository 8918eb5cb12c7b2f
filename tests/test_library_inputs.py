"""Every function ``mptsearch`` exports takes what ``parse_instance`` takes (a list of requests,
compact notation, a JSON dict, an Instance) or raises a TypeError saying what it takes, and
layouts and orders come back in the instance's own labels (issue 21, point 9)."""

import inspect

import pytest

import mptsearch
from mptsearch.exact.free import opt_free as opt_free_ids
from mptsearch.exact.glob import opt_glob as opt_glob_ids
from mptsearch.trie import order_cost as order_cost_ids, trie_cost as trie_cost_ids

from .naive import naive_trie_cost

WORDS = [["sys", "doc1", "q1"], ["sys", "doc1", "doc2", "q2"], ["sys", "doc2", "q3"]]
INTS = [[0, 1, 2], [1, 2, 3]]
#: the issue's example, compact notation, a JSON dict with weights, an Instance, string labels
FORMS = {"int lists": INTS, "compact": "012 123", "dict": {"requests": WORDS, "weights": {"sys": 200, "doc1": 500, "doc2": 400, "q1": 20, "q2": 30, "q3": 25}},
         "Instance": mptsearch.parse_instance(WORDS), "string lists": WORDS}


def _labels(form):
    return set(mptsearch.parse_instance(form).labels)


def _layout_ok(form, layout):
    inst = mptsearch.parse_instance(form)
    assert [sorted(map(str, s)) for s in layout] == [sorted(map(str, o)) for o in inst.label_orders()]
    assert all(lab in inst.labels for s in layout for lab in s)  # labels, not ids
    w = {lab: int(v) for lab, v in zip(inst.labels, inst.weights)}
    return naive_trie_cost(layout, w)


def _weights(form):
    inst = mptsearch.parse_instance(form)
    return {lab: int(v) for lab, v in zip(inst.labels, inst.weights)}


def check_opt_free(form):
    r = mptsearch.opt_free(form)
    assert _layout_ok(form, r.layout) == r.value == opt_free_ids(mptsearch.parse_instance(form)).value


def check_opt_glob(form):
    r = mptsearch.opt_glob(form)
    assert sorted(map(str, r.order)) == sorted(map(str, _labels(form)))
    inst = mptsearch.parse_instance(form)
    assert r.value == opt_glob_ids(inst).value == order_cost_ids(inst, [inst.labels.index(x) for x in r.order])


def check_agglomerative(form):
    r = mptsearch.agglomerative(form)
    assert _layout_ok(form, r.layout) == r.value


def check_greedy(form):
    r = mptsearch.greedy(form)
    assert _layout_ok(form, r.layout) == r.value


def check_trie_cost(form):
    inst = mptsearch.parse_instance(form)
    production = inst.label_orders()
    assert mptsearch.trie_cost(form, production) == trie_cost_ids(inst, inst.orders)
    assert mptsearch.trie_cost(form, mptsearch.opt_free(form).layout) == mptsearch.opt_free(form).value


def check_order_cost(form):
    order = mptsearch.opt_glob(form).order
    assert mptsearch.order_cost(form, order) == mptsearch.opt_glob(form).value


def check_draw_trie(form):
    r = mptsearch.opt_free(form)
    text = mptsearch.draw_trie(form, r.layout)
    assert text.startswith(f"trie, cost {r.value} ")
    assert all(f"── {lab}  w=" in text for lab in _labels(form))


def check_order_contexts(form):
    r = mptsearch.order_contexts(form)
    assert _layout_ok(form, r.orders) == r.prefill


def check_parse_instance(form):
    assert mptsearch.parse_instance(form).labels == tuple(sorted(_labels(form)))


CHECKS = {name[len("check_"):]: fn for name, fn in globals().items() if name.startswith("check_")}
NOT_FUNCTIONS = {"__version__", "Instance", "InstanceError", "OnlineLayouter"}


def test_every_exported_function_has_a_check():
    functions = {n for n in mptsearch.__all__ if n not in NOT_FUNCTIONS}
    assert all(inspect.isfunction(getattr(mptsearch, n)) for n in functions)
    assert functions == set(CHECKS)


@pytest.mark.parametrize("form", FORMS, ids=str)
@pytest.mark.parametrize("name", sorted(CHECKS))
def test_any_instance_form_and_results_in_labels(name, form):
    CHECKS[name](FORMS[form])


def test_the_issue_example():
    assert mptsearch.opt_free([[0, 1, 2], [1, 2, 3]]).value == 4


@pytest.mark.parametrize("name", sorted(set(CHECKS) - {"parse_instance"}))
def test_another_type_is_a_type_error_saying_what_is_taken(name):
    fn = getattr(mptsearch, name)
    args = [17] + [[[0]]] * (len([p for p in inspect.signature(fn).parameters.values()
                                  if p.default is p.empty and p.kind is p.POSITIONAL_OR_KEYWORD]) - 1)
    with pytest.raises(TypeError, match=f"{name}\\(\\) takes .*a list of requests.*got int"):
        fn(*args)


def test_a_label_not_in_the_instance_is_named():
    with pytest.raises(mptsearch.InstanceError, match="chunk label 'nope' is not in the instance"):
        mptsearch.trie_cost(WORDS, [["sys", "doc1", "nope"], *WORDS[1:]])

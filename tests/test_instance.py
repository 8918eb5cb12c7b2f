import json

import numpy as np
import pytest

from mptsearch.instance import InstanceError, compact, from_lists, parse_instance


def test_compact_notation_digits_become_int_labels():
    inst = parse_instance("0145 0236 1236")
    assert inst.labels == (0, 1, 2, 3, 4, 5, 6)
    assert inst.m == 3 and inst.n == 7
    assert compact(inst) == "0145 0236 1236"


def test_compact_letters_keep_string_labels():
    inst = parse_instance("ab bc")
    assert inst.labels == ("a", "b", "c")
    assert [sorted(r) for r in inst.requests] == [[0, 1], [1, 2]]


def test_production_order_is_kept():
    inst = parse_instance({"requests": [[5, 1, 3], [3, 5]]})
    assert inst.label_orders() == [[5, 1, 3], [3, 5]]


def test_weights_list_and_mapping(tmp_path):
    a = parse_instance({"requests": [[0, 1], [1, 2]], "weights": [3, 1, 2]})
    b = parse_instance({"requests": [["x", "y"], ["y", "z"]], "weights": {"x": 3, "y": 1, "z": 2}})
    assert a.weights.tolist() == b.weights.tolist() == [3, 1, 2]
    path = tmp_path / "inst.json"
    path.write_text(json.dumps({"requests": [[0, 1], [1, 2]], "weights": {"0": 3, "1": 1, "2": 2}}))
    assert parse_instance(str(path)).weights.tolist() == [3, 1, 2]


def test_duplicates_are_merged_with_a_note():
    inst = parse_instance("01 10 12")
    assert inst.m == 2
    assert "merged" in inst.notes[0]


@pytest.mark.parametrize("src, msg", [
    ('{"requests": [[0, 1], [1,', "malformed JSON"),
    ({"requests": [[0], []]}, "request 1 is empty"),
    ({"requests": [[0, 1]], "weights": [1]}, "chunk 1 has no weight"),
    ({"requests": [["a"]], "weights": {"b": 1}}, "chunk 'a' has no weight"),
    ({"requests": [[0, 1]], "weights": [1, 0]}, "not a positive integer"),
    ({"requests": [[0, 1]], "weights": [1, 1.5]}, "not a positive integer"),
    ({"requests": [[0, 1]], "weights": [1, True]}, "not a positive integer"),
    ({"requests": [[0, 1, 0]]}, "lists chunk 0 twice"),
    ({"requests": []}, "no requests"),
    ({"requests": [[0, "a"]]}, "mix"),
    ({"reqs": [[0]]}, "requests"),
])
def test_bad_input_is_a_one_line_instance_error(src, msg):
    with pytest.raises(InstanceError) as exc:
        parse_instance(src)
    assert msg in str(exc.value)
    assert "\n" not in str(exc.value)


def test_bitsets_match_requests_beyond_64_chunks():
    reqs = [[0, 63, 64, 129], [1, 64]]
    inst = from_lists(reqs)
    bits = inst.request_bits()
    assert bits.shape == (2, 1)  # 5 distinct chunks relabelled 0..4 fit one word
    big = from_lists([list(range(0, 130, 2)), list(range(1, 130, 2))])
    assert big.n == 130 and big.request_bits().shape == (2, 3)
    assert int(big.request_bits()[0, 0]) == sum(1 << x for x in range(0, 64, 2))
    assert np.array_equal(big.chunk_sets()[:4], np.array([1, 2, 1, 2], dtype=np.uint64))

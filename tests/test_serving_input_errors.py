"""Mistakes in what a server feeds the layouters: a trace line cut short is reported at its
own line and column (``json`` counted the newline and said "line 2 column 1"), and
:class:`OnlineLayouter` refuses a request id it is already holding or just served."""

import pytest

from mptsearch.instance import InstanceError
from mptsearch.serving.online import OnlineLayouter
from mptsearch.serving.sparse import parse_sparse
from mptsearch.serving.trace import parse_trace

GOOD = '{"chunks": [1, 2], "tokens": [3, 4]}\n'


@pytest.mark.parametrize("parse", [parse_trace, parse_sparse])
@pytest.mark.parametrize("line, message", [
    ('{"chunks": [1, 3], "tokens": [3, 4]\n', "line 2: malformed JSON: the line ends at column 35 "),
    ('{"chunks": [1, 3], "tokens": [3,\n', "line 2: malformed JSON: the line ends at column 32 "),
    ('{"chunks": [1, 3], "tokens": [3, 4]', "line 2: malformed JSON: the line ends at column 35 "),
    ('{"chunks": [1, 3], "tokens": [3, 4]\r\n', "line 2: malformed JSON: the line ends at column 35 "),
    ('{"chunks": [1, 3] "tokens": [3, 4]}\n', "line 2: malformed JSON (Expecting ',' delimiter at column 19)"),
    ('{"chunks": [1, 3], "tok', "line 2: malformed JSON (Unterminated string starting at column 20)"),
])
def test_a_broken_line_is_reported_where_it_breaks(parse, line, message):
    with pytest.raises(InstanceError) as err:
        parse([GOOD, line, GOOD])
    assert message in str(err.value) and "column 1)" not in str(err.value)


def test_online_layouter_refuses_a_repeated_id():
    lay = OnlineLayouter(window=2, history=2)
    assert lay.add(["a", "b"], id="q1") == []
    with pytest.raises(InstanceError, match="request id 'q1' repeats"):
        lay.add(["a", "c"], id="q1")  # queued
    assert [rid for rid, _ in lay.add(["a", "c"], id="q2")] == ["q1", "q2"]
    with pytest.raises(InstanceError, match="request id 'q2' repeats"):
        lay.add(["c"], id="q2")  # served, still remembered
    with pytest.raises(InstanceError, match="not hashable"):
        lay.add(["c"], id=["q3"])
    assert lay.add(["c"], id=3) == []
    with pytest.raises(InstanceError, match="request id 3 repeats"):
        lay.add(["b"])  # the default id, the arrival number (3 here), is an id like any other
    assert lay.add(["b"], id="q4") == [(3, ["c"]), ("q4", ["b"])]
    assert lay.add(["a"], id="q1") == []  # two served since: forgotten, as history=2 bounds memory


def test_online_layouter_default_ids_stay_distinct():
    lay = OnlineLayouter(window=3)
    got = [rid for k in range(7) for rid, _ in lay.add(["a", "b"][: 1 + k % 2])] + [rid for rid, _ in lay.flush()]
    assert got == list(range(7))

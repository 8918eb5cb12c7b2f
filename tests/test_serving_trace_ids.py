"""Request ids of a trace are unique: a repeated id is one line on stderr naming both lines,
exit 2, in both trace readers (issue 21, point 11)."""

import pytest

from mptsearch.cli import main
from mptsearch.instance import InstanceError
from mptsearch.serving.sparse import parse_sparse
from mptsearch.serving.trace import check_unique_ids, parse_trace

LINES = ['{"id": "q1", "chunks": ["a", "b"], "tokens": [2, 3]}',
         '{"id": "q2", "chunks": ["b"], "tokens": [3]}',
         '',
         '{"id": "q1", "chunks": ["c"], "tokens": [1]}']


@pytest.mark.parametrize("parse", [parse_trace, parse_sparse])
def test_a_repeated_id_is_refused_naming_both_lines(parse):
    with pytest.raises(InstanceError, match=r"^t line 4: request id 'q1' repeats the id of line 1"):
        parse(LINES, where="t")
    assert parse(LINES[:3], where="t").size == 2


@pytest.mark.parametrize("parse", [parse_trace, parse_sparse])
def test_missing_ids_are_line_numbers_and_may_clash(parse):
    ok = ['{"chunks": ["a"], "tokens": [1]}', '{"chunks": ["a"], "tokens": [1]}']
    assert list(parse(ok).ids) == [1, 2]  # identical lines, distinct requests
    with pytest.raises(InstanceError, match="line 2: request id 1 repeats the id of line 1"):
        parse(['{"chunks": ["a"], "tokens": [1]}', '{"id": 1, "chunks": ["b"], "tokens": [1]}'])


def test_ids_of_any_json_type():
    check_unique_ids([1, "1", True, [1], {"a": 1}, 1.5], range(1, 7))  # all distinct
    with pytest.raises(InstanceError, match="line 5: request id \\[1, 2\\] repeats the id of line 2"):
        check_unique_ids(["x", [1, 2], "y", "z", [1, 2]], range(1, 6))


def test_layout_and_simulate_exit_2_on_a_repeated_id(tmp_path, capsys):
    p = tmp_path / "t.jsonl"
    p.write_text("\n".join(LINES) + "\n")
    for cmd in (["layout", str(p)], ["simulate", str(p)]):
        capsys.readouterr()
        assert main(cmd) == 2, cmd
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "line 4: request id 'q1' repeats the id of line 1" in err, err

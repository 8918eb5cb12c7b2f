"""Reading and writing tables: CSV (a header line), JSONL of objects, Parquet (when pyarrow is
installed).

A table is a list of column names and, for every row, one cell per column. A cell's *text* is
what goes into the prompt: a CSV cell as it is; a JSON string as it is, any other JSON value
(number, true, null, a list) as its compact JSON. Two cells are the same field when their
column and text are equal. Bad input raises :class:`~mptsearch.instance.InstanceError` with one
line: ragged rows, a column named twice, an empty table, a file that cannot be read.
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass

from .._atomic import atomic_open
from ..instance import InstanceError

__all__ = ["Table", "read_table", "table_format", "write_table", "FORMATS", "RANK", "FIELD_ORDER"]

FORMATS = ("csv", "jsonl", "parquet")
RANK = "_serve_rank"  #: the column written with each row's position in the serving order
FIELD_ORDER = "_field_order"  #: CSV/Parquet: the row's prompt columns in prompt order (a JSON list)


@dataclass
class Table:
    """Column names and the cells of every row.

    ``rows[i][c]`` is the original cell (what is written back); ``texts[c][i]`` its text."""

    columns: list
    rows: list
    texts: list

    @property
    def size(self) -> int:
        return len(self.rows)


def table_format(path: str, fmt: str | None = None) -> str:
    """The format of ``path``: ``fmt`` when given, else from the suffix (.csv, .jsonl/.ndjson/.json,
    .parquet/.pq)."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise InstanceError(f"unknown table format {fmt!r}; use one of {', '.join(FORMATS)}")
        return fmt
    low = str(path).lower()
    for suffix, name in ((".csv", "csv"), (".jsonl", "jsonl"), (".ndjson", "jsonl"), (".json", "jsonl"),
                         (".parquet", "parquet"), (".pq", "parquet")):
        if low.endswith(suffix):
            return name
    raise InstanceError(f"{path}: cannot tell the table format from the name; give --format csv, jsonl or parquet")


def _check_columns(columns: list, where: str) -> None:
    seen = set()
    for c in columns:
        if c in seen:
            raise InstanceError(f"{where}: the column {c!r} is named twice")
        seen.add(c)
    if not columns:
        raise InstanceError(f"{where}: the table has no columns")


def _json_text(v) -> str:
    if isinstance(v, str):
        return v
    import orjson

    return orjson.dumps(v).decode()


def _from_rows(columns: list, rows: list, where: str, texts=None) -> Table:
    if not rows:
        raise InstanceError(f"{where}: the table has no rows")
    if texts is None:
        texts = [list(col) for col in zip(*rows)]
    return Table(list(columns), rows, texts)


def read_csv(fh, where: str) -> Table:
    reader = csv.reader(fh)
    try:
        header = next(reader)
    except StopIteration:
        raise InstanceError(f"{where}: the table is empty (no header line)") from None
    except csv.Error as exc:
        raise InstanceError(f"{where} line 1: {exc}") from None
    _check_columns(header, where)
    k = len(header)
    rows = []
    try:
        for row in reader:
            if len(row) != k:
                if not row:  # a blank line
                    continue
                raise InstanceError(f"{where} line {reader.line_num}: {len(row)} fields, the header has {k}")
            rows.append(row)
    except csv.Error as exc:
        raise InstanceError(f"{where} line {reader.line_num}: {exc}") from None
    return _from_rows(header, rows, where)


def read_jsonl(fh, where: str) -> Table:
    import orjson

    columns = None
    keyset = None
    rows = []
    for lineno, line in enumerate(fh, start=1):
        if not line.strip():
            continue
        try:
            rec = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise InstanceError(f"{where} line {lineno}: malformed JSON ({exc})") from None
        if type(rec) is not dict:
            raise InstanceError(f"{where} line {lineno}: expected a JSON object (one row)")
        if columns is None:
            columns = list(rec)
            _check_columns(columns, f"{where} line {lineno}")
            keyset = set(columns)
        elif rec.keys() != keyset:
            missing = sorted(keyset - rec.keys())
            extra = sorted(rec.keys() - keyset)
            what = f"lacks {missing[0]!r}" if missing else f"has the extra key {extra[0]!r}"
            raise InstanceError(f"{where} line {lineno}: the row {what} (rows must have the keys of the first)")
        rows.append([rec[c] for c in columns])
    if columns is None:
        raise InstanceError(f"{where}: the table has no rows")
    texts = [[_json_text(v) for v in col] for col in zip(*rows)]
    return _from_rows(columns, rows, where, texts)


def read_parquet(path: str, where: str) -> Table:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InstanceError("reading Parquet needs pyarrow (pip install pyarrow)") from None
    try:
        t = pq.read_table(path)
    except Exception as exc:  # pyarrow's ArrowInvalid and friends: not a Parquet file
        raise InstanceError(f"{where}: cannot read as Parquet ({' '.join(str(exc).split())[:200]})") from None
    columns = list(t.column_names)
    _check_columns(columns, where)
    cols = [t.column(c).to_pylist() for c in columns]
    rows = [list(r) for r in zip(*cols)]
    texts = [[_json_text(v) for v in col] for col in cols]
    return _from_rows(columns, rows, where, texts)


def read_table(path: str, fmt: str | None = None) -> Table:
    """Read a table file (see the module docstring); the format from ``fmt`` or the suffix."""
    fmt = table_format(path, fmt)
    where = str(path)
    if os.path.isdir(path):
        raise InstanceError(f"{path} is a directory, not a table file")
    try:
        if fmt == "parquet":
            if not os.path.exists(path):
                raise FileNotFoundError(path)
            return read_parquet(path, where)
        with open(path, encoding="utf-8", newline="") as fh:
            return read_csv(fh, where) if fmt == "csv" else read_jsonl(fh, where)
    except FileNotFoundError:
        raise InstanceError(f"no such file: {path}") from None
    except UnicodeDecodeError as exc:
        raise InstanceError(f"{path}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise InstanceError(f"cannot read {path}: {exc.strerror}") from None


def write_table(path: str, fmt: str, table: Table, serve: list, field_orders: list) -> None:
    """Write the rows of ``table`` in the order ``serve`` (row indices) atomically, each with its
    rank and its prompt columns' order ``field_orders[i]`` (column indices):

    - JSONL: each object's keys in prompt order, then the columns left out of the prompt, then
      ``_serve_rank``;
    - CSV and Parquet: the columns as read, then ``_serve_rank`` and ``_field_order`` (the prompt's
      column names in order, as a JSON list)."""
    import orjson

    cols = table.columns
    if fmt == "jsonl":
        k = len(cols)
        with atomic_open(path, binary=True) as fh:
            for rank, i in enumerate(serve):
                order = list(field_orders[i])
                rest = sorted(set(range(k)) - set(order))
                row = table.rows[i]
                rec = {cols[c]: row[c] for c in order + rest}
                rec[RANK] = rank
                fh.write(orjson.dumps(rec) + b"\n")
        return
    names = [orjson.dumps([cols[c] for c in field_orders[i]]).decode() for i in serve]
    if fmt == "csv":
        with atomic_open(path) as fh:
            buf = io.StringIO()
            w = csv.writer(buf, lineterminator="\n")
            w.writerow(list(cols) + [RANK, FIELD_ORDER])
            for rank, (i, name) in enumerate(zip(serve, names)):
                w.writerow(list(table.rows[i]) + [rank, name])
                if buf.tell() > 1 << 20:
                    fh.write(buf.getvalue())
                    buf.seek(0)
                    buf.truncate()
            fh.write(buf.getvalue())
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = {c: [table.rows[i][j] for i in serve] for j, c in enumerate(cols)}
    data[RANK] = list(range(len(serve)))
    data[FIELD_ORDER] = names
    from .._atomic import atomic_path

    with atomic_path(path) as tmp:
        pq.write_table(pa.table(data), tmp)

"""Reading and writing tables: CSV (a header line), JSONL of objects, Parquet (when pyarrow is
installed). Large CSV files are read by pandas' C parser (when pandas is installed, checked
against the ``csv`` module's record shapes) or pyarrow's, kept as per-column codes, and written
back by a compiled loop over pre-encoded cells.

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
from dataclasses import dataclass, field

import numpy as np

from .._atomic import atomic_open
from ..instance import InstanceError

__all__ = ["Table", "read_table", "table_format", "write_table", "FORMATS", "RANK", "FIELD_ORDER"]

FORMATS = ("csv", "jsonl", "parquet")
RANK = "_serve_rank"  #: the column written with each row's position in the serving order
FIELD_ORDER = "_field_order"  #: CSV/Parquet: the row's prompt columns in prompt order (a JSON list)


@dataclass
class Table:
    """Column names and the cells of every row.

    ``rows[i][c]`` is the original cell (what is written back); ``texts[c][i]`` its text. A table
    read by a fast CSV reader holds its cells in ``arrow`` (:func:`read_csv_arrow`: a pyarrow
    Table of string columns, the cells as read) or in ``coded`` (:func:`read_csv_pandas`: a
    (columns, rows) int32 array of codes and every column's distinct texts in first-seen order)
    instead, and builds ``rows`` and ``texts`` only when they are asked for;
    :meth:`column_codes` interns a column either way."""

    columns: list
    _rows: list | None = field(default=None, repr=False)
    _texts: list | None = field(default=None, repr=False)
    arrow: object = field(default=None, repr=False)
    coded: tuple | None = field(default=None, repr=False)

    @property
    def size(self) -> int:
        if self.coded is not None:
            return self.coded[0].shape[1]
        return self.arrow.num_rows if self.arrow is not None else len(self._rows)

    @property
    def rows(self) -> list:
        if self._rows is None:
            self._rows = [list(r) for r in zip(*self.texts)]
        return self._rows

    @property
    def texts(self) -> list:
        if self._texts is None and self.coded is not None:
            codes, uniques = self.coded
            self._texts = [np.asarray(u, dtype=object)[codes[c]].tolist() for c, u in enumerate(uniques)]
        if self._texts is None:
            self._texts = [self.arrow.column(c).to_pylist() for c in range(len(self.columns))]
        return self._texts

    def column_codes(self, c: int) -> tuple[np.ndarray, list]:
        """(codes, distinct texts in first-seen order) of column ``c``: ``texts[c][i]`` is
        ``uniques[codes[i]]``."""
        if self.coded is not None:
            return self.coded[0][c].astype(np.int64), self.coded[1][c]
        if self.arrow is not None and self._texts is None:
            enc = self.arrow.column(c).combine_chunks().dictionary_encode()
            return enc.indices.to_numpy().astype(np.int64), enc.dictionary.to_pylist()
        return factorize(self.texts[c])


def factorize(texts: list) -> tuple[np.ndarray, list]:
    """(codes, distinct texts in first-seen order) of one column (pandas' hash table when pandas
    is installed, a dict otherwise; the same codes)."""
    try:
        import pandas as pd
    except ImportError:
        index: dict = {}
        codes = np.fromiter((index.setdefault(t, len(index)) for t in texts), dtype=np.int64, count=len(texts))
        return codes, list(index)
    codes, uniques = pd.factorize(np.asarray(texts, dtype=object), sort=False)
    return codes.astype(np.int64), list(uniques)


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

    from ..serving.trace import malformed_json

    columns = None
    keyset = None
    rows = []
    for lineno, line in enumerate(fh, start=1):
        if not line.strip():
            continue
        try:
            rec = orjson.loads(line)
        except orjson.JSONDecodeError as exc:  # a json.JSONDecodeError: the trace readers' wording
            raise InstanceError(f"{where} line {lineno}: {malformed_json(exc, line)}") from None
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


def read_csv_arrow(path: str, where: str) -> Table | None:
    """The CSV file ``path`` read by pyarrow's CSV reader (all columns as strings, no nulls,
    quoted newlines allowed), or None when pyarrow is not installed or the reader does not
    accept the file as it is (a ragged row, bad UTF-8, a header over several lines, no rows):
    :func:`read_csv` then reads it again and names what is wrong, so the result or the error is
    the same either way (tested against each other)."""
    try:
        import pyarrow as pa
        import pyarrow.csv as pcsv
    except ImportError:
        return None
    header = _one_line_header(path, where)
    if header is None:
        return None
    names = [f"c{j}" for j in range(len(header))]
    try:
        t = pcsv.read_csv(path, read_options=pcsv.ReadOptions(column_names=names, skip_rows=1),
                          parse_options=pcsv.ParseOptions(newlines_in_values=True),
                          convert_options=pcsv.ConvertOptions(column_types={n: pa.string() for n in names},
                                                              strings_can_be_null=False,
                                                              quoted_strings_can_be_null=False, null_values=[]))
    except (pa.ArrowException, OSError):
        return None
    if t.num_rows == 0:
        return None
    return Table(list(header), arrow=t)


def _one_line_header(path: str, where: str) -> list | None:
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        try:
            header = next(reader)
        except (StopIteration, csv.Error, UnicodeDecodeError):
            return None
        if reader.line_num != 1 or not header:
            return None
    _check_columns(header, where)
    return header


def read_csv_pandas(path: str, where: str) -> Table | None:
    """The CSV file ``path`` read by pandas' C parser into per-column codes (:class:`Table`'s
    ``coded``), or None when pandas is not installed or the file is not read as it is: pandas
    fills a short row with empty cells and skips a line of spaces where the ``csv`` module
    reads a ragged row, so the file's record shapes are first counted by the ``csv`` module's
    own state machine (:func:`._csv_kernels.csv_shape`) and the result is kept only when every
    record has the header's fields and pandas read as many rows. Otherwise :func:`read_csv`
    reads the file again and names what is wrong (the result or the error is the same either
    way; tested against each other)."""
    try:
        import pandas as pd
    except ImportError:
        return None
    header = _one_line_header(path, where)
    if header is None:
        return None
    from ._csv_kernels import csv_shape

    records, ok = csv_shape(np.fromfile(path, dtype=np.uint8), len(header))
    if not ok or records == 0:
        return None
    names = [f"c{j}" for j in range(len(header))]
    try:
        df = pd.read_csv(path, header=None, skiprows=1, names=names, dtype=object, na_filter=False,
                         keep_default_na=False, skip_blank_lines=True, index_col=False, engine="c",
                         encoding="utf-8", quoting=csv.QUOTE_MINIMAL, doublequote=True)
    except (ValueError, UnicodeDecodeError, OSError, pd.errors.ParserError):
        return None
    if len(df) != records:
        return None
    codes = np.empty((len(names), records), dtype=np.int32)
    uniques = []
    for j, name in enumerate(names):
        cj, uj = pd.factorize(df[name].to_numpy(dtype=object), sort=False)
        codes[j] = cj
        uniques.append(list(uj))
    return Table(list(header), coded=(codes, uniques))


#: CSV files from this size on are read by :func:`read_csv_pandas` (below it, importing pandas
#: costs more than the ``csv`` module's reading)
FAST_CSV_BYTES = 4 << 20


def read_table(path: str, fmt: str | None = None, *, fast: bool = True) -> Table:
    """Read a table file (see the module docstring); the format from ``fmt`` or the suffix.
    ``fast``: CSV through :func:`read_csv_pandas` when pandas is installed and the file has at
    least :data:`FAST_CSV_BYTES` bytes, else :func:`read_csv_arrow` when pyarrow is."""
    from .._files import read_errors

    fmt = table_format(path, fmt)
    where = str(path)
    if os.path.isdir(path):
        raise InstanceError(f"{path} is a directory, not a table file")
    with read_errors(path):
        if fmt == "parquet":
            if not os.path.exists(path):
                raise FileNotFoundError(path)
            return read_parquet(path, where)
        if fmt == "csv" and fast:
            big = os.path.getsize(path) >= FAST_CSV_BYTES
            tab = read_csv_pandas(path, where) if big else None
            if tab is None:
                tab = read_csv_arrow(path, where)
            if tab is not None:
                return tab
        with open(path, encoding="utf-8", newline="") as fh:
            return read_csv(fh, where) if fmt == "csv" else read_jsonl(fh, where)


def order_names(columns: list, field_orders: np.ndarray) -> tuple[list, np.ndarray]:
    """(the distinct prompt orders as JSON lists of column names, the index of every row's):
    rows share few distinct orders, so each is rendered once."""
    fo = np.ascontiguousarray(field_orders, dtype=np.int64)
    if fo.ndim != 2 or not len(fo):
        return [], np.zeros(len(fo), dtype=np.int64)
    keys = fo.view(np.dtype((np.void, fo.dtype.itemsize * fo.shape[1]))).ravel()
    _, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    import orjson

    return [orjson.dumps([columns[c] for c in fo[i]]).decode() for i in first.tolist()], inv.reshape(-1)


def write_table(path: str, fmt: str, table: Table, serve, field_orders) -> None:
    """Write the rows of ``table`` in the order ``serve`` (row indices) atomically, each with its
    rank and its prompt columns' order ``field_orders[i]`` (column indices; a 2-D array):

    - JSONL: each object's keys in prompt order, then the columns left out of the prompt, then
      ``_serve_rank``;
    - CSV and Parquet: the columns as read, then ``_serve_rank`` and ``_field_order`` (the prompt's
      column names in order, as a JSON list)."""
    import orjson

    cols = table.columns
    serve = np.asarray(serve, dtype=np.int64)
    field_orders = np.asarray(field_orders, dtype=np.int64)
    if fmt == "jsonl":
        k = len(cols)
        rows = table.rows
        with atomic_open(path, binary=True) as fh:
            for rank, i in enumerate(serve.tolist()):
                order = field_orders[i].tolist()
                rest = sorted(set(range(k)) - set(order))
                row = rows[i]
                rec = {cols[c]: row[c] for c in order + rest}
                rec[RANK] = rank
                fh.write(orjson.dumps(rec) + b"\n")
        return
    distinct, which = order_names(cols, field_orders)
    if fmt == "csv" and table.coded is not None:
        _write_csv_coded(path, table, serve, distinct, which)
        return
    names = np.asarray(distinct, dtype=object)[which[serve]] if len(serve) else np.zeros(0, dtype=object)
    if fmt == "csv" and table.arrow is None:
        rows = table.rows
        with atomic_open(path) as fh:
            buf = io.StringIO()
            w = csv.writer(buf, lineterminator="\n")
            w.writerow(list(cols) + [RANK, FIELD_ORDER])
            for rank, (i, name) in enumerate(zip(serve.tolist(), names.tolist())):
                w.writerow(list(rows[i]) + [rank, name])
                if buf.tell() > 1 << 20:
                    fh.write(buf.getvalue())
                    buf.seek(0)
                    buf.truncate()
            fh.write(buf.getvalue())
        return
    import pyarrow as pa

    from .._atomic import atomic_path

    if table.arrow is not None:
        t = table.arrow.take(pa.array(serve))
        data = {c: t.column(j) for j, c in enumerate(cols)}
    else:
        rows = table.rows
        data = {c: [rows[i][j] for i in serve.tolist()] for j, c in enumerate(cols)}
    data[RANK] = pa.array(np.arange(len(serve), dtype=np.int64))
    data[FIELD_ORDER] = pa.array(names.tolist(), type=pa.string())
    out = pa.table(data)
    with atomic_path(path) as tmp:
        if fmt == "csv":
            import pyarrow.csv as pcsv

            pcsv.write_csv(out, tmp, write_options=pcsv.WriteOptions(quoting_style="needed"))
        else:
            import pyarrow.parquet as pq

            pq.write_table(out, tmp)


def csv_cell(text: str) -> str:
    """``text`` as ``csv.writer(lineterminator="\\n")`` writes it among other cells: in double
    quotes (inner quotes doubled) when it holds a comma, a quote or a ``\\n``, else as it is."""
    if "," in text or '"' in text or "\n" in text:
        return '"' + text.replace('"', '""') + '"'
    return text


#: lines :func:`_write_csv_coded` renders at once
CSV_BATCH = 1 << 16


def _write_csv_coded(path: str, table: Table, serve: np.ndarray, distinct: list, which: np.ndarray) -> None:
    """The CSV of :func:`write_table` for a table held as codes: every distinct cell encoded once
    (:func:`csv_cell`), the lines copied from those bytes by :func:`._csv_kernels.csv_lines` in
    batches of :data:`CSV_BATCH`; the same bytes as the ``csv`` module's writer (tested)."""
    from ._csv_kernels import csv_lines, csv_lines_bytes

    codes, uniques = table.coded
    cells = [csv_cell(t) for u in uniques for t in u] + [csv_cell(t) for t in distinct]
    enc = [t.encode("utf-8") for t in cells]
    boff = np.zeros(len(enc) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, enc), dtype=np.int64, count=len(enc)), out=boff[1:])
    blob = np.frombuffer(b"".join(enc), dtype=np.uint8) if boff[-1] else np.zeros(1, dtype=np.uint8)
    base = np.zeros(len(uniques), dtype=np.int64)
    np.cumsum([len(u) for u in uniques[:-1]], out=base[1:])
    extra = (which.astype(np.int64) + sum(len(u) for u in uniques)) if len(which) else np.zeros(0, dtype=np.int64)
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(list(table.columns) + [RANK, FIELD_ORDER])
    with atomic_open(path, binary=True) as fh:
        fh.write(buf.getvalue().encode("utf-8"))
        out = np.empty(0, dtype=np.uint8)
        for a in range(0, len(serve), CSV_BATCH):
            b = min(len(serve), a + CSV_BATCH)
            need = csv_lines_bytes(codes, base, boff, serve, a, b, extra)
            if len(out) < need:
                out = np.empty(need, dtype=np.uint8)
            p = csv_lines(out, codes, base, boff, blob, serve, a, b, extra)
            fh.write(memoryview(out[:p]))

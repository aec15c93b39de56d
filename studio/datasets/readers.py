"""Reading dataset files row by row: CSV, JSON Lines and JSON arrays, streamed.

Each reader yields ``(line, payload, errors, is a row)`` (`ParsedRow`) and never
holds the whole file: JSON lines go out as raw bytes (for pydantic's JSON parser),
a JSON array is decoded in chunks and parsed item by item, CSV goes through the
``csv`` module. Values are bounded at ``MAX_DEPTH`` levels of nesting.

Row errors carry a ``line`` (the file's line number for CSV and JSONL, where a
CSV record starts; for a JSON array, the 1-based position of the item, and the
file's line for a syntax or encoding error), a ``field`` (the column, with a
dotted path inside nested values; empty when the whole row is at fault) and a
``message``. Problems with the file as a whole (a CSV header missing a column,
broken JSON) stop the reading: they are reported once, not per row. A row error
after which nothing more could be read (malformed CSV quoting, a JSON item that
cannot be parsed) says so (``ends_reading``): the rows after it are unknown.
"""

from __future__ import annotations

import codecs
import csv
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from studio.common.jsondepth import MAX_DEPTH, TooDeep, exceeds_depth, loads
from studio.datasets.exceptions import DatasetError
from studio.datasets.models import Dataset

JsonDict = dict[str, Any]


RAW_MAX_CHARS = 200
"""The raw text of a bad row is kept up to this many characters."""


@dataclass(frozen=True)
class RowError:
    """One problem found in one row.

    Attributes:
        raw: the row's text as in the file (truncated), when known.
        ends_reading: nothing after this row could be read.
    """

    line: int
    field: str
    message: str
    raw: str = ""
    ends_reading: bool = False

    def as_json(self) -> JsonDict:
        found = {"line": self.line, "field": _text(self.field), "message": _text(self.message)}
        if self.raw:
            found["raw"] = _text(self.raw)
        return found


def truncated(text: str, limit: int = RAW_MAX_CHARS) -> str:
    """`text` without its line break, cut to `limit` characters (an ellipsis says it was)."""
    text = text.rstrip("\r\n")
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _text(value: str) -> str:
    """`value` as storable, renderable text: undecodable bytes (lone surrogates from the
    CSV reader) become U+FFFD, which JSON columns and responses accept."""
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


# (line, payload or None, errors, is a row): the payload is bytes for JSON lines, a
# dict otherwise; file-level problems (header, encoding of a whole JSON file) are
# not rows.
ParsedRow = tuple[int, bytes | JsonDict | None, list[RowError], bool]


class CsvColumns(Protocol):
    """What the CSV reader needs to know of the row schema (`validation.RowSchema`)."""

    required_columns: tuple[str, ...]
    structured_columns: frozenset[str]  # cells holding JSON (arrays, objects)
    optional_columns: frozenset[str]  # an empty cell is a missing value


def _iter_jsonl(path: Path) -> Iterator[ParsedRow]:
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            yield number, raw, [], True


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _iter_csv(path: Path, schema: CsvColumns) -> Iterator[ParsedRow]:
    # surrogateescape keeps undecodable bytes as lone surrogates, so a bad byte
    # is reported on its own line and field instead of aborting the whole file.
    with path.open(encoding="utf-8-sig", errors="surrogateescape", newline="") as handle:
        reader = csv.reader(handle, strict=True)
        try:
            header = next(reader)
        except StopIteration:
            yield 1, None, [RowError(1, "", "the file is empty: expected a header line")], False
            return
        except csv.Error as error:
            yield 1, None, [RowError(1, "", f"malformed CSV header: {error}")], False
            return
        header_errors = []
        for column in header:
            if _has_surrogates(column):
                header_errors.append(RowError(1, column, "the header is not valid UTF-8 text"))
        duplicates = sorted({c for c in header if header.count(c) > 1})
        for column in duplicates:
            header_errors.append(RowError(1, column, f"column {column!r} appears more than once"))
        for column in schema.required_columns:
            if column not in header:
                header_errors.append(
                    RowError(1, column, f"missing column {column!r} (header: {header})")
                )
        if header_errors:
            yield 1, None, header_errors, False
            return
        last_line = reader.line_num
        while True:
            start = last_line + 1
            try:
                cells = next(reader)
            except StopIteration:
                return
            except csv.Error as error:
                message = f"malformed CSV: {error}"
                yield start, None, [RowError(start, "", message, ends_reading=True)], True
                return
            last_line = reader.line_num
            if not cells or (len(cells) == 1 and not cells[0].strip()):
                continue
            errors: list[RowError] = []
            if len(cells) != len(header):
                errors.append(
                    RowError(
                        start,
                        "",
                        f"the line has {len(cells)} values but the header has "
                        f"{len(header)} columns",
                    )
                )
                yield start, None, errors, True
                continue
            row: JsonDict = {}
            for column, cell in zip(header, cells, strict=True):
                if _has_surrogates(cell):
                    errors.append(RowError(start, column, "the value is not valid UTF-8 text"))
                    continue
                if cell == "" and column in schema.optional_columns:
                    continue
                if column in schema.structured_columns:
                    try:
                        row[column] = loads(cell)
                    except TooDeep as error:
                        errors.append(RowError(start, column, f"the value is {error}"))
                    except ValueError as error:
                        errors.append(
                            RowError(start, column, f"expected JSON (array or object): {error}")
                        )
                    continue
                row[column] = cell
            yield start, (None if errors else row), errors, True


class _JsonArrayReader:
    """Reads the items of a top-level JSON array one at a time, in bounded memory.

    The file is decoded incrementally (1 MiB at a time) and each item parsed with
    `json.JSONDecoder.raw_decode`; consumed text is dropped as reading goes on.
    """

    CHUNK = 1 << 20

    def __init__(self, handle: Any) -> None:
        self.handle = handle
        self.decoder = codecs.getincrementaldecoder("utf-8-sig")("strict")
        self.buffer = ""
        self.pos = 0
        self.base_line = 1  # line number of buffer[0]
        self.eof = False

    def line(self, pos: int | None = None) -> int:
        return self.base_line + self.buffer.count("\n", 0, self.pos if pos is None else pos)

    def fill(self) -> bool:
        """Read more text; False at the end of the file. Raises UnicodeDecodeError."""
        if self.eof:
            return False
        if self.pos > self.CHUNK:
            self.base_line += self.buffer.count("\n", 0, self.pos)
            self.buffer = self.buffer[self.pos :]
            self.pos = 0
        chunk = self.handle.read(self.CHUNK)
        if not chunk:
            self.eof = True
            self.buffer += self.decoder.decode(b"", final=True)
            return False
        try:
            self.buffer += self.decoder.decode(chunk)
        except UnicodeDecodeError as error:
            newlines = self.buffer.count("\n", self.pos) + chunk[: error.start].count(b"\n")
            error.start = self.line() + newlines  # reused to carry the line number
            raise
        return True

    def next_char(self) -> str:
        """The next non-blank character (not consumed); empty at the end of the file."""
        while True:
            while self.pos < len(self.buffer) and self.buffer[self.pos] in " \t\r\n":
                self.pos += 1
            if self.pos < len(self.buffer):
                return self.buffer[self.pos]
            if not self.fill():
                return ""

    def value(self) -> Any:
        """Parse the value at the cursor.

        Raises:
            json.JSONDecodeError: not JSON (NaN and Infinity included, as for JSON Lines).
            TooDeep: nested deeper than Python can parse.
        """
        self.next_char()
        decoder = json.JSONDecoder(parse_constant=_refuse_constant)
        while True:
            try:
                item, end = decoder.raw_decode(self.buffer, self.pos)
            except json.JSONDecodeError:
                if self.fill():
                    continue
                raise
            except RecursionError:
                raise TooDeep(MAX_DEPTH) from None
            # A number cut by the chunk boundary parses too early: want one more character.
            if end >= len(self.buffer) and self.fill():
                continue
            self.pos = end
            return item


class _NotJsonConstant(ValueError):
    pass


def _refuse_constant(name: str) -> Any:
    raise _NotJsonConstant(f"{name} is not a JSON value")


def _iter_json(path: Path) -> Iterator[ParsedRow]:
    with path.open("rb") as handle:
        reader = _JsonArrayReader(handle)
        index = 0
        try:
            if reader.next_char() != "[":
                line = reader.line()
                yield (
                    line,
                    None,
                    [RowError(line, "", "expected a JSON array of row objects")],
                    False,
                )
                return
            reader.pos += 1
            if reader.next_char() == "]":
                reader.pos += 1
            else:
                while True:
                    try:
                        item = reader.value()
                    except TooDeep as error:
                        # Where the item ends is unknown past this point: stop reading.
                        line = reader.line()
                        message = f"item {index + 1} is {error}"
                        yield line, None, [RowError(line, "", message, ends_reading=True)], True
                        return
                    except _NotJsonConstant as error:
                        line = reader.line()
                        message = f"invalid JSON in item {index + 1}: {error}"
                        yield line, None, [RowError(line, "", message, ends_reading=True)], True
                        return
                    index += 1
                    if exceeds_depth(item, MAX_DEPTH):
                        message = f"item {index} is {TooDeep(MAX_DEPTH)}"
                        yield index, None, [RowError(index, "", message)], True
                    elif isinstance(item, dict):
                        yield index, item, [], True
                    else:
                        raw = truncated(json.dumps(item, ensure_ascii=False))
                        yield (
                            index,
                            None,
                            [RowError(index, "", f"item {index} is not an object", raw=raw)],
                            True,
                        )
                    separator = reader.next_char()
                    if separator == "]":
                        reader.pos += 1
                        break
                    if separator != ",":
                        line = reader.line()
                        found = repr(separator) if separator else "the end of the file"
                        message = (
                            f"invalid JSON: expected ',' or ']' after item {index}, found {found}"
                        )
                        yield line, None, [RowError(line, "", message)], False
                        return
                    reader.pos += 1
            if reader.next_char():
                line = reader.line()
                yield (
                    line,
                    None,
                    [RowError(line, "", "invalid JSON: extra data after the array")],
                    False,
                )
        except UnicodeDecodeError as error:
            line = error.start
            message = f"the file is not valid UTF-8 text ({error.reason})"
            yield line, None, [RowError(line, "", message)], False
        except json.JSONDecodeError as error:
            line = reader.line(error.pos)
            yield line, None, [RowError(line, "", f"invalid JSON: {error.msg}")], False


def iter_rows(dataset_format: str, path: Path, columns: CsvColumns) -> Iterator[ParsedRow]:
    """The rows of a file in `dataset_format` (csv, jsonl, json), as parsed, not validated.

    Raises:
        DatasetError: an unsupported format (``path`` ``format``).
    """
    if dataset_format == Dataset.Format.JSONL:
        return _iter_jsonl(path)
    if dataset_format == Dataset.Format.CSV:
        return _iter_csv(path, columns)
    if dataset_format == Dataset.Format.JSON:
        return _iter_json(path)
    raise DatasetError(f"unsupported format {dataset_format!r}", path="format")

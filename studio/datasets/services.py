"""Dataset operations: upload, row-by-row validation, splits and previews.

Uploaded files are read as streams, one row at a time, so validating a large
file costs little memory. Each row is checked against a *row model*: one flat
pydantic model holding the input fields and the output fields, each reading the
column named by ``column_mapping`` (field -> column, the field's own name by
default). JSONL lines go straight to pydantic's JSON parser; a JSON array is
decoded in chunks and parsed item by item; CSV goes through the ``csv`` module.

Row errors carry a ``line`` (the file's line number for CSV and JSONL, where a
CSV record starts; for a JSON array, the 1-based position of the item, and the
file's line for a syntax or encoding error), a ``field`` (the column, with a
dotted path inside nested values; empty when the whole row is at fault) and a
``message``. Problems with the file as a whole (a CSV header missing a column,
broken JSON) stop the reading: they are reported once, not per row.
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import json
import logging
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pydantic
from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone
from pydantic import ConfigDict

from optimizer_core import datasets as builtin_datasets
from optimizer_core.datamodels import DataModel, data_model_from_schema
from studio.celery import enqueue
from studio.common.jsondepth import MAX_DEPTH, TooDeep, exceeds_depth, loads
from studio.datasets.models import Dataset

logger = logging.getLogger(__name__)

JsonDict = dict[str, Any]

ERROR_CAP = 1000
"""At most this many row errors are stored; ``error_count`` keeps the total."""

VALIDATE_DATASET_TASK = "datasets.validate_dataset"
"""The task that validates an upload (`tasks.validate_dataset`), queued by name: it calls us."""

SPLITS = ("train", "test", "all")
_INPUT_PREFIX = "in__"
_OUTPUT_PREFIX = "out__"
_EXTENSIONS = {
    ".csv": Dataset.Format.CSV,
    ".jsonl": Dataset.Format.JSONL,
    ".ndjson": Dataset.Format.JSONL,
    ".json": Dataset.Format.JSON,
}


class DatasetError(ValueError):
    """A request about a dataset that cannot be honoured; ``field`` names the culprit."""

    def __init__(self, message: str, *, field: str = "") -> None:
        super().__init__(message)
        self.field = field


class UploadTooLarge(DatasetError):
    """The uploaded file is larger than ``settings.STUDIO_UPLOAD_MAX_BYTES``."""


@dataclass(frozen=True)
class RowError:
    """One problem found in one row."""

    line: int
    field: str
    message: str

    def as_json(self) -> JsonDict:
        return {"line": self.line, "field": _text(self.field), "message": _text(self.message)}


def _text(value: str) -> str:
    """`value` as storable, renderable text: undecodable bytes (lone surrogates from the
    CSV reader) become U+FFFD, which JSON columns and responses accept."""
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


@dataclass
class ValidationReport:
    """What validating a whole file found."""

    row_count: int = 0
    error_count: int = 0
    errors: list[RowError] = field(default_factory=list)

    def add(self, error: RowError) -> None:
        self.error_count += 1
        if len(self.errors) < ERROR_CAP:
            self.errors.append(error)

    @property
    def valid(self) -> bool:
        return self.error_count == 0 and self.row_count > 0


# --------------------------------------------------------------------------- schemas


def _ref_name(ref: Any) -> str:
    # As optimizer_core resolves it: the last segment, looked up in ``$defs``.
    return str(ref).rsplit("/", 1)[-1]


def _schema_problem(schema: JsonDict, argument: str) -> DatasetError | None:
    """The first structural problem of a schema that the builder would trip on, or None.

    Empty ``type`` / ``anyOf`` / ``oneOf`` / ``allOf`` lists and ``$ref`` cycles
    (recursive models, which DataModels cannot express), each with its path.
    """
    if exceeds_depth(schema, MAX_DEPTH):
        return DatasetError(
            f"`{argument}` is nested deeper than {MAX_DEPTH} levels", field=argument
        )
    defs = schema.get("$defs")
    defs = defs if isinstance(defs, dict) else {}
    refs_in: dict[str, list[tuple[str, str]]] = {}  # def name -> [(ref name, path)]
    stack: list[tuple[Any, str, str | None]] = [(schema, argument, None)]
    while stack:
        node, path, owner = stack.pop()
        if isinstance(node, list):
            stack.extend((item, f"{path}[{i}]", owner) for i, item in enumerate(node))
            continue
        if not isinstance(node, dict):
            continue
        if node.get("type") == []:
            return DatasetError(f"`{path}.type` is an empty list", field=f"{path}.type")
        for key in ("anyOf", "oneOf", "allOf"):
            if key in node and (not isinstance(node[key], list) or not node[key]):
                return DatasetError(
                    f"`{path}.{key}` must be a non-empty list of schemas", field=f"{path}.{key}"
                )
        if "$ref" in node:
            refs_in.setdefault(owner or "", []).append((_ref_name(node["$ref"]), path))
        for key, value in node.items():
            if path == argument and key == "$defs" and isinstance(value, dict):
                stack.extend((v, f"{path}.$defs.{k}", str(k)) for k, v in value.items())
            else:
                stack.append((value, f"{path}.{key}", owner))
    return _ref_cycle(refs_in, defs)


def _ref_cycle(refs_in: dict[str, list[tuple[str, str]]], defs: JsonDict) -> DatasetError | None:
    """A ``$ref`` cycle reachable from the schema's own properties (iterative DFS)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: explored
    for start, _ in refs_in.get("", []):
        if start not in defs or start in state:
            continue
        state[start] = 1
        stack = [(start, iter(refs_in.get(start, [])))]
        while stack:
            name, children = stack[-1]
            for target, ref_path in children:
                if target not in defs or state.get(target) == 2:
                    continue
                if state.get(target) == 1:
                    return DatasetError(
                        f"`{ref_path}.$ref` refers back to {target!r}: recursive schemas "
                        "are not supported",
                        field=f"{ref_path}.$ref",
                    )
                state[target] = 1
                stack.append((target, iter(refs_in.get(target, []))))
                break
            else:
                state[name] = 2
                stack.pop()
    return None


def build_data_model(schema: Any, *, argument: str, name: str) -> type[DataModel]:
    """Build a DataModel from a JSON schema, naming `argument` when it is unusable.

    Raises:
        DatasetError: the schema is not an object schema optimizer_core understands
            (with the path of the culprit where it is known).
    """
    if not isinstance(schema, dict):
        raise DatasetError(f"`{argument}` must be a JSON object schema", field=argument)
    problem = _schema_problem(schema, argument)
    if problem is not None:
        raise problem
    try:
        return data_model_from_schema(schema, name=name)
    except (ValueError, TypeError, KeyError, pydantic.PydanticUserError) as error:
        raise DatasetError(
            f"`{argument}` is not a usable schema: {error}", field=argument
        ) from None
    except Exception as error:  # anything else the builder trips on is still the schema's
        logger.warning("`%s` could not be built: %r", argument, error)
        raise DatasetError(
            f"`{argument}` is not a usable schema ({type(error).__name__}: {error})",
            field=argument,
        ) from None


def check_column_mapping(
    column_mapping: Any, *, input_model: type[DataModel], output_model: type[DataModel]
) -> dict[str, str]:
    """Check that `column_mapping` maps known fields to column names.

    Raises:
        DatasetError: not a dict of strings, or a key that is no input / output field.
    """
    if column_mapping in (None, ""):
        return {}
    if not isinstance(column_mapping, dict):
        raise DatasetError(
            "`column_mapping` must be an object {field: column}", field="column_mapping"
        )
    known = set(input_model.model_fields) | set(output_model.model_fields)
    for key, value in column_mapping.items():
        if key not in known:
            raise DatasetError(
                f"`column_mapping` names {key!r}, which is not a field of the input or output "
                f"schema (fields: {sorted(known)})",
                field=f"column_mapping.{key}",
            )
        if not isinstance(value, str) or not value:
            raise DatasetError(
                f"`column_mapping.{key}` must be a non-empty column name, got {value!r}",
                field=f"column_mapping.{key}",
            )
    return dict(column_mapping)


@dataclass(frozen=True)
class RowSchema:
    """The row model of a dataset and what is needed to read rows into it."""

    model: type[pydantic.BaseModel]
    input_fields: dict[str, str]  # row-model attribute -> data-model field
    output_fields: dict[str, str]
    required_columns: tuple[str, ...]
    structured_columns: frozenset[str]  # CSV cells holding JSON (arrays, objects)
    optional_columns: frozenset[str]

    def split(self, row: pydantic.BaseModel) -> tuple[JsonDict, JsonDict]:
        dumped = row.model_dump(mode="json")
        inputs = {name: dumped[attr] for attr, name in self.input_fields.items()}
        outputs = {name: dumped[attr] for attr, name in self.output_fields.items()}
        return inputs, outputs


def _is_structured(schema: JsonDict) -> bool:
    """Whether a property's values are arrays or objects (kept as JSON text in a CSV cell)."""
    if "$ref" in schema or schema.get("type") in ("array", "object"):
        return True
    kind = schema.get("type")
    if isinstance(kind, list) and ("array" in kind or "object" in kind):
        return True
    return any(
        _is_structured(option)
        for key in ("anyOf", "oneOf")
        for option in schema.get(key, [])
        if isinstance(option, dict)
    )


def row_schema(dataset: Dataset) -> RowSchema:
    """The row model of a dataset, from its schemas and column mapping.

    Raises:
        DatasetError: a schema or the mapping is unusable.
    """
    input_model = build_data_model(dataset.input_schema, argument="input_schema", name="Inputs")
    output_model = build_data_model(dataset.output_schema, argument="output_schema", name="Outputs")
    mapping = check_column_mapping(
        dataset.column_mapping, input_model=input_model, output_model=output_model
    )
    definitions: dict[str, Any] = {}
    input_fields: dict[str, str] = {}
    output_fields: dict[str, str] = {}
    required: list[str] = []
    structured: set[str] = set()
    optional: set[str] = set()
    for prefix, model, target in (
        (_INPUT_PREFIX, input_model, input_fields),
        (_OUTPUT_PREFIX, output_model, output_fields),
    ):
        properties = model.model_json_schema().get("properties", {})
        for name, info in model.model_fields.items():
            column = mapping.get(name, name)
            attr = f"{prefix}{name}"
            target[attr] = name
            default = ... if info.is_required() else info.default
            definitions[attr] = (
                info.annotation,
                pydantic.Field(default=default, validation_alias=column),
            )
            if info.is_required():
                required.append(column)
            else:
                optional.add(column)
            if _is_structured(properties.get(name, {})):
                structured.add(column)
    model_cls = pydantic.create_model(
        "DatasetRow", __config__=ConfigDict(extra="ignore"), **definitions
    )
    return RowSchema(
        model=model_cls,
        input_fields=input_fields,
        output_fields=output_fields,
        required_columns=tuple(dict.fromkeys(required)),
        structured_columns=frozenset(structured),
        optional_columns=frozenset(optional),
    )


# --------------------------------------------------------------------------- reading rows


def _location(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc)


def _pydantic_errors(line: int, error: pydantic.ValidationError) -> list[RowError]:
    found = []
    for item in error.errors(include_url=False):
        loc = tuple(item.get("loc", ()))
        message = str(item.get("msg", "invalid value"))
        if item.get("type") == "missing" and len(loc) == 1:
            message = "missing value (required field)"
        found.append(RowError(line, _location(loc), message))
    return found


# (line, payload or None, errors, is a row): the payload is bytes for JSON lines, a
# dict otherwise; file-level problems (header, encoding of a whole JSON file) are
# not rows.
ParsedRow = tuple[int, bytes | JsonDict | None, list[RowError], bool]


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


def _iter_csv(path: Path, schema: RowSchema) -> Iterator[ParsedRow]:
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
                yield start, None, [RowError(start, "", f"malformed CSV: {error}")], True
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
                        yield line, None, [RowError(line, "", message)], True
                        return
                    except _NotJsonConstant as error:
                        line = reader.line()
                        message = f"invalid JSON in item {index + 1}: {error}"
                        yield line, None, [RowError(line, "", message)], True
                        return
                    index += 1
                    if exceeds_depth(item, MAX_DEPTH):
                        message = f"item {index} is {TooDeep(MAX_DEPTH)}"
                        yield index, None, [RowError(index, "", message)], True
                    elif isinstance(item, dict):
                        yield index, item, [], True
                    else:
                        yield (
                            index,
                            None,
                            [RowError(index, "", f"item {index} is not an object")],
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


def _iter_rows(dataset_format: str, path: Path, schema: RowSchema) -> Iterator[ParsedRow]:
    if dataset_format == Dataset.Format.JSONL:
        return _iter_jsonl(path)
    if dataset_format == Dataset.Format.CSV:
        return _iter_csv(path, schema)
    if dataset_format == Dataset.Format.JSON:
        return _iter_json(path)
    raise DatasetError(f"unsupported format {dataset_format!r}", field="format")


def _validate_payload(
    line: int, payload: bytes | JsonDict, schema: RowSchema
) -> tuple[pydantic.BaseModel | None, list[RowError]]:
    if isinstance(payload, bytes) and payload.count(b"[") + payload.count(b"{") > MAX_DEPTH:
        # Possibly nested deeper than the limit (pydantic's own parser allows more).
        try:
            loads(payload)
        except TooDeep as error:
            return None, [RowError(line, "", f"the line is {error}")]
        except ValueError:
            pass  # not JSON: pydantic names the problem below
    try:
        if isinstance(payload, bytes):
            return schema.model.model_validate_json(payload), []
        return schema.model.model_validate(payload), []
    except pydantic.ValidationError as error:
        if isinstance(payload, bytes) and any(e["type"] == "json_invalid" for e in error.errors()):
            try:
                payload.decode("utf-8")
            except UnicodeDecodeError as decode_error:
                return None, [
                    RowError(line, "", f"the line is not valid UTF-8 text ({decode_error.reason})")
                ]
            message = error.errors(include_url=False)[0]["msg"]
            return None, [RowError(line, "", message)]
        return None, _pydantic_errors(line, error)


ValidatedRow = tuple[int, pydantic.BaseModel | None, list[RowError], bool]


def iter_validated_rows(
    dataset_format: str, path: Path, schema: RowSchema
) -> Iterator[ValidatedRow]:
    """Every row of a file, parsed and validated: ``(line, row or None, errors, is a row)``."""
    for line, payload, errors, is_row in _iter_rows(dataset_format, path, schema):
        if errors or payload is None:
            yield line, None, errors, is_row
            continue
        row, row_errors = _validate_payload(line, payload, schema)
        yield line, row, row_errors, is_row


def validate_file(dataset_format: str, path: Path, schema: RowSchema) -> ValidationReport:
    """Validate every row of a file against a row schema (streamed; errors capped)."""
    report = ValidationReport()
    for _line, _row, errors, is_row in iter_validated_rows(dataset_format, path, schema):
        if is_row:
            report.row_count += 1
        for error in errors:
            report.add(error)
    if report.row_count == 0 and report.error_count == 0:
        report.add(RowError(1, "", "the file has no rows"))
    return report


# --------------------------------------------------------------------------- services


def detect_format(file_name: str) -> str:
    """The dataset format from a file name's extension.

    Raises:
        DatasetError: an extension other than .csv, .jsonl, .ndjson or .json.
    """
    suffix = Path(file_name).suffix.lower()
    if suffix not in _EXTENSIONS:
        raise DatasetError(
            f"cannot tell the format of {file_name!r}: use a .csv, .jsonl or .json file, "
            "or give `format`",
            field="file",
        )
    return str(_EXTENSIONS[suffix])


def _check_split_arguments(test_fraction: float, split_seed: int) -> None:
    if not 0.0 <= test_fraction < 1.0:
        raise DatasetError(
            f"`test_fraction` must be >= 0 and < 1, got {test_fraction}", field="test_fraction"
        )
    if isinstance(split_seed, bool) or not isinstance(split_seed, int):
        raise DatasetError(f"`split_seed` must be an int, got {split_seed!r}", field="split_seed")


def create_dataset_from_upload(
    *,
    owner: Any,
    name: str,
    uploaded_file: UploadedFile,
    input_schema: JsonDict,
    output_schema: JsonDict,
    column_mapping: dict[str, str] | None = None,
    test_fraction: float = 0.2,
    split_seed: int = 0,
    description: str = "",
    dataset_format: str | None = None,
    queue_validation: bool = True,
) -> Dataset:
    """Store an uploaded file as a dataset and queue its validation.

    The file is read once in chunks to compute its size and sha256; nothing is
    stored when the schemas, the mapping or the size are refused.

    Args:
        queue_validation: queue `validate_dataset` after the commit (default);
            False leaves the validation to the caller.

    Raises:
        UploadTooLarge: the file exceeds ``settings.STUDIO_UPLOAD_MAX_BYTES``.
        DatasetError: unusable schemas / mapping / split arguments / format.
    """
    file_format = dataset_format or detect_format(uploaded_file.name or "")
    if file_format not in (Dataset.Format.CSV, Dataset.Format.JSONL, Dataset.Format.JSON):
        raise DatasetError(
            f"`format` must be csv, jsonl or json, got {file_format!r}", field="format"
        )
    _check_split_arguments(test_fraction, split_seed)
    candidate = Dataset(
        owner=owner,
        name=name,
        description=description,
        format=file_format,
        input_schema=input_schema,
        output_schema=output_schema,
        column_mapping=column_mapping or {},
        test_fraction=test_fraction,
        split_seed=split_seed,
    )
    row_schema(candidate)  # refuses unusable schemas / mappings before anything is stored

    limit = settings.STUDIO_UPLOAD_MAX_BYTES
    digest = hashlib.sha256()
    size = 0
    for chunk in uploaded_file.chunks():
        size += len(chunk)
        if size > limit:
            raise UploadTooLarge(
                f"the file is larger than the upload limit of {limit} bytes", field="file"
            )
        digest.update(chunk)
    uploaded_file.seek(0)
    candidate.size_bytes = size
    candidate.sha256 = digest.hexdigest()

    with transaction.atomic():
        candidate.file.save(Path(uploaded_file.name or "upload").name, uploaded_file, save=False)
        try:
            candidate.save()
        except Exception:
            candidate.file.delete(save=False)
            raise
        dataset_id = candidate.pk
        if queue_validation:
            transaction.on_commit(lambda: enqueue_validation(dataset_id))
    return candidate


def enqueue_validation(dataset_id: int) -> None:
    """Queue `validate_dataset` for a dataset (called after the commit)."""
    try:
        enqueue(VALIDATE_DATASET_TASK, dataset_id)
    except Exception:  # the row is committed; it stays "uploaded" and can be revalidated
        logger.exception("dataset %s: could not queue its validation", dataset_id)


def failure_reason(error: BaseException) -> str:
    """The reason stored on a dataset whose validation failed unexpectedly."""
    return f"the file could not be validated ({type(error).__name__}: {error})"[:1000]


def mark_invalid(dataset_id: int, reason: str) -> None:
    """End a dataset's validation as ``invalid`` with one file-level error."""
    Dataset.objects.filter(pk=dataset_id).update(
        status=Dataset.Status.INVALID,
        error_count=1,
        errors=[RowError(0, "file", reason).as_json()],
        validated_at=timezone.now(),
    )


def validate_dataset(dataset: Dataset) -> Dataset:
    """Validate every row of a dataset's file and store the report.

    The dataset ends ``valid`` (every row fits) or ``invalid`` (with its capped
    errors and their total), whatever goes wrong on the way: a failure of the
    validation itself is stored as the reason. Built-in datasets are valid by
    construction.
    """
    if dataset.format == Dataset.Format.BUILTIN:
        dataset.status = Dataset.Status.VALID
        dataset.validated_at = timezone.now()
        dataset.save(update_fields=["status", "validated_at"])
        return dataset
    Dataset.objects.filter(pk=dataset.pk).update(status=Dataset.Status.VALIDATING)
    try:
        schema = row_schema(dataset)
        report = validate_file(dataset.format, Path(dataset.file.path), schema)
    except DatasetError as error:
        report = ValidationReport()
        report.add(RowError(0, error.field, str(error)))
    except OSError as error:
        logger.exception("dataset %s: cannot read its file", dataset.pk)
        report = ValidationReport()
        report.add(RowError(0, "file", f"the stored file cannot be read: {error}"))
    except Exception as error:  # whatever it is, the dataset must not stay "validating"
        logger.exception("dataset %s: validation failed", dataset.pk)
        report = ValidationReport()
        report.add(RowError(0, "file", failure_reason(error)))
    dataset.row_count = report.row_count
    dataset.error_count = report.error_count
    dataset.errors = [e.as_json() for e in report.errors]
    dataset.status = Dataset.Status.VALID if report.valid else Dataset.Status.INVALID
    dataset.validated_at = timezone.now()
    dataset.save(update_fields=["row_count", "error_count", "errors", "status", "validated_at"])
    return dataset


# --------------------------------------------------------------------------- built-ins


def builtin_catalogue() -> list[JsonDict]:
    """The built-in datasets, each with its input / output JSON schemas."""
    entries = []
    for entry in builtin_datasets.catalogue():
        module = builtin_datasets.get(entry["name"])
        entries.append(
            {
                **entry,
                "input_schema": module.get_input_data_model().get_schema(),
                "output_schema": _builtin_output_schema(module),
            }
        )
    return entries


def _builtin_output_schema(module: Any) -> JsonDict | None:
    # Some output models are built from the data (banking77's intents): None
    # when those files are not available here.
    try:
        return module.get_output_data_model().get_schema()  # type: ignore[no-any-return]
    except (OSError, ValueError):
        return None


def create_builtin_dataset(
    *,
    owner: Any,
    builtin_name: str,
    name: str = "",
    limit: int | None = None,
    description: str = "",
) -> Dataset:
    """Create a dataset from a built-in of `optimizer_core.datasets` (gsm8k, banking77).

    The data files are found through ``$OPTIMIZER_CORE_DATA_DIR`` (or the cache);
    they are read once here to check they are present and to count rows.

    Raises:
        DatasetError: unknown name, bad limit, or the data files cannot be found.
    """
    try:
        module = builtin_datasets.get(builtin_name)
    except (ValueError, TypeError) as error:
        raise DatasetError(str(error), field="builtin_name") from None
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise DatasetError(f"`limit` must be an int >= 1, got {limit!r}", field="limit")
    try:
        (x_train, _), (x_test, _) = module.load_data(limit=limit)
    except (OSError, ValueError) as error:
        raise DatasetError(
            f"the {module.NAME} data cannot be loaded: {error}", field="builtin_name"
        ) from None
    input_model = module.get_input_data_model()
    output_model = module.get_output_data_model()
    with transaction.atomic():
        dataset = Dataset.objects.create(
            owner=owner,
            name=name or module.INFO["title"],
            description=description or module.INFO["description"],
            format=Dataset.Format.BUILTIN,
            builtin_name=module.NAME,
            builtin_limit=limit,
            input_schema=input_model.get_schema(),
            output_schema=output_model.get_schema(),
            status=Dataset.Status.VALID,
            row_count=len(x_train) + len(x_test),
            test_fraction=len(x_test) / max(1, len(x_train) + len(x_test)),
            validated_at=timezone.now(),
        )
    return dataset


def _load_builtin(
    dataset: Dataset, split: str, *, limit: int | None = None
) -> tuple[list[JsonDict], list[JsonDict]]:
    module = builtin_datasets.get(dataset.builtin_name)
    rows_limit = dataset.builtin_limit
    if limit is not None:
        rows_limit = min(limit, rows_limit) if rows_limit else limit
    (x_train, y_train), (x_test, y_test) = module.load_data(limit=rows_limit)
    chosen: list[tuple[Any, Any]] = []
    if split in ("train", "all"):
        chosen.extend(zip(x_train, y_train, strict=True))
    if split in ("test", "all"):
        chosen.extend(zip(x_test, y_test, strict=True))
    return [x.get_json() for x, _ in chosen], [y.get_json() for _, y in chosen]


# --------------------------------------------------------------------------- reading examples


def split_indices(count: int, *, test_fraction: float, seed: int) -> tuple[list[int], list[int]]:
    """Deterministic train / test row indices (each list in file order).

    ``round(count * test_fraction)`` rows, drawn with `random.Random(seed)`, go
    to the test split; the same arguments always give the same split.
    """
    test_size = min(count, max(0, round(count * test_fraction)))
    order = list(range(count))
    random.Random(seed).shuffle(order)
    test = sorted(order[:test_size])
    test_set = set(test)
    train = [i for i in range(count) if i not in test_set]
    return train, test


def load_examples(dataset: Dataset, *, split: str) -> tuple[list[JsonDict], list[JsonDict]]:
    """The rows of a valid dataset as ``(input dicts, output dicts)``.

    Args:
        dataset: a dataset whose status is ``valid``.
        split: ``"train"``, ``"test"`` or ``"all"``. Uploads are split
            deterministically by ``test_fraction`` and ``split_seed``; built-ins
            keep their published train / test splits.

    Raises:
        ValueError: the dataset is not valid, or `split` is unknown.

    Example:
        ```python
        x_train, y_train = load_examples(dataset, split="train")
        x_train[0]  # {"query": "What is the capital of France?"}
        ```
    """
    if split not in SPLITS:
        raise ValueError(f"`split` must be one of {list(SPLITS)}, got {split!r}")
    if dataset.status != Dataset.Status.VALID:
        raise ValueError(
            f"dataset {dataset.pk} ({dataset.name!r}) is {dataset.status}, not valid: "
            "only a dataset whose every row validates can be used"
        )
    if dataset.format == Dataset.Format.BUILTIN:
        return _load_builtin(dataset, split)
    schema = row_schema(dataset)
    inputs: list[JsonDict] = []
    outputs: list[JsonDict] = []
    for line, row, errors, _ in iter_validated_rows(
        dataset.format, Path(dataset.file.path), schema
    ):
        if row is None:
            detail = errors[0].message if errors else "unreadable row"
            raise ValueError(f"dataset {dataset.pk}: line {line} no longer validates: {detail}")
        row_inputs, row_outputs = schema.split(row)
        inputs.append(row_inputs)
        outputs.append(row_outputs)
    if split == "all":
        return inputs, outputs
    train, test = split_indices(
        len(inputs), test_fraction=dataset.test_fraction, seed=dataset.split_seed
    )
    chosen = train if split == "train" else test
    return [inputs[i] for i in chosen], [outputs[i] for i in chosen]


def preview_rows(dataset: Dataset, *, limit: int = 20) -> list[JsonDict]:
    """The first rows as parsed: ``[{line, input, output, errors}]``.

    A row that does not validate has ``input`` / ``output`` None and its errors.
    """
    if dataset.format == Dataset.Format.BUILTIN:
        inputs, outputs = _load_builtin(dataset, "train", limit=limit)
        return [
            {"line": i + 1, "input": x, "output": y, "errors": []}
            for i, (x, y) in enumerate(zip(inputs, outputs, strict=True))
        ]
    try:
        schema = row_schema(dataset)
    except DatasetError as error:
        return [
            {
                "line": 0,
                "input": None,
                "output": None,
                "errors": [RowError(0, error.field, str(error)).as_json()],
            }
        ]
    rows: list[JsonDict] = []
    for line, row, errors, _ in iter_validated_rows(
        dataset.format, Path(dataset.file.path), schema
    ):
        if len(rows) >= limit:
            break
        if row is None:
            rows.append(
                {
                    "line": line,
                    "input": None,
                    "output": None,
                    "errors": [e.as_json() for e in errors],
                }
            )
            continue
        row_inputs, row_outputs = schema.split(row)
        rows.append({"line": line, "input": row_inputs, "output": row_outputs, "errors": []})
    return rows


def delete_dataset(dataset: Dataset) -> None:
    """Delete a dataset and its stored file.

    Raises:
        django.db.models.ProtectedError: a run still uses it.
    """
    stored = dataset.file.name if dataset.file else ""
    storage = dataset.file.storage if dataset.file else None
    with transaction.atomic():
        dataset.delete()
    if stored and storage is not None:
        transaction.on_commit(lambda: storage.delete(stored))

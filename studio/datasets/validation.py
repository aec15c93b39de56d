"""Validating dataset rows: the row schema of a dataset, and the report of a whole file.

Each row is checked against a *row model*: one flat pydantic model holding the
input fields and the output fields, each reading the column named by
``column_mapping`` (field -> column, the field's own name by default). The
input / output schemas are refused up front, with the path of the culprit, when
the DataModel builder would trip on them (`studio.common.schemas.build_data_model`:
empty type lists, ``$ref`` cycles, nesting past ``MAX_DEPTH``).
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pydantic
from pydantic import ConfigDict

from optimizer_core.datamodels import DataModel
from studio.common.jsondepth import MAX_DEPTH, TooDeep, loads
from studio.common.schemas import build_data_model
from studio.datasets.exceptions import DatasetError
from studio.datasets.models import Dataset
from studio.datasets.readers import RowError, iter_rows, truncated

logger = logging.getLogger(__name__)

JsonDict = dict[str, Any]

ERROR_CAP = 1000
"""At most this many row errors are stored; ``error_count`` keeps the total."""

_INPUT_PREFIX = "in__"
_OUTPUT_PREFIX = "out__"


@dataclass
class ValidationReport:
    """What validating a whole file found.

    Attributes:
        row_count: rows read, good and bad.
        bad_rows: rows with an error (their lines in `bad_lines`, capped).
        whole_file: an error that is no single row's (a header, broken JSON
            structure), or a row after which the file could not be read further:
            the good rows cannot be kept without it.
    """

    row_count: int = 0
    error_count: int = 0
    errors: list[RowError] = field(default_factory=list)
    bad_rows: int = 0
    bad_lines: list[int] = field(default_factory=list)
    whole_file: bool = False

    def add(self, error: RowError) -> None:
        self.error_count += 1
        if len(self.errors) < ERROR_CAP:
            self.errors.append(error)

    def add_bad_row(self, line: int) -> None:
        self.bad_rows += 1
        if len(self.bad_lines) < ERROR_CAP:
            self.bad_lines.append(line)

    @property
    def valid(self) -> bool:
        return self.error_count == 0 and self.row_count > 0

    @property
    def good_rows(self) -> int:
        return self.row_count - self.bad_rows

    @property
    def usable_without_bad_rows(self) -> bool:
        """Dropping the bad rows leaves a usable dataset: every problem is one row's."""
        return not self.whole_file and self.good_rows > 0


# --------------------------------------------------------------------------- schemas


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
            "`column_mapping` must be an object {field: column}", path="column_mapping"
        )
    known = set(input_model.model_fields) | set(output_model.model_fields)
    for key, value in column_mapping.items():
        if key not in known:
            raise DatasetError(
                f"`column_mapping` names {key!r}, which is not a field of the input or output "
                f"schema (fields: {sorted(known)})",
                path=f"column_mapping.{key}",
            )
        if not isinstance(value, str) or not value:
            raise DatasetError(
                f"`column_mapping.{key}` must be a non-empty column name, got {value!r}",
                path=f"column_mapping.{key}",
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
    input_model = build_data_model(
        dataset.input_schema, argument="input_schema", name="Inputs", error=DatasetError
    )
    output_model = build_data_model(
        dataset.output_schema, argument="output_schema", name="Outputs", error=DatasetError
    )
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


# --------------------------------------------------------------------------- validating rows


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


def validate_row(
    line: int, payload: bytes | JsonDict, schema: RowSchema
) -> tuple[pydantic.BaseModel | None, list[RowError]]:
    """One row as the reader gave it, validated against the row schema (and its errors)."""
    return _validate_payload(line, payload, schema)


ValidatedRow = tuple[int, pydantic.BaseModel | None, list[RowError], bool]


def _payload_text(payload: bytes | JsonDict) -> str:
    if isinstance(payload, bytes):
        return truncated(payload.decode("utf-8", "replace"))
    return truncated(json.dumps(payload, ensure_ascii=False, default=str))


def iter_validated_rows(
    dataset_format: str, path: Path, schema: RowSchema
) -> Iterator[ValidatedRow]:
    """Every row of a file, parsed and validated: ``(line, row or None, errors, is a row)``.

    A JSON line's or a JSON item's errors carry its text (``raw``); a CSV row's
    text is read back from the file by `with_raw_lines`.
    """
    for line, payload, errors, is_row in iter_rows(dataset_format, path, schema):
        if errors or payload is None:
            yield line, None, errors, is_row
            continue
        row, row_errors = _validate_payload(line, payload, schema)
        if row_errors and dataset_format != Dataset.Format.CSV:
            raw = _payload_text(payload)
            row_errors = [dataclasses.replace(e, raw=e.raw or raw) for e in row_errors]
        yield line, row, row_errors, is_row


def with_raw_lines(errors: list[RowError], path: Path) -> list[RowError]:
    """`errors`, each with its line's text from the file (for CSV, whose rows are parsed
    into cells): one pass up to the last line named, every line cut to ``RAW_MAX_CHARS``."""
    wanted = {e.line for e in errors if e.line > 0 and not e.raw}
    if not wanted:
        return errors
    last = max(wanted)
    found: dict[int, str] = {}
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if number in wanted:
                text = raw.decode("utf-8", "replace")
                found[number] = truncated(text.removeprefix("\ufeff") if number == 1 else text)
            if number >= last:
                break
    return [
        dataclasses.replace(e, raw=found[e.line]) if not e.raw and e.line in found else e
        for e in errors
    ]


def validate_file(dataset_format: str, path: Path, schema: RowSchema) -> ValidationReport:
    """Validate every row of a file against a row schema (streamed; errors capped).

    Each stored error carries the text of its row (``raw``, truncated) when known.
    """
    report = ValidationReport()
    for line, _row, errors, is_row in iter_validated_rows(dataset_format, path, schema):
        if is_row:
            report.row_count += 1
        if errors:
            if is_row and not any(e.ends_reading for e in errors):
                report.add_bad_row(line)
            else:
                report.whole_file = True
        for error in errors:
            report.add(error)
    if report.row_count == 0 and report.error_count == 0:
        report.add(RowError(1, "", "the file has no rows"))
    if dataset_format == Dataset.Format.CSV:
        report.errors = with_raw_lines(report.errors, path)
    return report

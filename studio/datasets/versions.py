"""Dataset versions: immutable states of a dataset's rows, stored as deltas.

Why deltas over the upload. A dataset of a million rows is edited a row at a time
(a typo fixed in the browser, a wrong prediction corrected into it): a version that
copied its rows would cost the whole dataset per edit. Version 1 is the dataset's own
file as validated (or the built-in), streamed and never copied; every later version
stores only the rows it added, removed or edited against its parent
(`DatasetRowChange`, with their content before and after, which is also the diff the
browser shows). Reading a version streams version 1's rows and applies the changes of
its ancestry (held in memory: only the changed rows), so a version costs its changes,
and reading one costs what reading the upload costs.

Row identity. Rows are numbered once: version 1's rows are 1..n in file order (the
rows kept when bad ones were dropped), an added row takes the version's
``next_row_id``; an edit keeps the number. A row's split is fixed when it enters:
version 1's by the dataset's ``test_fraction`` and ``split_seed`` over its n rows (as
the studio always split it, so runs trained before versions existed keep their test
rows), an added row's as chosen (``train``, ``test``, or ``auto``: drawn from its
content hash at the dataset's test fraction, so the same row always lands the same
way). Adding rows therefore never moves an old row to the other split.

Digest. Version 1 keeps a row index beside its file: each row's sha256 (`row_hash`,
32 bytes, in row order), written by a pass of its own once the upload is valid (the
``datasets.index_dataset`` task: hashing every row would triple the validation's time,
and the dataset is usable before its index exists), or on first need by
`ensure_index` (a new version needs it; datasets from before versions get it so).
A version's digest is the
sha256 over its rows' split flags and hashes in row order, computed from that index
and the changes without reading a row: a version of a million rows digests in tens
of milliseconds (``bench/dataset_versions``). Runs key each test row by the same hash
(`row_key`), which is what pairs two runs on the rows they share.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pydantic
from django.core.files.base import ContentFile
from django.db import transaction

from studio.common.exceptions import FieldError
from studio.common.schemas import build_data_model
from studio.datasets.exceptions import DatasetError, VersionTooLarge
from studio.datasets.models import Dataset, DatasetRowChange, DatasetVersion
from studio.datasets.splits import split_indices

logger = logging.getLogger(__name__)

JsonDict = dict[str, Any]
Op = DatasetRowChange.Op
Source = DatasetVersion.Source

TRAIN, TEST = "train", "test"
ROW_SPLITS = (TRAIN, TEST)
ADD_SPLITS = (TRAIN, TEST, "auto")
MAX_CHANGES = 10_000
"""Rows one new version may add, remove or edit (a bigger change is an upload)."""
HASH_BYTES = 32


@dataclass(frozen=True)
class Row:
    """One row of a version: its number, its split, its inputs and its targets."""

    row_id: int
    split: str
    input: JsonDict
    output: JsonDict


# --------------------------------------------------------------------------- hashing


def _canonical(inputs: Any, outputs: Any) -> bytes:
    # The serialisation runs already digest their test rows with (significance.rows_digest).
    return json.dumps([inputs, outputs], sort_keys=True, default=str).encode()


def row_hash(inputs: Any, outputs: Any) -> str:
    """sha256 of one row's inputs and targets (hex): its identity across versions."""
    return hashlib.sha256(_canonical(inputs, outputs)).hexdigest()


def row_key(inputs: Any, outputs: Any) -> str:
    """The short key a run stores per test row (64 bits of `row_hash`)."""
    return row_hash(inputs, outputs)[:16]


class RowIndex:
    """Each row's 32-byte sha256, in row order, as version 1's index file holds them."""

    def __init__(self) -> None:
        self._hashes = bytearray()

    def add(self, inputs: Any, outputs: Any) -> None:
        self._hashes += hashlib.sha256(_canonical(inputs, outputs)).digest()

    def __len__(self) -> int:
        return len(self._hashes) // HASH_BYTES

    def content(self) -> bytes:
        return bytes(self._hashes)


def _auto_split(hash_hex: str, test_fraction: float) -> str:
    return TEST if int(hash_hex[:8], 16) / 2**32 < test_fraction else TRAIN


# --------------------------------------------------------------------------- version 1


def _base_test_flags(base: DatasetVersion) -> np.ndarray:
    """Whether each of version 1's rows is a test row (row i at index i - 1)."""
    dataset = base.dataset
    count = base.row_count
    flags = np.zeros(count, dtype=bool)
    if dataset.format == Dataset.Format.BUILTIN:
        flags[base.train_count :] = True  # built-ins: the published train rows, then test
    else:
        _, test = split_indices(count, test_fraction=dataset.test_fraction, seed=dataset.split_seed)
        flags[test] = True
    return flags


def _file_rows(dataset: Dataset) -> Iterator[tuple[JsonDict, JsonDict]]:
    """An upload's rows in file order as (inputs, targets), its dropped rows skipped."""
    from studio.datasets.validation import iter_validated_rows, row_schema

    schema = row_schema(dataset)
    dropped = set(dataset.dropped_lines or [])
    # Past the cap, the dropped lines are not all listed: trust the count instead.
    unlisted = dataset.dropped_count > len(dropped)
    for line, row, errors, is_row in iter_validated_rows(
        dataset.format, Path(dataset.file.path), schema
    ):
        if row is None and is_row and dataset.dropped_count and (line in dropped or unlisted):
            continue
        if row is None:
            detail = errors[0].message if errors else "unreadable row"
            raise ValueError(f"dataset {dataset.pk}: line {line} no longer validates: {detail}")
        yield schema.split(row)


def _builtin_rows(dataset: Dataset) -> tuple[list[tuple[JsonDict, JsonDict]], int]:
    """A built-in's rows (train then test) and how many are training rows."""
    from optimizer_core import datasets as builtin_datasets

    module = builtin_datasets.get(dataset.builtin_name)
    (x_train, y_train), (x_test, y_test) = module.load_data(limit=dataset.builtin_limit)
    rows = [
        (x.get_json(), y.get_json())
        for x, y in [*zip(x_train, y_train, strict=True), *zip(x_test, y_test, strict=True)]
    ]
    return rows, len(x_train)


def _base_rows(base: DatasetVersion) -> Iterator[Row]:
    dataset = base.dataset
    if dataset.format == Dataset.Format.BUILTIN:
        rows, train_count = _builtin_rows(dataset)
        for index, (inputs, outputs) in enumerate(rows):
            yield Row(index + 1, TRAIN if index < train_count else TEST, inputs, outputs)
        return
    flags = _base_test_flags(base)
    count = 0
    for index, (inputs, outputs) in enumerate(_file_rows(dataset)):
        if index >= len(flags):
            raise ValueError(
                f"dataset {dataset.pk}: the file has more rows than the {len(flags)} validated"
            )
        count += 1
        yield Row(index + 1, TEST if flags[index] else TRAIN, inputs, outputs)
    if count != len(flags):
        raise ValueError(
            f"dataset {dataset.pk}: the file has {count} rows, {len(flags)} were validated"
        )


def first_version(dataset: Dataset) -> DatasetVersion:
    """The dataset's version 1, created (counts from the dataset) when it has none yet."""
    existing = dataset.versions.filter(number=1).first()
    if existing is not None:
        return existing
    source = Source.BUILTIN if dataset.format == Dataset.Format.BUILTIN else Source.UPLOAD
    version, _ = DatasetVersion.objects.get_or_create(
        dataset=dataset,
        number=1,
        defaults={
            "source": source,
            "row_count": dataset.row_count,
            "next_row_id": dataset.row_count + 1,
        },
    )
    return version


def latest_version(dataset: Dataset) -> DatasetVersion:
    """The dataset's newest version (version 1 when it has no other)."""
    newest = dataset.versions.order_by("-number").first()
    return newest if newest is not None else first_version(dataset)


def get_version(dataset: Dataset, number: int) -> DatasetVersion | None:
    """Version ``number`` of the dataset (version 1 exists for every dataset), or None."""
    if number == 1:
        return first_version(dataset)
    return dataset.versions.filter(number=number).first()


def _digest_of(records: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(records).tobytes()).hexdigest()


def _records(flags: np.ndarray, hashes: np.ndarray) -> np.ndarray:
    """Rows as 33 bytes each: the split flag (1: test), then the row's sha256."""
    return np.concatenate([flags.astype(np.uint8).reshape(-1, 1), hashes], axis=1)


def set_first_version_rows(
    version: DatasetVersion, index: RowIndex, *, train_count: int | None = None
) -> None:
    """Store version 1's row index, counts and digest (after validation, or a built-in)."""
    version.row_count = len(index)
    version.next_row_id = len(index) + 1
    if train_count is not None:
        version.train_count = train_count
    flags = _base_test_flags(version)
    version.test_count = int(flags.sum())
    version.train_count = version.row_count - version.test_count
    hashes = np.frombuffer(index.content(), dtype=np.uint8).reshape(-1, HASH_BYTES)
    version.digest = _digest_of(_records(flags, hashes))
    if version.index:
        version.index.delete(save=False)
    version.index.save(f"{version.dataset_id}-v1.sha256", ContentFile(index.content()), save=False)
    version.save()


def ensure_index(version: DatasetVersion) -> DatasetVersion:
    """Version 1 with its row index and digest, built by one pass over its rows if missing.

    Datasets stored before versions existed became version 1 without an index; this
    builds it the first time one is needed. An invalid dataset has nothing to index.
    """
    base = version if version.number == 1 else first_version(version.dataset)
    if base.index and base.digest:
        return base
    dataset = base.dataset
    if dataset.status != Dataset.Status.VALID:
        return base
    index = RowIndex()
    train_count = None
    if dataset.format == Dataset.Format.BUILTIN:
        rows, train_count = _builtin_rows(dataset)
        for inputs, outputs in rows:
            index.add(inputs, outputs)
        base.row_count = len(rows)
    else:
        for inputs, outputs in _file_rows(dataset):
            index.add(inputs, outputs)
    base.row_count = len(index)
    set_first_version_rows(base, index, train_count=train_count)
    return base


def _base_hashes(base: DatasetVersion) -> np.ndarray:
    with base.index.open("rb") as handle:
        data = handle.read()
    if len(data) != base.row_count * HASH_BYTES:
        raise ValueError(f"the row index of dataset {base.dataset_id} does not match its rows")
    return np.frombuffer(data, dtype=np.uint8).reshape(-1, HASH_BYTES)


# --------------------------------------------------------------------------- ancestry


@dataclass
class Lineage:
    """A version, its ancestry back to version 1, and the last change of each row on it."""

    version: DatasetVersion
    base: DatasetVersion
    state: dict[int, DatasetRowChange] = field(default_factory=dict)

    def alive(self, row_id: int) -> bool:
        change = self.state.get(row_id)
        if change is not None:
            return change.op != Op.REMOVE
        return 1 <= row_id <= self.base.row_count

    def added_ids(self) -> list[int]:
        """Rows added along the ancestry and still there, in order."""
        return sorted(
            row_id
            for row_id, change in self.state.items()
            if row_id > self.base.row_count and change.op != Op.REMOVE
        )


def lineage(version: DatasetVersion) -> Lineage:
    """The version's ancestry with its rows' last changes (one query for each)."""
    dataset = version.dataset  # the caller's row: every version of the chain reads it
    by_id = {v.pk: v for v in DatasetVersion.objects.filter(dataset_id=version.dataset_id)}
    by_id[version.pk] = version
    chain: list[DatasetVersion] = []
    current: DatasetVersion | None = version
    while current is not None:
        current.dataset = dataset
        chain.append(current)
        current = by_id.get(current.parent_id) if current.parent_id else None
    chain.reverse()
    base = chain[0]
    if base.number != 1:
        raise ValueError(f"version {version.pk}'s ancestry does not reach version 1")
    state: dict[int, DatasetRowChange] = {}
    ids = [v.pk for v in chain[1:]]
    if ids:
        order = {pk: position for position, pk in enumerate(ids)}
        changes = sorted(
            DatasetRowChange.objects.filter(version_id__in=ids),
            key=lambda c: (order[c.version_id], c.row_id),
        )
        for change in changes:
            state[change.row_id] = change
    return Lineage(version=chain[-1], base=base, state=state)


def iter_rows(version: DatasetVersion, *, split: str | None = None) -> Iterator[Row]:
    """Every row of a version in row order (one split's with ``split``), streamed.

    Raises:
        ValueError: the dataset is not valid, or its file no longer validates.
    """
    dataset = version.dataset
    if dataset.status != Dataset.Status.VALID:
        raise ValueError(
            f"dataset {dataset.pk} ({dataset.name!r}) is {dataset.status}, not valid: "
            "only a dataset whose every row validates can be used"
        )
    line = lineage(version)
    state = line.state

    def wanted(row: Row) -> bool:
        return split is None or row.split == split

    for row in _base_rows(line.base):
        change = state.get(row.row_id)
        if change is not None:
            if change.op == Op.REMOVE:
                continue
            row = Row(row.row_id, change.split, change.input or {}, change.output or {})
        if wanted(row):
            yield row
    for row_id in line.added_ids():
        change = state[row_id]
        row = Row(row_id, change.split, change.input or {}, change.output or {})
        if wanted(row):
            yield row


def load_examples(version: DatasetVersion, *, split: str) -> tuple[list[JsonDict], list[JsonDict]]:
    """A version's rows as ``(input dicts, output dicts)``: ``split`` "train", "test" or "all"."""
    rows = iter_rows(version, split=None if split == "all" else split)
    inputs: list[JsonDict] = []
    outputs: list[JsonDict] = []
    for row in rows:
        inputs.append(row.input)
        outputs.append(row.output)
    return inputs, outputs


def rows_page(
    version: DatasetVersion, *, split: str | None, offset: int, limit: int
) -> tuple[list[Row], int]:
    """``limit`` rows from ``offset`` (of one split, or all), and how many there are."""
    found: list[Row] = []
    counted = bool(version.digest)  # an indexed version knows its split counts
    position = -1
    for position, row in enumerate(iter_rows(version, split=split)):
        if position >= offset + limit and counted:
            break
        if offset <= position < offset + limit:
            found.append(row)
    if not counted:
        return found, position + 1
    total = {None: version.row_count, TRAIN: version.train_count, TEST: version.test_count}
    return found, total.get(split, version.row_count)


def version_digest(line: Lineage, extra: Sequence[DatasetRowChange] = ()) -> tuple[str, int, int]:
    """The digest and the (train, test) counts of a lineage with ``extra`` changes on top.

    Reads version 1's index and the changes only, never a row.
    """
    base = ensure_index(line.base)
    state = dict(line.state)
    for change in extra:
        state[change.row_id] = change
    flags = _base_test_flags(base)
    hashes = _base_hashes(base)
    keep = np.ones(base.row_count, dtype=bool)
    edited: dict[int, DatasetRowChange] = {}
    for row_id, change in state.items():
        if row_id <= base.row_count:
            if change.op == Op.REMOVE:
                keep[row_id - 1] = False
            else:
                edited[row_id] = change
    if edited:
        hashes = hashes.copy()
        flags = flags.copy()
        for row_id, change in edited.items():
            hashes[row_id - 1] = np.frombuffer(bytes.fromhex(change.row_hash), dtype=np.uint8)
            flags[row_id - 1] = change.split == TEST
    records = _records(flags, hashes)[keep]
    added = sorted(
        (row_id, change)
        for row_id, change in state.items()
        if row_id > base.row_count and change.op != Op.REMOVE
    )
    if added:
        extra_records = np.array(
            [
                [1 if change.split == TEST else 0, *bytes.fromhex(change.row_hash)]
                for _, change in added
            ],
            dtype=np.uint8,
        )
        records = np.concatenate([records, extra_records])
    test = int(records[:, 0].sum()) if len(records) else 0
    return _digest_of(records), len(records) - test, test


# --------------------------------------------------------------------------- new versions


def _models(dataset: Dataset) -> tuple[type[Any], type[Any]]:
    return (
        build_data_model(
            dataset.input_schema, argument="input_schema", name="Inputs", error=DatasetError
        ),
        build_data_model(
            dataset.output_schema, argument="output_schema", name="Outputs", error=DatasetError
        ),
    )


def _join(base: str, loc: Iterable[Any]) -> str:
    path = base
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def normalised(model: type[Any], value: Any, path: str, problems: list[FieldError]) -> JsonDict:
    """``value`` validated against ``model`` and dumped as JSON (``{}`` with its problems)."""
    if not isinstance(value, dict):
        problems.append(FieldError(path, "must be an object"))
        return {}
    try:
        return dict(model.model_validate(value).model_dump(mode="json"))
    except pydantic.ValidationError as error:
        for item in error.errors(include_url=False):
            problems.append(FieldError(_join(path, item.get("loc", ())), str(item["msg"])))
        return {}


def _row_id(value: Any, path: str, problems: list[FieldError]) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        problems.append(FieldError(path, f"must be a row id (an int >= 1), got {value!r}"))
        return None
    return value


def _base_rows_at(base: DatasetVersion, wanted: set[int]) -> Iterator[Row]:
    """Version 1's rows ``wanted``: the file is read, only those rows are validated.

    A pass over a million-row file that validates every row takes about a minute; one
    that reads them and validates a few, a second or two. Built-ins, and uploads whose
    dropped rows are too many to be all listed, take the full pass.
    """
    dataset = base.dataset
    dropped = set(dataset.dropped_lines or [])
    if dataset.format == Dataset.Format.BUILTIN or dataset.dropped_count > len(dropped):
        yield from (row for row in _base_rows(base) if row.row_id in wanted)
        return
    from studio.datasets.readers import iter_rows as read_rows
    from studio.datasets.validation import row_schema, validate_row

    schema = row_schema(dataset)
    flags = _base_test_flags(base)
    left = set(wanted)
    row_id = 0
    for line, payload, errors, is_row in read_rows(dataset.format, Path(dataset.file.path), schema):
        if not is_row or line in dropped:
            continue
        row_id += 1
        if row_id not in left:
            continue
        model = None if errors or payload is None else validate_row(line, payload, schema)[0]
        if model is None:
            raise ValueError(f"dataset {dataset.pk}: line {line} no longer validates")
        inputs, outputs = schema.split(model)
        yield Row(row_id, TEST if flags[row_id - 1] else TRAIN, inputs, outputs)
        left.discard(row_id)
        if not left:
            return


def _previous_rows(line: Lineage, wanted: set[int]) -> dict[int, Row]:
    """The rows ``wanted`` as they are in the lineage's version (a pass that stops early)."""
    found: dict[int, Row] = {}
    base_wanted = {row_id for row_id in wanted if row_id <= line.base.row_count}
    for row_id in wanted - base_wanted:
        change = line.state[row_id]
        found[row_id] = Row(row_id, change.split, change.input or {}, change.output or {})
    for row in _base_rows_at(line.base, base_wanted):
        change = line.state.get(row.row_id)
        if change is not None:
            row = Row(row.row_id, change.split, change.input or {}, change.output or {})
        found[row.row_id] = row
    return found


def create_version(
    dataset: Dataset,
    *,
    parent: DatasetVersion | None = None,
    add: Sequence[JsonDict] = (),
    remove: Sequence[Any] = (),
    edit: Sequence[JsonDict] = (),
    message: str = "",
    source: str = Source.EDIT,
) -> DatasetVersion:
    """A new version: ``parent`` (default: the latest) with rows added, removed and edited.

    Args:
        add: ``[{input, output, split?, source_ref?}]``; ``split`` is ``train``,
            ``test`` or ``auto`` (default: drawn from the row's hash at the dataset's
            test fraction).
        remove: row ids of the parent.
        edit: ``[{row_id, input?, output?}]``: the fields given replace the row's.
        message: what changed, in the user's words.
        source: ``edit`` (the browser, the API) or ``predictions``.

    Raises:
        DatasetError: the dataset is not valid, a row does not fit the dataset's
            models, names no row of the parent, or nothing changes (each problem
            with its path: ``add[2].output.answer``, ``remove[0]``, ``edit[1].row_id``).
        VersionTooLarge: more than `MAX_CHANGES` rows change.
    """
    if dataset.status != Dataset.Status.VALID:
        raise DatasetError(
            f"dataset {dataset.name!r} is {dataset.status}: only a valid dataset gets versions",
            path="dataset",
        )
    if len(add) + len(remove) + len(edit) > MAX_CHANGES:
        raise VersionTooLarge(MAX_CHANGES)
    parent = parent or latest_version(dataset)
    if parent.dataset_id != dataset.pk:
        raise DatasetError("the parent version belongs to another dataset", path="parent")
    input_model, output_model = _models(dataset)
    problems: list[FieldError] = []
    line = lineage(parent)
    line.base = ensure_index(line.base)

    touched: dict[int, str] = {}
    removals: list[int] = []
    for index, value in enumerate(remove):
        row_id = _row_id(value, f"remove[{index}]", problems)
        if row_id is None:
            continue
        if not line.alive(row_id):
            problems.append(
                FieldError(f"remove[{index}]", f"version {parent.number} has no row {row_id}")
            )
        elif row_id in touched:
            problems.append(FieldError(f"remove[{index}]", f"row {row_id} is changed twice"))
        else:
            touched[row_id] = f"remove[{index}]"
            removals.append(row_id)
    edits: list[tuple[int, JsonDict, str]] = []
    for index, item in enumerate(edit):
        path = f"edit[{index}]"
        if not isinstance(item, dict):
            problems.append(FieldError(path, "must be an object {row_id, input?, output?}"))
            continue
        row_id = _row_id(item.get("row_id"), f"{path}.row_id", problems)
        if row_id is None:
            continue
        if not line.alive(row_id):
            problems.append(
                FieldError(f"{path}.row_id", f"version {parent.number} has no row {row_id}")
            )
        elif row_id in touched:
            problems.append(FieldError(f"{path}.row_id", f"row {row_id} is changed twice"))
        elif "input" not in item and "output" not in item:
            problems.append(FieldError(path, "give the row's new `input`, `output` or both"))
        else:
            touched[row_id] = path
            edits.append((row_id, item, path))
    additions: list[tuple[JsonDict, JsonDict, str, str]] = []
    for index, item in enumerate(add):
        path = f"add[{index}]"
        if not isinstance(item, dict):
            problems.append(FieldError(path, "must be an object {input, output, split?}"))
            continue
        inputs = normalised(input_model, item.get("input"), f"{path}.input", problems)
        outputs = normalised(output_model, item.get("output"), f"{path}.output", problems)
        split = item.get("split") or "auto"
        if split not in ADD_SPLITS:
            problems.append(
                FieldError(f"{path}.split", f"must be one of {list(ADD_SPLITS)}, got {split!r}")
            )
        additions.append((inputs, outputs, str(split), str(item.get("source_ref") or "")[:100]))
    if problems:
        raise DatasetError(problems)

    previous = _previous_rows(line, set(touched))
    changes: list[DatasetRowChange] = []
    for row_id in removals:
        old = previous[row_id]
        changes.append(
            DatasetRowChange(
                row_id=row_id,
                op=Op.REMOVE,
                split=old.split,
                previous_input=old.input,
                previous_output=old.output,
            )
        )
    for row_id, item, path in edits:
        old = previous[row_id]
        inputs = (
            normalised(input_model, item["input"], f"{path}.input", problems)
            if "input" in item
            else old.input
        )
        outputs = (
            normalised(output_model, item["output"], f"{path}.output", problems)
            if "output" in item
            else old.output
        )
        if (inputs, outputs) == (old.input, old.output):
            continue  # unchanged: not a change
        changes.append(
            DatasetRowChange(
                row_id=row_id,
                op=Op.EDIT,
                split=old.split,
                input=inputs,
                output=outputs,
                row_hash=row_hash(inputs, outputs),
                previous_input=old.input,
                previous_output=old.output,
            )
        )
    if problems:
        raise DatasetError(problems)
    next_id = parent.next_row_id
    for inputs, outputs, split, source_ref in additions:
        digest = row_hash(inputs, outputs)
        changes.append(
            DatasetRowChange(
                row_id=next_id,
                op=Op.ADD,
                split=_auto_split(digest, dataset.test_fraction) if split == "auto" else split,
                input=inputs,
                output=outputs,
                row_hash=digest,
                source_ref=source_ref,
            )
        )
        next_id += 1
    if not changes:
        raise DatasetError(f"nothing changes: these rows are version {parent.number}'s as they are")
    for change in changes:
        if change.op == Op.REMOVE:
            change.row_hash = ""
    digest, train_count, test_count = version_digest(line, changes)
    with transaction.atomic():
        Dataset.objects.select_for_update().filter(pk=dataset.pk).first()  # one number at a time
        last = dataset.versions.order_by("-number").values_list("number", flat=True).first()
        version = DatasetVersion.objects.create(
            dataset=dataset,
            number=(last or 1) + 1,
            parent=parent,
            source=source,
            message=message[:500],
            row_count=train_count + test_count,
            train_count=train_count,
            test_count=test_count,
            digest=digest,
            added=sum(c.op == Op.ADD for c in changes),
            removed=sum(c.op == Op.REMOVE for c in changes),
            changed=sum(c.op == Op.EDIT for c in changes),
            next_row_id=next_id,
        )
        for change in changes:
            change.version = version
        DatasetRowChange.objects.bulk_create(changes, batch_size=500)
    return version


def version_diff(version: DatasetVersion, *, limit: int = 200) -> JsonDict:
    """What a version changed against its parent: counts, and the first rows of each kind.

    Returns:
        ``{parent, added, removed, changed, rows: {added, removed, changed}}``: each row
        ``{row_id, split, input, output, previous_input, previous_output}``.
    """
    rows: dict[str, list[JsonDict]] = {"added": [], "removed": [], "changed": []}
    kinds = {Op.ADD: "added", Op.REMOVE: "removed", Op.EDIT: "changed"}
    for op, kind in kinds.items():
        for change in version.changes.filter(op=op).order_by("row_id")[:limit]:
            rows[kind].append(
                {
                    "row_id": change.row_id,
                    "split": change.split,
                    "input": change.input,
                    "output": change.output,
                    "previous_input": change.previous_input,
                    "previous_output": change.previous_output,
                    "source_ref": change.source_ref,
                }
            )
    return {
        "parent": version.parent.number if version.parent_id and version.parent else None,
        "added": version.added,
        "removed": version.removed,
        "changed": version.changed,
        "rows": rows,
    }


def delete_files(dataset: Dataset) -> list[tuple[Any, str]]:
    """The stored files of a dataset's versions, as (storage, name), to delete with it."""
    return [
        (version.index.storage, version.index.name)
        for version in dataset.versions.exclude(index="")
        if version.index
    ]

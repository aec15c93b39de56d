"""Dataset operations: upload, validation, built-ins, splits, previews, deletion.

Verb functions over `Dataset` rows; what they read and check lives beside them:
`studio.datasets.readers` streams the rows of a file (CSV, JSON Lines, JSON
arrays), `studio.datasets.validation` checks them against the dataset's row
schema, and `studio.datasets.versions` keeps the dataset's immutable versions
(version 1 is made here, with the upload; its row index by the validation pass).
The validation of an upload runs in a Celery task (`tasks.validate_dataset`) that
takes the dataset's id and calls `validate_dataset`. Refusals are the errors of
`studio.datasets.exceptions`.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.db.models import ProtectedError
from django.utils import timezone

from optimizer_core import datasets as builtin_datasets
from studio.celery import enqueue
from studio.datasets import versions
from studio.datasets.exceptions import (
    DatasetError,
    DatasetInUse,
    DatasetUnreadable,
    UploadTooLarge,
)
from studio.datasets.models import Dataset, DatasetVersion
from studio.datasets.readers import RowError
from studio.datasets.validation import (
    ValidationReport,
    iter_validated_rows,
    row_schema,
    validate_file,
)

logger = logging.getLogger(__name__)

JsonDict = dict[str, Any]

VALIDATE_DATASET_TASK = "datasets.validate_dataset"
"""The task that validates an upload (`tasks.validate_dataset`), queued by name: it calls us."""
INDEX_DATASET_TASK = "datasets.index_dataset"
"""The task that builds version 1's row index and digest (`tasks.index_dataset`)."""

SPLITS = ("train", "test", "all")
_EXTENSIONS = {
    ".csv": Dataset.Format.CSV,
    ".jsonl": Dataset.Format.JSONL,
    ".ndjson": Dataset.Format.JSONL,
    ".json": Dataset.Format.JSON,
}


# --------------------------------------------------------------------------- uploads


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
            path="file",
        )
    return str(_EXTENSIONS[suffix])


def _check_split_arguments(test_fraction: float, split_seed: int) -> None:
    if not 0.0 <= test_fraction < 1.0:
        raise DatasetError(
            f"`test_fraction` must be >= 0 and < 1, got {test_fraction}", path="test_fraction"
        )
    if isinstance(split_seed, bool) or not isinstance(split_seed, int):
        raise DatasetError(f"`split_seed` must be an int, got {split_seed!r}", path="split_seed")


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
    keep_valid_rows: bool = False,
    description: str = "",
    dataset_format: str | None = None,
    queue_validation: bool = True,
) -> Dataset:
    """Store an uploaded file as a dataset and queue its validation.

    The file is read once in chunks to compute its size and sha256; nothing is
    stored when the schemas, the mapping or the size are refused.

    Args:
        test_fraction: the share of rows held out as the test split (default 0.2).
        split_seed: the seed that draws them (default 0).
        keep_valid_rows: drop the rows that do not validate (recorded on the
            dataset) instead of leaving the whole dataset invalid (default False).
        queue_validation: queue `validate_dataset` after the commit (default);
            False leaves the validation to the caller.

    Raises:
        UploadTooLarge: the file exceeds ``settings.STUDIO_UPLOAD_MAX_BYTES``.
        DatasetError: unusable schemas / mapping / split arguments / format.
    """
    file_format = dataset_format or detect_format(uploaded_file.name or "")
    if file_format not in (Dataset.Format.CSV, Dataset.Format.JSONL, Dataset.Format.JSON):
        raise DatasetError(
            f"`format` must be csv, jsonl or json, got {file_format!r}", path="format"
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
        keep_valid_rows=keep_valid_rows,
    )
    row_schema(candidate)  # refuses unusable schemas / mappings before anything is stored

    limit = settings.STUDIO_UPLOAD_MAX_BYTES
    digest = hashlib.sha256()
    size = 0
    for chunk in uploaded_file.chunks():
        size += len(chunk)
        if size > limit:
            raise UploadTooLarge(limit)
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
        versions.first_version(candidate)
        dataset_id = candidate.pk
        if queue_validation:
            transaction.on_commit(lambda: enqueue_validation(dataset_id))
    return candidate


def enqueue_indexing(dataset_id: int) -> None:
    """Queue `index_dataset` for a valid dataset whose version 1 has no row index yet."""
    try:
        enqueue(INDEX_DATASET_TASK, dataset_id)
    except Exception:  # the index is built on first need instead (versions.ensure_index)
        logger.exception("dataset %s: could not queue its row index", dataset_id)


INLINE_INDEX_ROWS = 20_000
"""Up to this many rows, a missing row index is built in the request that needs it (< 1 s)."""


def index_soon(dataset: Dataset) -> DatasetVersion:
    """Version 1, indexed now when it is small, else with its index queued (once a while).

    For the datasets stored before versions, whose version 1 has no index yet.
    """
    first = versions.first_version(dataset)
    if first.digest or dataset.status != Dataset.Status.VALID:
        return first
    if first.row_count <= INLINE_INDEX_ROWS:
        return versions.ensure_index(first)
    if cache.add(f"datasets:indexing:{dataset.pk}", True, timeout=600):
        enqueue_indexing(dataset.pk)
    return first


def index_dataset(dataset: Dataset) -> DatasetVersion:
    """Build version 1's row index and digest (`versions.ensure_index`) if it has none."""
    return versions.ensure_index(versions.first_version(dataset))


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
    construction. An upload that asked to keep its valid rows is ``valid`` with
    its bad rows dropped when every problem is one row's and a row is left:
    ``row_count`` is then the rows kept, ``dropped_count`` / ``dropped_lines``
    the rows dropped, and ``errors`` why.
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
        report.add(RowError(0, error.path, str(error)))
    except OSError as error:
        logger.exception("dataset %s: cannot read its file", dataset.pk)
        report = ValidationReport()
        report.add(RowError(0, "file", f"the stored file cannot be read: {error}"))
    except Exception as error:  # whatever it is, the dataset must not stay "validating"
        logger.exception("dataset %s: validation failed", dataset.pk)
        report = ValidationReport()
        report.add(RowError(0, "file", failure_reason(error)))
    dropping = not report.valid and dataset.keep_valid_rows and report.usable_without_bad_rows
    dataset.row_count = report.good_rows if dropping else report.row_count
    dataset.dropped_count = report.bad_rows if dropping else 0
    dataset.dropped_lines = report.bad_lines if dropping else []
    dataset.error_count = report.error_count
    dataset.errors = [e.as_json() for e in report.errors]
    dataset.status = Dataset.Status.VALID if report.valid or dropping else Dataset.Status.INVALID
    dataset.validated_at = timezone.now()
    with transaction.atomic():
        dataset.save(
            update_fields=[
                "row_count",
                "dropped_count",
                "dropped_lines",
                "error_count",
                "errors",
                "status",
                "validated_at",
            ]
        )
        first = versions.first_version(dataset)
        first.row_count = dataset.row_count
        first.next_row_id = dataset.row_count + 1
        first.digest = ""
        first.save(update_fields=["row_count", "next_row_id", "digest"])
        if dataset.status == Dataset.Status.VALID:
            # Version 1's row index and digest: a pass of its own, after the dataset is
            # usable, so hashing every row never slows the validation down.
            dataset_id = dataset.pk
            transaction.on_commit(lambda: enqueue_indexing(dataset_id))
    return dataset


def revalidate_dataset(dataset: Dataset) -> Dataset:
    """Validate an upload's file again (status back to ``uploaded``, the task queued).

    A built-in dataset is valid by construction and is left as it is.
    """
    if dataset.format != Dataset.Format.BUILTIN:
        dataset.status = Dataset.Status.UPLOADED
        dataset.save(update_fields=["status"])
        enqueue_validation(dataset.pk)
        dataset.refresh_from_db()
    return dataset


def update_dataset(dataset: Dataset, **fields: Any) -> Dataset:
    """Change the given fields of a dataset (its ``name``, ``description``) and save them."""
    for key, value in fields.items():
        setattr(dataset, key, value)
    dataset.save(update_fields=list(fields) or None)
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
        raise DatasetError(str(error), path="builtin_name") from None
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise DatasetError(f"`limit` must be an int >= 1, got {limit!r}", path="limit")
    try:
        (x_train, y_train), (x_test, y_test) = module.load_data(limit=limit)
    except (OSError, ValueError) as error:
        raise DatasetError(
            f"the {module.NAME} data cannot be loaded: {error}", path="builtin_name"
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
        index = versions.RowIndex()
        for x, y in [*zip(x_train, y_train, strict=True), *zip(x_test, y_test, strict=True)]:
            index.add(x.get_json(), y.get_json())
        versions.set_first_version_rows(
            versions.first_version(dataset), index, train_count=len(x_train)
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


def load_examples(
    dataset: Dataset, *, split: str, version: DatasetVersion | None = None
) -> tuple[list[JsonDict], list[JsonDict]]:
    """The rows of a valid dataset (one of its versions) as ``(input dicts, output dicts)``.

    Args:
        dataset: a dataset whose status is ``valid``.
        split: ``"train"``, ``"test"`` or ``"all"``. Uploads are split
            deterministically by ``test_fraction`` and ``split_seed`` (over the
            rows kept, when bad rows were dropped); built-ins keep their published
            train / test splits; a row added by a later version keeps the split it
            was given (`studio.datasets.versions`).
        version: the version to read (default: the dataset's latest).

    Raises:
        ValueError: the dataset is not valid, `split` is unknown, or the version
            is another dataset's.

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
    chosen = version if version is not None else versions.latest_version(dataset)
    if chosen.dataset_id != dataset.pk:
        raise ValueError(f"version {chosen.pk} is not a version of dataset {dataset.pk}")
    chosen.dataset = dataset
    return versions.load_examples(chosen, split=split)


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
                "errors": [RowError(0, error.path, str(error)).as_json()],
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


def preview_dataset(dataset: Dataset, *, limit: int = 20) -> list[JsonDict]:
    """`preview_rows`, whatever the file holds: a failure is the reason, never a crash.

    Raises:
        DatasetUnreadable: the file cannot be read, or reading it failed in any way.
    """
    try:
        return preview_rows(dataset, limit=limit)
    except (OSError, ValueError, DatasetError) as error:
        raise DatasetUnreadable(f"the dataset cannot be read: {error}") from None
    except Exception as error:
        logger.exception("dataset %s: preview failed", dataset.pk)
        raise DatasetUnreadable(failure_reason(error)) from None


def delete_dataset(dataset: Dataset) -> None:
    """Delete a dataset and its stored file.

    Raises:
        DatasetInUse: a run still uses it.
    """
    stored = [(dataset.file.storage, dataset.file.name)] if dataset.file else []
    stored += versions.delete_files(dataset)
    try:
        with transaction.atomic():
            dataset.delete()
    except ProtectedError:
        raise DatasetInUse() from None
    for storage, name in stored:
        transaction.on_commit(lambda storage=storage, name=name: storage.delete(name))

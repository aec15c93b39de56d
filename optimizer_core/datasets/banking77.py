"""BANKING77: customer-service queries of an online bank, labelled with 77 intents.

13,083 queries (10,003 train, 3,080 test) by PolyAI, CC BY 4.0. Each row is a
query and one of 77 fine-grained intents (``card_arrival``, ``lost_or_stolen_card``,
...). The output data model's ``intent`` is a ``Literal`` of the intents, so its
JSON schema carries an ``enum`` a language model must choose from.

References:
    Casanueva et al., "Efficient Intent Detection with Dual Sentence
    Encoders", 2020. https://github.com/PolyAI-LDN/task-specific-datasets
"""

from __future__ import annotations

import csv
import functools
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np
import pydantic
from pydantic import Field

from optimizer_core.datamodels import DataModel
from optimizer_core.datasets._arrays import Splits, check_limit, object_array
from optimizer_core.datasets._files import DataFile, StrPath, resolve
from optimizer_core.exceptions import DataError

NAME = "banking77"
BASE_URL = (
    "https://raw.githubusercontent.com/PolyAI-LDN/task-specific-datasets/master/banking_data/"
)
SHA256 = {
    "train.csv": "b06e26ac675513959a63135f11b94ea7786ed02da65db93a5650d8838cbc664b",
    "test.csv": "d12d6e3bc4c3103966ae786dc435913c0c563dfa328f5a3646d0e62cfeeb474d",
    "categories.json": "53261da888122daf2d120d925458631d9619e15d82e56052e7a42e535ce32b63",
}
INFO: dict[str, Any] = {
    "name": NAME,
    "title": "BANKING77",
    "description": "Online-banking customer queries, each labelled with one of 77 intents.",
    "task": "intent classification",
    "sizes": {"train": 10003, "test": 3080},
    "licence": "CC BY 4.0",
    "source": "https://github.com/PolyAI-LDN/task-specific-datasets",
    "input_data_model": "BankingQuery",
    "output_data_model": "BankingIntent",
}


class BankingQuery(DataModel):
    """A customer's message to an online bank."""

    text: str = Field(description="The customer's message")


def get_input_data_model() -> type[BankingQuery]:
    """The input data model of BANKING77: `BankingQuery(text: str)`."""
    return BankingQuery


def get_categories(*, path: StrPath | None = None) -> list[str]:
    """The 77 intents, in the order of ``categories.json``.

    Args:
        path: a folder holding ``categories.json``. Defaults to None (see `load_data`).
    """
    location = _resolve("categories.json", path)
    try:
        categories = json.loads(location.read_text(encoding="utf-8"))
    except ValueError as error:
        raise DataError(f"{location}: not valid JSON ({error})") from error
    if not isinstance(categories, list) or not all(isinstance(c, str) for c in categories):
        raise DataError(f"{location}: expected a JSON list of intent names")
    return categories


def get_output_data_model(
    *, categories: Iterable[str] | None = None, path: StrPath | None = None
) -> type[DataModel]:
    """The output data model: `BankingIntent(intent: Literal[<the intents>])`.

    Args:
        categories: keep only these intents in the model's enum. Defaults to
            None (all 77).
        path: a folder holding ``categories.json``. Defaults to None (see `load_data`).

    Returns:
        The same class for the same set of intents, whatever their order.

    Example:
        ```python
        BankingIntent = banking77.get_output_data_model(categories=["card_arrival", "age_limit"])
        BankingIntent.get_schema()["properties"]["intent"]["enum"]  # ["card_arrival", "age_limit"]
        ```
    """
    return _intent_model(tuple(_select(get_categories(path=path), categories)))


def load_data(
    *,
    path: StrPath | None = None,
    limit: int | None = None,
    categories: Iterable[str] | None = None,
) -> Splits:
    """Load BANKING77 as arrays of data models.

    Args:
        path: a folder holding ``train.csv``, ``test.csv`` and ``categories.json``
            (or a ``banking77/`` folder with them). Defaults to None: use
            ``$OPTIMIZER_CORE_DATA_DIR``, the cache, or download.
        limit: keep at most this many rows of each split (the first ones, after
            the `categories` filter). Defaults to None (all rows).
        categories: keep only the rows of these intents; the output model's
            enum then lists only them. Defaults to None (all 77).

    Returns:
        ``((x_train, y_train), (x_test, y_test))``: numpy object arrays of
        `BankingQuery` and ``BankingIntent``.

    Raises:
        DataError: a file is missing, damaged or malformed.
        ValueError: `categories` names an unknown intent, or `limit` < 1.

    Example:
        ```python
        (x_train, y_train), (x_test, y_test) = datasets.banking77.load_data(
            categories=["card_arrival", "lost_or_stolen_card"], limit=20
        )
        ```
    """
    check_limit(limit)
    all_categories = get_categories(path=path)
    selected = _select(all_categories, categories)
    output_model = _intent_model(tuple(selected))
    rows = _RowFilter(frozenset(all_categories), frozenset(selected), limit)
    train = _read_split("train.csv", path, rows, output_model)
    test = _read_split("test.csv", path, rows, output_model)
    return train, test


def _resolve(file_name: str, path: StrPath | None) -> Path:
    return resolve(DataFile(NAME, file_name, BASE_URL + file_name, SHA256[file_name]), path=path)


def _select(all_categories: list[str], categories: Iterable[str] | None) -> list[str]:
    """The intents kept, in the canonical order, after validating `categories`."""
    if categories is None:
        return all_categories
    if isinstance(categories, str):
        raise TypeError("`categories` must be a list of intent names, got a single string")
    requested = list(categories)
    if not requested:
        raise ValueError("`categories` must name at least one intent, got an empty list")
    unknown = sorted(set(requested) - set(all_categories))
    if unknown:
        raise ValueError(
            f"`categories` has unknown intents: {unknown}. "
            f"Known intents include {all_categories[:5]} (77 in all)."
        )
    kept = set(requested)
    return [category for category in all_categories if category in kept]


@functools.lru_cache(maxsize=64)
def _intent_model(categories: tuple[str, ...]) -> type[DataModel]:
    # A Literal over runtime values cannot be written statically; subscripting the
    # special form with a tuple is how typing spells Literal["a", "b", ...].
    intent_type = cast(Any, Literal).__getitem__(categories)
    model = pydantic.create_model(
        "BankingIntent",
        __base__=DataModel,
        __module__=__name__,
        __doc__="The intent of a customer's message to an online bank.",
        intent=(intent_type, Field(description="The intent of the customer's message")),
    )
    return model


@dataclass(frozen=True)
class _RowFilter:
    known: frozenset[str]
    wanted: frozenset[str]
    limit: int | None


def _read_split(
    file_name: str, path: StrPath | None, rows: _RowFilter, output_model: type[DataModel]
) -> tuple[np.ndarray, np.ndarray]:
    location = _resolve(file_name, path)
    inputs: list[BankingQuery] = []
    outputs: list[DataModel] = []
    with location.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames is None or not {"text", "category"} <= set(reader.fieldnames):
            raise DataError(f"{location}: expected a header with columns 'text' and 'category'")
        for row in reader:
            if rows.limit is not None and len(inputs) >= rows.limit:
                break
            category, text = row["category"], row["text"]
            if text is None or category not in rows.known:
                raise DataError(
                    f"{location}, line {reader.line_num}: malformed row "
                    f"(text {text!r}, category {category!r})"
                )
            if category not in rows.wanted:
                continue
            inputs.append(BankingQuery(text=text))
            outputs.append(output_model.model_validate({"intent": category}))
    return object_array(inputs), object_array(outputs)

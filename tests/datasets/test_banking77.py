from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pydantic
import pytest

from optimizer_core.datasets import banking77
from optimizer_core.exceptions import DataError

SUBSET = ["lost_or_stolen_card", "card_arrival"]


def test_load_data_without_arguments_reads_the_data_dir(shared_data: Path) -> None:
    (x_train, y_train), (x_test, y_test) = banking77.load_data()

    assert [len(x_train), len(y_train), len(x_test), len(y_test)] == [10003, 10003, 3080, 3080]
    for array in (x_train, y_train, x_test, y_test):
        assert isinstance(array, np.ndarray) and array.dtype == object
    assert all(isinstance(x, banking77.BankingQuery) for x in x_test)
    assert x_train[0].text == "I am still waiting on my card?"
    assert y_train[0].intent == "card_arrival"
    assert len({y.intent for y in y_train}) == 77


def test_output_model_enum_lists_the_77_intents(shared_data: Path) -> None:
    categories = json.loads((shared_data / "banking77" / "categories.json").read_text())

    schema = banking77.get_output_data_model().get_schema()

    assert schema["title"] == "BankingIntent"
    assert schema["properties"]["intent"]["enum"] == categories
    assert banking77.get_categories() == categories


def test_input_model() -> None:
    schema = banking77.get_input_data_model().get_schema()
    assert schema["properties"]["text"]["type"] == "string"


def test_categories_keep_only_their_rows_and_narrow_the_enum(shared_data: Path) -> None:
    (x_train, y_train), (x_test, y_test) = banking77.load_data(categories=SUBSET)

    assert 0 < len(x_train) < 10003 and len(x_train) == len(y_train)
    assert 0 < len(x_test) < 3080 and len(x_test) == len(y_test)
    assert {y.intent for y in y_train} == set(SUBSET)
    model = type(y_train[0])
    # Canonical order, whatever the order asked for; the same class every time.
    assert model.get_schema()["properties"]["intent"]["enum"] == [
        "card_arrival",
        "lost_or_stolen_card",
    ]
    assert model is banking77.get_output_data_model(categories=list(reversed(SUBSET)))
    with pytest.raises(pydantic.ValidationError):
        model.model_validate({"intent": "age_limit"})


def test_limit_applies_after_the_category_filter(shared_data: Path) -> None:
    (x_train, y_train), (x_test, _) = banking77.load_data(categories=["age_limit"], limit=4)

    assert len(x_train) == len(x_test) == 4
    assert {y.intent for y in y_train} == {"age_limit"}


def test_unknown_category_is_named(shared_data: Path) -> None:
    with pytest.raises(ValueError, match=r"`categories`.*no_such_intent"):
        banking77.load_data(categories=["card_arrival", "no_such_intent"])


@pytest.mark.parametrize(("categories", "error"), [("card_arrival", TypeError), ([], ValueError)])
def test_invalid_categories(shared_data: Path, categories: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="`categories`"):
        banking77.load_data(categories=categories)  # type: ignore[arg-type]


def test_explicit_path_is_used(shared_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPTIMIZER_CORE_DATA_DIR")

    (x_train, _), _ = banking77.load_data(path=shared_data / "banking77", limit=3)

    assert len(x_train) == 3


def test_sha_mismatch_of_categories_is_reported(shared_data: Path, tmp_path: Path) -> None:
    folder = tmp_path / "banking77"
    shutil.copytree(shared_data / "banking77", folder)
    categories = folder / "categories.json"
    categories.chmod(0o644)
    categories.write_text(categories.read_text().replace("card_arrival", "card_arrivaL"))

    with pytest.raises(DataError) as caught:
        banking77.get_output_data_model(path=folder)

    assert str(categories) in str(caught.value)
    assert banking77.SHA256["categories.json"] in str(caught.value)


def test_missing_data_without_network_lists_the_places_searched(cache_dir: Path) -> None:
    with pytest.raises(DataError) as caught:
        banking77.load_data()

    message = str(caught.value)
    assert "banking77" in message and "OPTIMIZER_CORE_DATA_DIR" in message
    assert str(cache_dir / "datasets" / "banking77") in message
    assert banking77.BASE_URL in message

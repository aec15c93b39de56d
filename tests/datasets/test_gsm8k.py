from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from optimizer_core.datasets import _files, gsm8k
from optimizer_core.exceptions import DataError

FIRST_THINKING = (
    "Natalia sold 48/2 = 24 clips in May.\n"
    "Natalia sold 48+24 = 72 clips altogether in April and May."
)


def _copy_split_files(source: Path, destination: Path) -> Path:
    destination.mkdir(parents=True, exist_ok=True)
    for name in ("train.jsonl", "test.jsonl"):
        shutil.copyfile(source / name, destination / name)
    return destination


def _flip_last_byte(file: Path) -> None:
    content = bytearray(file.read_bytes())
    content[-2] = ord("7") if content[-2] != ord("7") else ord("8")
    stat = file.stat()
    file.write_bytes(bytes(content))
    # Same size; a later mtime so no stale verification can hide the change.
    os.utime(file, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def test_load_data_without_arguments_reads_the_data_dir(shared_data: Path) -> None:
    (x_train, y_train), (x_test, y_test) = gsm8k.load_data()

    assert [len(x_train), len(y_train), len(x_test), len(y_test)] == [7473, 7473, 1319, 1319]
    for array in (x_train, y_train, x_test, y_test):
        assert isinstance(array, np.ndarray) and array.dtype == object and array.ndim == 1
    assert all(isinstance(x, gsm8k.MathQuestion) for x in x_train)
    assert all(isinstance(y, gsm8k.NumericalAnswerWithThinking) for y in y_test)
    assert not any("<<" in y.thinking or "####" in y.thinking for y in y_train)
    assert all(type(y.answer) is float for y in y_train)


def test_first_row_is_parsed(shared_data: Path) -> None:
    (x_train, y_train), _ = gsm8k.load_data(limit=1)

    assert x_train[0].question.startswith("Natalia sold clips to 48 of her friends in April")
    assert y_train[0].thinking == FIRST_THINKING
    assert y_train[0].answer == 72.0


def test_limit_keeps_the_first_rows_of_each_split(shared_data: Path) -> None:
    (x_train, y_train), (x_test, y_test) = gsm8k.load_data(limit=5)

    assert [len(x_train), len(y_train), len(x_test), len(y_test)] == [5, 5, 5, 5]
    assert x_train[0].question.startswith("Natalia")
    assert x_test[0].question.startswith("Janet’s ducks lay 16 eggs per day")
    assert y_test[0].answer == 18.0


@pytest.mark.parametrize(("limit", "error"), [(0, ValueError), (-3, ValueError), (2.5, TypeError)])
def test_invalid_limit_is_named(limit: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="`limit`"):
        gsm8k.load_data(limit=limit)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("solution", "thinking", "answer"),
    [
        ("A <<2*3=6>>6 and <<6+1=7>>7.\n#### 7", "A 6 and 7.", 7.0),
        ("She pays 1,000 + 234.\n#### 1,234", "She pays 1,000 + 234.", 1234.0),
        ("Lost 3.\n#### -3", "Lost 3.", -3.0),
        ("Half.\n#### 0.5", "Half.", 0.5),
    ],
)
def test_parse_solution(solution: str, thinking: str, answer: float) -> None:
    parsed = gsm8k.parse_solution(solution)
    assert parsed.thinking == thinking
    assert parsed.answer == answer


@pytest.mark.parametrize("solution", ["no answer mark", "#### seventy"])
def test_parse_solution_rejects_a_solution_without_a_number(solution: str) -> None:
    with pytest.raises(ValueError):
        gsm8k.parse_solution(solution)


def test_data_models_describe_their_fields() -> None:
    question_schema = gsm8k.get_input_data_model().get_schema()
    answer_schema = gsm8k.get_output_data_model().get_schema()

    assert question_schema["properties"]["question"]["description"]
    assert answer_schema["properties"]["answer"]["type"] == "number"
    assert set(answer_schema["required"]) == {"thinking", "answer"}


@pytest.mark.parametrize("subfolder", [True, False])
def test_explicit_path_is_used(
    shared_data: Path, monkeypatch: pytest.MonkeyPatch, subfolder: bool
) -> None:
    monkeypatch.delenv("OPTIMIZER_CORE_DATA_DIR")
    folder = shared_data / "gsm8k" if subfolder else shared_data

    (x_train, _), (x_test, _) = gsm8k.load_data(path=folder, limit=3)

    assert len(x_train) == len(x_test) == 3


def test_explicit_path_is_final(shared_data: Path, tmp_path: Path) -> None:
    # The data dir holds the files, but an explicit empty folder is not silently ignored.
    with pytest.raises(DataError, match="`path`") as caught:
        gsm8k.load_data(path=tmp_path)
    assert "train.jsonl" in str(caught.value)


def test_files_in_the_cache_are_used(
    shared_data: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _copy_split_files(shared_data / "gsm8k", cache_dir / "datasets" / "gsm8k")
    monkeypatch.delenv("OPTIMIZER_CORE_DATA_DIR")

    (x_train, _), _ = gsm8k.load_data(limit=2)

    assert len(x_train) == 2


def test_sha_mismatch_names_the_file_and_both_hashes(shared_data: Path, tmp_path: Path) -> None:
    folder = _copy_split_files(shared_data / "gsm8k", tmp_path / "copy")
    _flip_last_byte(folder / "train.jsonl")

    with pytest.raises(DataError) as caught:
        gsm8k.load_data(path=folder)

    message = str(caught.value)
    assert str(folder / "train.jsonl") in message
    assert gsm8k.SHA256["train.jsonl"] in message
    assert _files.file_sha256(folder / "train.jsonl") in message


def test_a_file_changed_after_a_good_load_is_caught(shared_data: Path, tmp_path: Path) -> None:
    folder = _copy_split_files(shared_data / "gsm8k", tmp_path / "copy")
    gsm8k.load_data(path=folder, limit=1)

    _flip_last_byte(folder / "test.jsonl")

    with pytest.raises(DataError, match=r"test\.jsonl"):
        gsm8k.load_data(path=folder, limit=1)


def test_missing_data_without_network_lists_the_places_searched(cache_dir: Path) -> None:
    with pytest.raises(DataError) as caught:
        gsm8k.load_data()

    message = str(caught.value)
    assert "gsm8k" in message
    assert "OPTIMIZER_CORE_DATA_DIR" in message
    assert str(cache_dir / "datasets" / "gsm8k" / "train.jsonl") in message
    assert gsm8k.BASE_URL + "train.jsonl" in message
    assert "path=" in message
    assert not list((cache_dir / "datasets" / "gsm8k").glob("*")), "no partial file is left"


def test_data_dir_without_the_file_is_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPTIMIZER_CORE_DATA_DIR", str(tmp_path / "elsewhere"))

    with pytest.raises(DataError, match="elsewhere"):
        gsm8k.load_data()


def test_download_fills_the_cache(
    shared_data: Path,
    cache_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    serve_folder: Callable[[Path], str],
) -> None:
    monkeypatch.delenv("OPTIMIZER_CORE_DATA_DIR")
    monkeypatch.setattr(gsm8k, "BASE_URL", serve_folder(shared_data / "gsm8k"))

    (x_train, _), _ = gsm8k.load_data(limit=2)

    cached = cache_dir / "datasets" / "gsm8k"
    assert sorted(p.name for p in cached.iterdir()) == ["test.jsonl", "train.jsonl"]
    assert (cached / "train.jsonl").read_bytes() == (shared_data / "gsm8k/train.jsonl").read_bytes()
    assert x_train[0].question.startswith("Natalia")


def test_a_bad_download_is_not_cached(
    shared_data: Path,
    tmp_path: Path,
    cache_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    serve_folder: Callable[[Path], str],
) -> None:
    served = _copy_split_files(shared_data / "gsm8k", tmp_path / "served")
    _flip_last_byte(served / "train.jsonl")
    monkeypatch.delenv("OPTIMIZER_CORE_DATA_DIR")
    monkeypatch.setattr(gsm8k, "BASE_URL", serve_folder(served))

    with pytest.raises(DataError, match="sha256 mismatch") as caught:
        gsm8k.load_data()

    assert gsm8k.SHA256["train.jsonl"] in str(caught.value)
    assert not list((cache_dir / "datasets" / "gsm8k").glob("*"))

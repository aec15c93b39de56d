"""GSM8K: grade-school maths word problems with worked solutions.

8.5k problems (7,473 train, 1,319 test) by OpenAI, MIT licence. Each solution
ends with ``#### <number>``; the worked steps carry calculator annotations such
as ``<<48/2=24>>``, which are removed here.

References:
    Cobbe et al., "Training Verifiers to Solve Math Word Problems", 2021.
    https://github.com/openai/grade-school-math
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
from pydantic import Field, ValidationError

from optimizer_core.datamodels import DataModel
from optimizer_core.datasets._arrays import Splits, check_limit, object_array
from optimizer_core.datasets._files import DataFile, StrPath, resolve
from optimizer_core.exceptions import DataError

NAME = "gsm8k"
BASE_URL = (
    "https://raw.githubusercontent.com/openai/grade-school-math/master/grade_school_math/data/"
)
SHA256 = {
    "train.jsonl": "17f347dc51477c50d4efb83959dbb7c56297aba886e5544ee2aaed3024813465",
    "test.jsonl": "3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14",
}
INFO: dict[str, Any] = {
    "name": NAME,
    "title": "GSM8K",
    "description": "Grade-school maths word problems; the answer is a number, "
    "given with step-by-step reasoning.",
    "task": "math word problems",
    "sizes": {"train": 7473, "test": 1319},
    "licence": "MIT",
    "source": "https://github.com/openai/grade-school-math",
    "input_data_model": "MathQuestion",
    "output_data_model": "NumericalAnswerWithThinking",
}

_ANNOTATION = re.compile(r"<<[^<>]*>>")
_ANSWER_MARK = "####"


class MathQuestion(DataModel):
    """A maths word problem."""

    question: str = Field(description="The maths word problem to solve")


class NumericalAnswerWithThinking(DataModel):
    """Step-by-step reasoning followed by the numerical answer."""

    thinking: str = Field(description="Your step by step thinking")
    answer: float = Field(description="The numerical answer")


def get_input_data_model() -> type[MathQuestion]:
    """The input data model of GSM8K: `MathQuestion(question: str)`."""
    return MathQuestion


def get_output_data_model() -> type[NumericalAnswerWithThinking]:
    """The output data model: `NumericalAnswerWithThinking(thinking: str, answer: float)`."""
    return NumericalAnswerWithThinking


def load_data(*, path: StrPath | None = None, limit: int | None = None) -> Splits:
    """Load GSM8K as arrays of data models.

    Args:
        path: a folder holding ``train.jsonl`` and ``test.jsonl`` (or a
            ``gsm8k/`` folder with them). Defaults to None: use
            ``$OPTIMIZER_CORE_DATA_DIR``, the cache, or download.
        limit: keep at most this many rows of each split (the first ones).
            Defaults to None (all rows).

    Returns:
        ``((x_train, y_train), (x_test, y_test))``: numpy object arrays of
        `MathQuestion` and `NumericalAnswerWithThinking`.

    Raises:
        DataError: a file is missing, damaged or malformed.

    Example:
        ```python
        (x_train, y_train), (x_test, y_test) = datasets.gsm8k.load_data(limit=50)
        x_train[0].question  # "Natalia sold clips to 48 of her friends..."
        y_train[0].answer  # 72.0
        ```
    """
    check_limit(limit)
    train = _read_split("train.jsonl", path=path, limit=limit)
    test = _read_split("test.jsonl", path=path, limit=limit)
    return train, test


def parse_solution(solution: str) -> NumericalAnswerWithThinking:
    """Split a GSM8K solution into its reasoning and its final number.

    Args:
        solution: the ``answer`` text of a row, ending with ``#### <number>``.

    Raises:
        ValueError: the text has no ``####`` or no number after it.

    Example:
        ```python
        parse_solution("48/2 = <<48/2=24>>24\\n#### 24")
        # NumericalAnswerWithThinking(thinking="48/2 = 24", answer=24.0)
        ```
    """
    reasoning, mark, number = solution.rpartition(_ANSWER_MARK)
    if not mark:
        raise ValueError(f"the solution has no {_ANSWER_MARK!r} before its answer")
    try:
        answer = float(number.strip().replace(",", ""))
    except ValueError:
        raise ValueError(f"the final answer {number.strip()!r} is not a number") from None
    thinking = _ANNOTATION.sub("", reasoning).strip()
    return NumericalAnswerWithThinking(thinking=thinking, answer=answer)


def _read_split(
    file_name: str, *, path: StrPath | None, limit: int | None
) -> tuple[np.ndarray, np.ndarray]:
    data_file = DataFile(NAME, file_name, BASE_URL + file_name, SHA256[file_name])
    location = resolve(data_file, path=path)
    inputs: list[MathQuestion] = []
    outputs: list[NumericalAnswerWithThinking] = []
    with location.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if limit is not None and len(inputs) >= limit:
                break
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                inputs.append(MathQuestion(question=row["question"]))
                outputs.append(parse_solution(row["answer"]))
            except (ValueError, KeyError, TypeError, ValidationError) as error:
                raise DataError(
                    f"{location}, line {number}: malformed GSM8K row ({error})"
                ) from error
    return object_array(inputs), object_array(outputs)

"""Decision and MultiDecision: Generators whose answer is a label from a given list.

A Decision asks its language model a question about its input and constrains
the answer to the labels: its output model is ``{thinking, choice}`` with
``choice`` an enum of the labels, so a structured-output provider (and the
bundled model's grammar) can only answer one of them, and anything else fails
validation and is retried. The model sees the input with the question added as
its last field, ``question`` (``question_1`` when the input has a ``question``
already, as a merge names it). MultiDecision answers ``{thinking, choices}``, one
or more labels.

Both are Generators: their instructions and few-shot examples are a trainable
variable like any Generator's, and an optimizer's examples for them are the
decisions of rows that scored well.
"""

from __future__ import annotations

import functools
import json
import typing
from collections.abc import Sequence
from typing import Any

import pydantic
from pydantic import Field

from optimizer_core.datamodels import DataModel, JsonDict
from optimizer_core.model_algebra import concat_values
from optimizer_core.modules.generator import Generator

__all__ = ["Decision", "MultiDecision", "Question", "check_labels"]


class Question(DataModel):
    """The question a Decision adds to its input."""

    question: str = Field(description="The question to answer about the rest of the input")


def check_labels(labels: Any, *, owner: str) -> list[str]:
    """The labels as a list, checked: at least two distinct non-empty strings.

    Raises:
        ValueError: naming `owner` and what is wrong.
    """
    if isinstance(labels, str) or not isinstance(labels, Sequence):
        raise ValueError(f"{owner}: `labels` must be a list of strings, got {labels!r}")
    found = list(labels)
    if not all(isinstance(label, str) and label.strip() for label in found):
        raise ValueError(f"{owner}: every label must be a non-empty string, got {found!r}")
    if len(found) < 2:
        raise ValueError(f"{owner}: `labels` needs at least two labels to choose from, got {found}")
    repeated = sorted({label for label in found if found.count(label) > 1})
    if repeated:
        raise ValueError(f"{owner}: labels must be distinct, {repeated} repeat")
    return found


@functools.lru_cache(maxsize=256)
def decision_answer(labels: tuple[str, ...]) -> type[DataModel]:
    """``{thinking, choice}`` with ``choice`` one of `labels`."""
    model: type[DataModel] = pydantic.create_model(
        "DecisionAnswer",
        __base__=DataModel,
        __doc__="A decision: the reasoning, then the label chosen.",
        thinking=(str, Field(description="Your step by step thinking to choose the label")),
        choice=(typing.Literal[labels], Field(description="The label chosen")),  # type: ignore[arg-type]
    )
    return model


@functools.lru_cache(maxsize=256)
def multi_decision_answer(labels: tuple[str, ...]) -> type[DataModel]:
    """``{thinking, choices}`` with ``choices`` one or more of `labels`."""
    model: type[DataModel] = pydantic.create_model(
        "MultiDecisionAnswer",
        __base__=DataModel,
        __doc__="A decision: the reasoning, then the labels chosen.",
        thinking=(str, Field(description="Your step by step thinking to choose the labels")),
        choices=(
            list[typing.Literal[labels]],  # type: ignore[valid-type]
            Field(description="The labels chosen (one or more)", min_length=1),
        ),
    )
    return model


class Decision(Generator):
    """Answer a question about the input with one label of a given list.

    Args:
        question: the question to answer (``"How hard is this query?"``).
        labels: the labels to choose from (at least two, distinct).
        language_model: the `LanguageModel` to call.
        instructions: initial instructions (default: ask for one of the labels).
        examples: initial few-shot examples, a list of ``{inputs, outputs}``.
        name, description, trainable: see `Module`.
        **settings: the other `Generator` arguments (``temperature``,
            ``use_inputs_schema``...).

    Example:
        ```python
        level = await Decision(
            question="Evaluate the difficulty to answer the provided query",
            labels=["easy", "difficult"],
            language_model=lm,
        )(inputs)
        # level["choice"] is "easy" or "difficult"; level["thinking"] says why
        ```
    """

    #: The output field holding the labels chosen.
    choice_field = "choice"

    def __init__(
        self,
        *,
        question: str | None = None,
        labels: Sequence[str] | None = None,
        language_model: Any = None,
        instructions: str | None = None,
        examples: list[JsonDict] | None = None,
        name: str | None = None,
        description: str | None = None,
        trainable: bool = True,
        **settings: Any,
    ) -> None:
        owner = f"{type(self).__name__} {name!r}" if name else type(self).__name__
        if not isinstance(question, str) or not question.strip():
            raise ValueError(f"{owner}: `question` must be a non-empty string, got {question!r}")
        self.question = question
        self.labels = check_labels(labels, owner=owner)
        super().__init__(
            data_model=self.answer_model(tuple(self.labels)),
            language_model=language_model,
            instructions=instructions,
            examples=examples,
            name=name,
            description=description,
            trainable=trainable,
            **settings,
        )

    @staticmethod
    def answer_model(labels: tuple[str, ...]) -> type[DataModel]:
        return decision_answer(labels)

    def default_instructions(self) -> str:
        return (
            "The input ends with a question about the rest of it. Answer it by choosing one "
            f"of these labels: {json.dumps(self.labels, ensure_ascii=False)}. Think it through "
            "step by step in `thinking`, then give the label in `choice`."
        )

    def prompt_input(self, values: list[DataModel]) -> DataModel:
        return concat_values([*values, Question(question=self.question)], base=DataModel)

    def chosen(self, output: DataModel | None) -> list[str]:
        """The labels an output of this module chose ([] for None)."""
        if output is None:
            return []
        value = getattr(output, self.choice_field, None)
        if isinstance(value, str):
            return [value]
        return [label for label in self.labels if label in (value or [])]

    def get_config(self) -> JsonDict:
        config = super().get_config()
        config.pop("data_model", None)
        return {"question": self.question, "labels": list(self.labels), **config}

    @classmethod
    def from_config(cls, config: JsonDict) -> Generator:
        from optimizer_core import language_models

        config = dict(config)
        config["language_model"] = language_models.deserialize(config["language_model"])
        return cls(**config)


class MultiDecision(Decision):
    """Answer a question about the input with one or more labels of a given list.

    Its output is ``{thinking, choices}``. Arguments as `Decision`.

    Example:
        ```python
        topics = await MultiDecision(
            question="Which topics does this article cover?",
            labels=["science", "finance", "sports"],
            language_model=lm,
        )(inputs)
        ```
    """

    choice_field = "choices"

    @staticmethod
    def answer_model(labels: tuple[str, ...]) -> type[DataModel]:
        return multi_decision_answer(labels)

    def default_instructions(self) -> str:
        return (
            "The input ends with a question about the rest of it. Answer it by choosing one "
            f"or more of these labels: {json.dumps(self.labels, ensure_ascii=False)}. Think it "
            "through step by step in `thinking`, then list the labels that apply in `choices`."
        )

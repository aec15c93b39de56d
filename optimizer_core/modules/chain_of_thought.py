"""ChainOfThought: a Generator that thinks before it answers."""

from __future__ import annotations

import pydantic
from pydantic import Field

from optimizer_core.datamodels import DataModel
from optimizer_core.modules.generator import Generator


def with_thinking(data_model: type[DataModel]) -> type[DataModel]:
    """A DataModel with a leading ``thinking`` string field, then the original fields."""
    if "thinking" in data_model.model_fields:
        return data_model
    fields: dict[str, object] = {
        "thinking": (str, Field(description="Your step by step thinking")),
    }
    for key, info in data_model.model_fields.items():
        fields[key] = (info.annotation, info)
    model: type[DataModel] = pydantic.create_model(  # type: ignore[call-overload]
        f"{data_model.__name__}WithThinking",
        __base__=DataModel,
        __doc__=data_model.__doc__,
        **fields,
    )
    return model


class ChainOfThought(Generator):
    """A Generator whose output gets a leading ``thinking`` field.

    The language model writes its reasoning first, then the fields of
    `data_model`. Rewards usually mask the thinking out:
    ``ExactMatch(in_mask=["answer"])``.

    Example:
        ```python
        outputs = await ChainOfThought(data_model=Answer, language_model=lm)(inputs)
        ```
    """

    def build_output_model(self, data_model: type[DataModel]) -> type[DataModel]:
        return with_thinking(data_model)

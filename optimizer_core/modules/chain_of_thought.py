"""ChainOfThought: a Generator that thinks before it answers."""

from __future__ import annotations

from typing import Any

import pydantic
from pydantic import Field

from optimizer_core.datamodels import DataModel, JsonDict
from optimizer_core.modules.generator import Generator


class TextAnswer(DataModel):
    """A free-text answer: what `ChainOfThought` writes when it is given no data model."""

    content: str = Field(description="Your answer")


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

    Without a `data_model` (or a `schema`) the answer is free text: the output is
    ``{"thinking": ..., "content": ...}`` (`TextAnswer`), ``content`` named as the
    reference library's chat message field, so a reward on ``content`` carries
    over. Unlike the reference, which returns a whole chat message (``role``,
    ``reasoning_content``) from an unstructured call, the thinking is asked for
    as a field like any ChainOfThought's, and bounded like it.

    Args:
        data_model: the answer's DataModel (default None: a free-text `TextAnswer`).
        **kwargs: `Generator`'s arguments (``max_tokens``, ``top_p``, ``top_k``,
            ``reasoning_effort`` included).

    Example:
        ```python
        outputs = await ChainOfThought(data_model=Answer, language_model=lm)(inputs)
        text = await ChainOfThought(language_model=lm)(inputs)  # thinking + content
        ```
    """

    def __init__(
        self,
        *,
        data_model: type[DataModel] | None = None,
        schema: JsonDict | None = None,
        **kwargs: Any,
    ) -> None:
        self.free_text = data_model is None and schema is None
        """Whether the answer is free text (`TextAnswer`): no data model was given."""
        super().__init__(
            data_model=TextAnswer if self.free_text else data_model, schema=schema, **kwargs
        )

    def build_output_model(self, data_model: type[DataModel]) -> type[DataModel]:
        return with_thinking(data_model)

    def get_config(self) -> JsonDict:
        config = super().get_config()
        if self.free_text:
            config["data_model"] = None
        return config

"""Generator: one structured language-model call, with trainable instructions and examples."""

from __future__ import annotations

import json
import logging
from typing import Any

from pydantic import Field

from optimizer_core import model_algebra
from optimizer_core.datamodels import DataModel, JsonDict, to_json
from optimizer_core.exceptions import LanguageModelError
from optimizer_core.language_models.language_model import (
    ReasoningEffort,
    check_sampling,
    output_schema,
)
from optimizer_core.modules.module import Module, SymbolicDataModel, note_step, variable_value
from optimizer_core.modules.serialization import deserialize_data_model, serialize_data_model
from optimizer_core.variables import Variable

logger = logging.getLogger("optimizer_core")


class Example(DataModel):
    """One few-shot example: an input, the output to imitate, and the reward it earned."""

    inputs: JsonDict = Field(description="The example's input JSON")
    outputs: JsonDict = Field(description="The example's output JSON")
    reward: float | None = Field(default=None, description="Reward this output earned")


class GeneratorState(DataModel):
    """The trainable fields of a Generator."""

    instructions: str = Field(description="Instructions given to the language model")
    examples: list[Example] = Field(default_factory=list, description="Few-shot examples")


def default_instructions(data_model: type[DataModel]) -> str:
    keys = json.dumps(list(data_model.model_fields))
    return f"Your task is to answer with a JSON containing the following keys: {keys}."


class Generator(Module):
    """Ask a language model for a JSON that fits a DataModel.

    The prompt is: a system message with the instructions, then the few-shot
    examples (input JSON, output JSON) and optionally the schemas; a user
    message with the input JSON. The answer is requested as structured output
    with the DataModel's JSON schema and validated against it. A call that
    still fails after the language model's retries gives ``None`` (and is
    counted by the trainer), so one bad sample never stops a batch.

    Called on several inputs (``await Generator(...)([question, draft])``), it
    sees them as one JSON: their fields merged as `Concat` merges them (a name
    already taken gets a ``_1`` suffix). An input that is None (a branch not
    taken) makes the output None without a call.

    Args:
        data_model: the output DataModel (the JSON the model must fill).
        language_model: the `LanguageModel` to call.
        instructions: initial instructions (default: name the output keys).
        examples: initial few-shot examples, a list of ``{inputs, outputs}``.
        use_inputs_schema: also show the input JSON schema in the prompt.
        use_outputs_schema: also show the output JSON schema in the prompt.
        return_inputs: output the inputs' fields followed by the answer's (default
            False: the answer alone), as the reference library's ``return_inputs``.
        temperature: sampling temperature for this module (default: the model's).
        max_tokens: the most tokens one answer may have (default None: the
            model's setting, else what the longest answer the output schema allows
            needs; see `optimizer_core.language_models.bounds`). An answer cut at
            it that does not parse is a failed sample.
        top_p: nucleus sampling's probability mass, in (0, 1] (default None: the
            provider's); sent to providers that take it.
        top_k: top-k sampling's cutoff, >= 1 (default None: the provider's); sent to
            providers that take it (the bundled model does, OpenAI does not).
        reasoning_effort: ``"minimal"``, ``"low"``, ``"medium"``, ``"high"``,
            ``"disable"`` or ``"none"`` (default None: not sent); sent to models
            litellm knows reason, whose hidden reasoning then gets room within
            ``max_tokens``.
        name, description, trainable: see `Module`.

    Example:
        ```python
        outputs = await Generator(data_model=Answer, language_model=lm)(inputs)
        ```
    """

    def __init__(
        self,
        *,
        data_model: type[DataModel] | None = None,
        schema: JsonDict | None = None,
        language_model: Any = None,
        instructions: str | None = None,
        examples: list[JsonDict] | None = None,
        use_inputs_schema: bool = False,
        use_outputs_schema: bool = False,
        return_inputs: bool = False,
        temperature: float | None = None,
        max_tokens: int | None = None,
        top_p: float | None = None,
        top_k: int | None = None,
        reasoning_effort: ReasoningEffort | None = None,
        name: str | None = None,
        description: str | None = None,
        trainable: bool = True,
    ) -> None:
        super().__init__(name=name, description=description, trainable=trainable)
        if data_model is None and schema is not None:
            from optimizer_core.datamodels import data_model_from_schema

            data_model = data_model_from_schema(schema)
        if not (isinstance(data_model, type) and issubclass(data_model, DataModel)):
            raise TypeError(
                f"Generator {self.name!r}: `data_model` must be a DataModel subclass, "
                f"got {data_model!r}"
            )
        if language_model is None:
            raise ValueError(f"Generator {self.name!r}: `language_model` is required")
        try:
            check_sampling(
                temperature=temperature,
                max_tokens=max_tokens,
                top_p=top_p,
                top_k=top_k,
                reasoning_effort=reasoning_effort,
            )
        except ValueError as error:
            raise ValueError(f"Generator {self.name!r}: {error}") from None
        self.data_model = data_model
        self.language_model = language_model
        self.use_inputs_schema = use_inputs_schema
        self.use_outputs_schema = use_outputs_schema
        if not isinstance(return_inputs, bool):
            raise TypeError(f"`return_inputs` must be True or False, got {return_inputs!r}")
        self.return_inputs = return_inputs
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.top_p = top_p
        self.top_k = top_k
        self.reasoning_effort: ReasoningEffort | None = reasoning_effort
        self.initial_instructions = instructions
        self.output_model = self.build_output_model(data_model)
        self.state = self.add_variable(
            Variable(
                name=f"{self.name}/state",
                initial_value={
                    "instructions": instructions or self.default_instructions(),
                    "examples": list(examples or []),
                },
                data_model=GeneratorState,
                trainable=trainable,
            )
        )

    def build_output_model(self, data_model: type[DataModel]) -> type[DataModel]:
        """The DataModel the language model fills (ChainOfThought adds ``thinking``)."""
        return data_model

    def default_instructions(self) -> str:
        """The instructions when none are given: name the output keys."""
        return default_instructions(self.output_model)

    def compute_output_spec(self, inputs: list[SymbolicDataModel]) -> type[DataModel]:
        if not inputs:
            raise TypeError(f"Generator {self.name!r} needs at least one input")
        if not self.return_inputs:
            return self.output_model
        models = [symbol.data_model for symbol in inputs]
        prompt = model_algebra.concat_models(models, base=DataModel)
        return model_algebra.concat_models([prompt, self.output_model], base=DataModel)

    def prompt_input(self, values: list[DataModel]) -> DataModel:
        """The one DataModel the language model is shown for these inputs (merged)."""
        return model_algebra.concat_values(values, base=DataModel)

    # Prompt ---------------------------------------------------------------------------------

    def format_messages(
        self, inputs: JsonDict, input_schema: JsonDict | None = None
    ) -> list[dict[str, str]]:
        state = variable_value(self.state)
        parts = [str(state.get("instructions") or "")]
        if self.use_inputs_schema and input_schema is not None:
            parts.append("Input JSON schema:\n" + json.dumps(input_schema, ensure_ascii=False))
        if self.use_outputs_schema:
            parts.append("Output JSON schema:\n" + output_schema(self.output_model).text)
        examples = state.get("examples") or []
        if examples:
            shown = [
                "Input: "
                + json.dumps(example["inputs"], ensure_ascii=False)
                + "\nOutput: "
                + json.dumps(example["outputs"], ensure_ascii=False)
                for example in examples
            ]
            parts.append("Examples:\n\n" + "\n\n".join(shown))
        return [
            {"role": "system", "content": "\n\n".join(p for p in parts if p)},
            {"role": "user", "content": json.dumps(inputs, ensure_ascii=False)},
        ]

    # Run ------------------------------------------------------------------------------------

    async def call(self, inputs: Any, *, training: bool = False) -> DataModel | None:
        values = list(inputs) if isinstance(inputs, list | tuple) else [inputs]
        if any(value is None for value in values):
            return None
        prompt: DataModel | None = None
        if all(isinstance(value, DataModel) for value in values):
            prompt = self.prompt_input(values)
            input_json = prompt.get_json()
        elif len(values) == 1:
            input_json = to_json(values[0]) or {}
        else:
            raise TypeError(
                f"Generator {self.name!r}: several inputs must be DataModels, got "
                f"{[type(value).__name__ for value in values]}"
            )
        if prompt is not values[0]:
            note_step(inputs=input_json)  # the examples show what the model was shown
        input_schema = (
            type(prompt).get_schema() if self.use_inputs_schema and prompt is not None else None
        )
        messages = self.format_messages(input_json, input_schema)
        output: DataModel | None = None
        try:
            # The language model validates the answer against the output model (once)
            # and returns the instance; its schema is built once per class.
            output = await self.language_model(
                messages,
                data_model=self.output_model,
                temperature=self.temperature,
                max_tokens=self.max_tokens,
                top_p=self.top_p,
                top_k=self.top_k,
                reasoning_effort=self.reasoning_effort,
            )
        except LanguageModelError as failure:
            error = f"{type(failure).__name__}: {failure}"
            note_step(error=error, exception=failure)
            logger.warning("Generator %r failed: %s", self.name, error)
        if output is None or not self.return_inputs:
            return output
        shown = [prompt] if prompt is not None else []
        return model_algebra.concat_values([*shown, output], base=DataModel)

    # Config ---------------------------------------------------------------------------------

    def get_config(self) -> JsonDict:
        from optimizer_core.saving.object_registry import serialize_object

        return {
            **super().get_config(),
            "data_model": serialize_data_model(self.data_model),
            "language_model": serialize_object(self.language_model),
            "instructions": self.initial_instructions,
            "use_inputs_schema": self.use_inputs_schema,
            "use_outputs_schema": self.use_outputs_schema,
            "return_inputs": self.return_inputs,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "top_p": self.top_p,
            "top_k": self.top_k,
            "reasoning_effort": self.reasoning_effort,
        }

    @classmethod
    def from_config(cls, config: JsonDict) -> Generator:
        from optimizer_core import language_models

        config = dict(config)
        if config.get("data_model") is not None:
            config["data_model"] = deserialize_data_model(config["data_model"])
        config["language_model"] = language_models.deserialize(config["language_model"])
        return cls(**config)

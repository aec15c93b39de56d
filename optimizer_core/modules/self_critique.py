"""SelfCritique: critique the input (with a reward), then optionally revise it.

A SelfCritique holds a critic, a Generator that writes ``{critique, reward}``
about its input (``return_reward=False`` asks for the critique alone). As the
reference library's ``Score``, the reward is one of eleven levels, 0.0 (very bad)
to 1.0 (very good) in steps of 0.1: the schema lists them as an ``enum``, so a
model whose output a grammar constrains (the bundled one) writes nothing else,
where a bare ``number`` between bounds let it write any number (llama.cpp's
grammars do not bound a ``number``) and the row lost its critique to the failed
check. A grade another provider writes off the scale is clamped to [0, 1], as
the reference's ``normalize_score`` clamps. As in the reference library the
output is the input followed by the critique (``return_inputs``, default True),
so the modules after it see what was critiqued.

With ``revise=True`` a second Generator, the reviser, sees the input with the
critique and writes the critiqued data again: the fields of the *last* input
(earlier inputs are context, such as the question an answer answers). The output
is then the revised data followed by the critique, so a reward that reads
``answer`` reads the revised answer. The reviser is built when the module is first
wired, since what it writes is its input's model.

Both are Generators with trainable instructions and examples; in training each
gets the row's reward for what it wrote.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import AfterValidator, Field

from optimizer_core import model_algebra
from optimizer_core.datamodels import DataModel, JsonDict, schemas_equal
from optimizer_core.modules.generator import Generator
from optimizer_core.modules.module import Module, SymbolicDataModel

__all__ = ["REWARD_LEVELS", "Critique", "CritiqueWithReward", "SelfCritique", "clamp_reward"]

#: The grades a critic picks from (the reference's ``Score``: 0.0 to 1.0, eleven levels).
REWARD_LEVELS: tuple[float, ...] = tuple(round(level / 10, 1) for level in range(11))


def clamp_reward(value: float) -> float:
    """A grade brought into [0, 1]: below 0 is 0.0, above 1 is 1.0 (not a number is 0.0)."""
    value = float(value)
    if value != value:  # NaN
        return 0.0
    return min(1.0, max(0.0, value))


class Critique(DataModel):
    """A critique of the input."""

    critique: str = Field(
        description="A careful critique of the input: what is right, what is wrong or missing"
    )


class CritiqueWithReward(DataModel):
    """A critique of the input and a grade."""

    critique: str = Field(
        description="A careful critique of the input: what is right, what is wrong or missing"
    )
    reward: Annotated[float, AfterValidator(clamp_reward)] = Field(
        description="How good the input is, from 0.0 (very bad) to 1.0 (very good)",
        json_schema_extra={"enum": list(REWARD_LEVELS)},
    )


def critique_instructions(return_reward: bool) -> str:
    text = (
        "Examine the input carefully and write a critique of it in `critique`: what is "
        "right, what is wrong or missing, and how it could be better."
    )
    if return_reward:
        text += " Then grade it in `reward`, from 0.0 (very bad) to 1.0 (very good)."
    return text


def revision_instructions(keys: list[str]) -> str:
    return (
        "The input holds an answer, then a critique of it. Write the answer again with "
        "what the critique found wrong or missing fixed, keeping what was right. Answer "
        f"with a JSON containing the following keys: {json.dumps(keys)}."
    )


class SelfCritique(Module):
    """Critique the input with a language model, then optionally revise it.

    Args:
        language_model: the `LanguageModel` of the critic (and the reviser).
        instructions: the critic's initial instructions (default: its own).
        examples: the critic's initial few-shot examples.
        return_reward: the critic grades too, ``reward`` one of `REWARD_LEVELS`
            (clamped to [0, 1] where a provider ignores the schema; default True).
        return_inputs: output the input before the critique (default True without
            `revise`; with it the revised data takes the input's place, and True is
            refused).
        revise: add the reviser, which writes the last input's data again in the
            light of the critique (default False).
        revision_instructions: the reviser's initial instructions (default: its own).
        name, description, trainable: see `Module`; the critic is named
            ``<name>_critic`` and the reviser ``<name>_reviser``.
        **settings: the other `Generator` arguments of both (``temperature``...).

    Example:
        ```python
        answer = await ChainOfThought(data_model=Answer, language_model=lm)(inputs)
        critiqued = await SelfCritique(language_model=lm)(answer)
        # {thinking, answer, critique, reward}
        revised = await SelfCritique(language_model=lm, revise=True)([inputs, answer])
        # {thinking, answer (revised), critique, reward}
        ```
    """

    def __init__(
        self,
        *,
        language_model: Any = None,
        instructions: str | None = None,
        examples: list[JsonDict] | None = None,
        return_reward: bool = True,
        return_inputs: bool | None = None,
        revise: bool = False,
        revision_instructions: str | None = None,
        name: str | None = None,
        description: str | None = None,
        trainable: bool = True,
        **settings: Any,
    ) -> None:
        super().__init__(name=name, description=description, trainable=trainable)
        for argument, flag in (("return_reward", return_reward), ("revise", revise)):
            if not isinstance(flag, bool):
                raise TypeError(f"SelfCritique {self.name!r}: `{argument}` must be True or False")
        if return_inputs is not None and not isinstance(return_inputs, bool):
            raise TypeError(
                f"SelfCritique {self.name!r}: `return_inputs` must be True, False or None"
            )
        if revise and return_inputs:
            raise ValueError(
                f"SelfCritique {self.name!r}: with `revise=True` the revised data takes the "
                "input's place in the output; leave `return_inputs` unset"
            )
        self.language_model = language_model
        self.return_reward = return_reward
        self.revise = revise
        self.return_inputs = (not revise) if return_inputs is None else return_inputs
        self._return_inputs_given = return_inputs
        self.initial_instructions = instructions
        self.revision_instructions = revision_instructions
        self.settings = dict(settings)
        self.critic = Generator(
            data_model=CritiqueWithReward if return_reward else Critique,
            language_model=language_model,
            instructions=instructions or critique_instructions(return_reward),
            examples=examples,
            name=f"{self.name}_critic",
            trainable=trainable,
            **settings,
        )
        self.add_module(self.critic)
        self.reviser: Generator | None = None

    def _build_reviser(self, target: type[DataModel]) -> Generator:
        if self.reviser is not None:
            if not schemas_equal(self.reviser.data_model, target):
                raise TypeError(
                    f"SelfCritique {self.name!r} revises {self.reviser.data_model.__name__}; "
                    f"it cannot revise {target.__name__} too (use another SelfCritique)"
                )
            return self.reviser
        self.reviser = Generator(
            data_model=target,
            language_model=self.language_model,
            instructions=self.revision_instructions
            or revision_instructions(list(target.model_fields)),
            name=f"{self.name}_reviser",
            trainable=self.trainable,
            **self.settings,
        )
        self.add_module(self.reviser)
        return self.reviser

    def compute_output_spec(self, inputs: list[SymbolicDataModel]) -> type[DataModel]:
        if not inputs:
            raise TypeError(f"SelfCritique {self.name!r} needs at least one input")
        models = [symbol.data_model for symbol in inputs]
        critique = self.critic.output_model
        if self.revise:
            target = self._build_reviser(models[-1]).output_model
            return model_algebra.concat_models([target, critique], base=DataModel)
        if not self.return_inputs:
            return critique
        merged = model_algebra.concat_models(models, base=DataModel)
        return model_algebra.concat_models([merged, critique], base=DataModel)

    async def call(self, inputs: Any, *, training: bool = False) -> DataModel | None:
        values = list(inputs) if isinstance(inputs, list | tuple) else [inputs]
        merged = model_algebra.concat_values(values, base=DataModel)
        critique: DataModel | None = await self.critic(merged, training=training)
        if critique is None:
            return None
        if self.revise:
            reviser = self.reviser or self._build_reviser(type(values[-1]))
            revised: DataModel | None = await reviser(
                model_algebra.concat_values([merged, critique], base=DataModel),
                training=training,
            )
            if revised is None:
                return None
            return model_algebra.concat_values([revised, critique], base=DataModel)
        if not self.return_inputs:
            return critique
        return model_algebra.concat_values([merged, critique], base=DataModel)

    def get_config(self) -> JsonDict:
        from optimizer_core.saving.object_registry import serialize_object

        return {
            **super().get_config(),
            "language_model": serialize_object(self.language_model),
            "instructions": self.initial_instructions,
            "return_reward": self.return_reward,
            "return_inputs": self._return_inputs_given,
            "revise": self.revise,
            "revision_instructions": self.revision_instructions,
            **self.settings,
        }

    @classmethod
    def from_config(cls, config: JsonDict) -> SelfCritique:
        from optimizer_core import language_models

        config = dict(config)
        config["language_model"] = language_models.deserialize(config["language_model"])
        return cls(**config)

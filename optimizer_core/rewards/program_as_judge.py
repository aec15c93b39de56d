"""ProgramAsJudge: another program reads gold and predicted fields and outputs a reward."""

from __future__ import annotations

import abc
import inspect
import warnings
from collections.abc import Mapping
from typing import Any

import pydantic

from optimizer_core.datamodels import JsonDict
from optimizer_core.exceptions import DataError, SerializationError
from optimizer_core.modules.module import Module
from optimizer_core.rewards.judge_inputs import judge_inputs
from optimizer_core.rewards.reward import Reward, Scored, to_number
from optimizer_core.saving.object_registry import Slot, deserialize_object, serialize_object

__all__ = ["JudgeProgram", "ProgramAsJudge"]

_MISSING = object()
#: The judge's output fields read as the row's feedback, the first non-empty one.
FEEDBACK_FIELDS = ("critique", "feedback")


class JudgeProgram(abc.ABC):  # noqa: B024 - a marker: classes register, none inherits
    """What a saved `ProgramAsJudge` may name as its judge: a `Module` or a `Program`.

    `Program` registers itself (``JudgeProgram.register(Program)``, beside its
    class), so rewards need not import programs, which train with rewards. A
    user's class registered with `register_synalinks_serializable` is accepted
    as well (any async callable the user wrote).
    """


JudgeProgram.register(Module)
_JUDGE = Slot("judge program", (JudgeProgram,), user_classes=True)


def _input_data_model(program: Any) -> type[pydantic.BaseModel] | None:
    """The pydantic model the judge program takes as input, when it exposes one."""
    model = getattr(program, "input_data_model", None)
    if model is None:
        inputs = getattr(program, "inputs", None)
        if isinstance(inputs, list | tuple) and inputs:
            first = inputs[0]
            model = first if isinstance(first, type) else getattr(first, "data_model", None)
    if isinstance(model, type) and issubclass(model, pydantic.BaseModel):
        return model
    return None


def _read_field(output: Any, field: str) -> Any:
    """``output[field]`` for a pydantic model, a dict, or an object with get_json()/get()."""
    if isinstance(output, pydantic.BaseModel):
        data: Any = output.model_dump(mode="json")
    elif isinstance(output, Mapping):
        data = output
    elif callable(getattr(output, "get_json", None)):
        data = output.get_json()
    elif callable(getattr(output, "get", None)):
        value = output.get(field)
        return _MISSING if value is None else value
    else:
        return _MISSING
    return data.get(field, _MISSING) if isinstance(data, Mapping) else _MISSING


class ProgramAsJudge(Reward):
    """A reward given by a judge program.

    The judge receives one input holding the masked ground truth's fields
    prefixed ``gold_`` (``gold_answer``) beside the masked prediction's fields
    (``answer``). The input is validated into the program's input DataModel
    when the program exposes it (``program.input_data_model``, or the data model
    of ``program.inputs[0]``); otherwise the plain dict is passed. The judge's
    output should have a ``reward`` field; its value is clamped to [0, 1]. A
    judge that returns ``None`` (a failed judgement), or an output without a
    ``reward`` field, gives 0.0 and a `RuntimeWarning` (``warnings.warn``, so it
    can be filtered or caught): a judge that slips must not stop a run. The
    output's ``critique`` (or else ``feedback``) text, when it has one, is the
    row's feedback (`MaskedScorer.score_with_feedback`).

    Args:
        program: the judge, an async callable such as a `Program`. Required.
        name: the name it is logged under (default ``"program_as_judge"``).
        in_mask: show the judge only these fields (default None: all of them).
        out_mask: hide these fields from the judge (default None).
        in_mask_pattern: a regex; the fields whose name matches are kept too (default None).
        out_mask_pattern: a regex; the fields whose name matches are dropped too (default None).

    Example:
        ```python
        judge = Program(inputs=judge_inputs, outputs=judge_outputs)
        reward = ProgramAsJudge(program=judge, in_mask=["answer"])
        ```
    """

    needs = frozenset({"program"})

    def __init__(
        self,
        *,
        program: Any = None,
        name: str | None = None,
        in_mask: list[str] | None = None,
        out_mask: list[str] | None = None,
        in_mask_pattern: str | None = None,
        out_mask_pattern: str | None = None,
    ) -> None:
        if program is None:
            raise ValueError("`program` is required, got None")
        if not callable(program):
            raise TypeError(
                f"`program` must be a program (an async callable), got {type(program).__name__}"
            )
        super().__init__(
            name=name,
            in_mask=in_mask,
            out_mask=out_mask,
            in_mask_pattern=in_mask_pattern,
            out_mask_pattern=out_mask_pattern,
        )
        self.program = program

    async def call(self, y_true: JsonDict | None, y_pred: JsonDict | None) -> float | Scored:
        payload = judge_inputs(y_true, y_pred)
        model = _input_data_model(self.program)
        judge_input: Any = payload
        if model is not None:
            try:
                judge_input = model.model_validate(payload)
            except pydantic.ValidationError as error:
                raise DataError(
                    f"reward {self.name!r}: the judge's input model {model.__name__} does not "
                    f"accept the fields {sorted(payload)}: {error}"
                ) from error
        output = self.program(judge_input)
        if inspect.isawaitable(output):
            output = await output
        if output is None:
            warnings.warn(
                f"reward {self.name!r}: the judge program returned None (a failed judgement, "
                "often a language model or structured-output failure); scoring 0.0",
                RuntimeWarning,
                stacklevel=2,
            )
            return 0.0
        reward = _read_field(output, "reward")
        if reward is _MISSING:
            warnings.warn(
                f"reward {self.name!r}: the judge program's output has no `reward` field "
                f"(got {type(output).__name__}); scoring 0.0. Give its output data model "
                "a `reward: float` field",
                RuntimeWarning,
                stacklevel=2,
            )
            return 0.0
        number = to_number(reward, what=f"the judge program of reward {self.name!r}")
        clamped = min(max(number, 0.0), 1.0)
        for field in FEEDBACK_FIELDS:
            text = _read_field(output, field)
            if isinstance(text, str) and text.strip():
                return Scored(clamped, text.strip())
        return clamped

    def get_config(self) -> dict[str, Any]:
        if not callable(getattr(self.program, "get_config", None)):
            raise SerializationError(
                f"reward {self.name!r} cannot be saved: its judge program "
                f"({type(self.program).__name__}) has no get_config()"
            )
        return {"program": serialize_object(self.program), **super().get_config()}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> ProgramAsJudge:
        config = dict(config)
        program = config.pop("program", None)
        if isinstance(program, dict):
            program = deserialize_object(program, slot=_JUDGE)
        return cls(program=program, **config)

"""The merge modules: Concat, And, Or, Xor and Not, and the operators ``+ & | ^ ~``.

What each gives, for two inputs (more inputs fold from the left):

| `x1`   | `x2`   | Concat `+` | And `&`   | Or `|` | Xor `^` |
| ------ | ------ | ---------- | --------- | ------ | ------- |
| `x1`   | `x2`   | `x1 + x2`  | `x1 + x2` | `x1`   | None    |
| `x1`   | None   | error      | None      | `x1`   | `x1`    |
| None   | `x2`   | error      | None      | `x2`   | `x2`    |
| None   | None   | error      | None      | None   | None    |

``x1 + x2`` holds the fields of both, a name already taken renamed ``_1``, ``_2``
(`model_algebra`). Concat given a None fails the row with an error naming the
input (the reference library raises, which would stop a whole `fit`); use And to
get None instead. Or and Xor give one of their inputs, as an instance of the
union of the input models (`model_algebra.union_models`), so the output always
fits the declared schema; the reference's Or concatenates when both are present,
which its own declared schema (the first input's) does not describe. Or is how the
slots of a `Branch` come back together: ``easy | hard``.

Not gives None whatever it gets: it cancels a path (``~x``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from optimizer_core import model_algebra
from optimizer_core.datamodels import DataModel
from optimizer_core.modules.module import (
    Module,
    SymbolicDataModel,
    note_step,
    register_operator,
)

__all__ = ["And", "Concat", "Not", "Or", "Xor"]


def _values(inputs: Any) -> list[Any]:
    return list(inputs) if isinstance(inputs, list | tuple) else [inputs]


def _models(inputs: list[SymbolicDataModel]) -> list[type[DataModel]]:
    return [symbol.data_model for symbol in inputs]


class Concat(Module):
    """The fields of all its inputs in one data model; every input must be there.

    A field name already taken gets a ``_1`` suffix (``_2`` for the next...), as in
    the reference library. An input that is None fails the row (its trace step
    names the input); `And` gives None instead.

    Example:
        ```python
        merged = await Concat()([answer, critique])   # or: answer + critique
        ```
    """

    propagates_none: ClassVar[bool] = False

    def compute_output_spec(self, inputs: list[SymbolicDataModel]) -> type[DataModel]:
        return model_algebra.concat_models(_models(inputs), base=DataModel)

    async def call(self, inputs: Any, *, training: bool = False) -> DataModel | None:
        values = _values(inputs)
        missing = [i for i, value in enumerate(values) if value is None]
        if missing:
            note_step(
                error=f"Concat needs all its inputs; input(s) {missing} gave nothing "
                "(use And to get None instead)"
            )
            return None
        return model_algebra.concat_values(values, base=DataModel)


class And(Module):
    """The fields of all its inputs in one data model, or None when one of them is None.

    Example:
        ```python
        with_question = await And()([question, answer])   # or: question & answer
        ```
    """

    def compute_output_spec(self, inputs: list[SymbolicDataModel]) -> type[DataModel]:
        return model_algebra.concat_models(_models(inputs), base=DataModel)

    async def call(self, inputs: Any, *, training: bool = False) -> DataModel | None:
        values = _values(inputs)
        if any(value is None for value in values):
            return None
        return model_algebra.concat_values(values, base=DataModel)


class _OneOf(Module):
    """An output that is one of the inputs, typed by the union of their models."""

    propagates_none: ClassVar[bool] = False

    def compute_output_spec(self, inputs: list[SymbolicDataModel]) -> type[DataModel]:
        try:
            return model_algebra.union_models(_models(inputs), base=DataModel)
        except model_algebra.MergeError as error:
            raise TypeError(f"{type(self).__name__} {self.name!r}: {error}") from None

    _declared: type[DataModel] | None = None

    def symbolic_call(self, inputs: list[SymbolicDataModel]) -> Any:
        output = super().symbolic_call(inputs)
        if isinstance(output, SymbolicDataModel):
            self._declared = output.data_model
        return output

    def _as_output(self, value: DataModel) -> DataModel:
        """The value as an instance of the declared model (the union of the inputs')."""
        declared = self._declared
        if declared is None or type(value) is declared:
            return value
        return declared.model_validate(value.model_dump())


class Or(_OneOf):
    """The first input that is not None (None when all are).

    The way a `Branch`'s slots come back together: only the slot of the label
    taken holds a value. Fields that only some inputs have are optional in the
    output's model; two fields of one name and different types are refused when
    the program is built.

    Example:
        ```python
        (easy, hard) = await Branch(...)(inputs)
        answer = easy | hard                       # or: await Or()([easy, hard])
        ```
    """

    async def call(self, inputs: Any, *, training: bool = False) -> DataModel | None:
        values = _values(inputs)
        for value in values:
            if value is not None:
                return self._as_output(value)
        return None


class Xor(_OneOf):
    """The only input that is not None; None when none is, or when several are.

    Example:
        ```python
        only = await Xor()([a, b])   # or: a ^ b
        ```
    """

    async def call(self, inputs: Any, *, training: bool = False) -> DataModel | None:
        values = _values(inputs)
        present = [value for value in values if value is not None]
        if len(present) != 1:
            return None
        return self._as_output(present[0])


class Not(Module):
    """None, whatever its input: it cancels a path (``~x``). Its model is its input's.

    Example:
        ```python
        cancelled = ~draft
        ```
    """

    propagates_none: ClassVar[bool] = False

    def compute_output_spec(self, inputs: list[SymbolicDataModel]) -> type[DataModel]:
        if len(inputs) != 1:
            raise TypeError(f"Not {self.name!r} takes one input, got {len(inputs)}")
        return inputs[0].data_model

    async def call(self, inputs: Any, *, training: bool = False) -> None:
        return None


def _symbolic(module: type[Module]) -> Any:
    def build(inputs: list[SymbolicDataModel]) -> SymbolicDataModel:
        output = module().symbolic_call(inputs)
        if not isinstance(output, SymbolicDataModel):  # every merge has one output
            raise TypeError(f"{module.__name__} gave several outputs")
        return output

    return build


register_operator("+", _symbolic(Concat))
register_operator("&", _symbolic(And))
register_operator("|", _symbolic(Or))
register_operator("^", _symbolic(Xor))
register_operator("~", _symbolic(Not))

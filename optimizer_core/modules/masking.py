"""InMask and OutMask: keep or drop fields of a data model.

A mask names fields by base key, as rewards' masks do: ``answer`` also matches
``answers`` and ``answer_1`` (`optimizer_core.utils.json_utils`), so one entry
keeps every ``answer`` a merge renamed. Masks act on the top-level fields; a
nested object goes with its field. A mask that would leave no field is refused
when the program is built.
"""

from __future__ import annotations

from optimizer_core import model_algebra
from optimizer_core.datamodels import DataModel, JsonDict
from optimizer_core.modules.module import Module, SymbolicDataModel

__all__ = ["InMask", "OutMask"]


class _Mask(Module):
    keeps: bool = True

    def __init__(
        self,
        *,
        mask: list[str] | None = None,
        name: str | None = None,
        description: str | None = None,
        trainable: bool = False,
    ) -> None:
        super().__init__(name=name, description=description, trainable=trainable)
        what = "keep" if self.keeps else "drop"
        if (
            not isinstance(mask, list | tuple)
            or not mask
            or not all(isinstance(entry, str) and entry for entry in mask)
        ):
            raise ValueError(
                f"{type(self).__name__} {self.name!r}: `mask` must be a non-empty list of the "
                f"field names to {what}, got {mask!r}"
            )
        self.mask = list(mask)

    def masked(self, model: type[DataModel]) -> type[DataModel]:
        keep, drop = (self.mask, None) if self.keeps else (None, self.mask)
        try:
            return model_algebra.mask_model(model, base=DataModel, keep=keep, drop=drop)
        except model_algebra.MergeError as error:
            raise ValueError(f"{type(self).__name__} {self.name!r}: {error}") from None

    def compute_output_spec(self, inputs: list[SymbolicDataModel]) -> type[DataModel]:
        if len(inputs) != 1:
            raise TypeError(
                f"{type(self).__name__} {self.name!r} masks one data model, got {len(inputs)} "
                "inputs (merge them first, with Concat)"
            )
        return self.masked(inputs[0].data_model)

    async def call(self, inputs: DataModel, *, training: bool = False) -> DataModel:
        model = self.masked(type(inputs))
        if model is type(inputs):
            return inputs
        return model.model_validate({key: getattr(inputs, key) for key in model.model_fields})

    def get_config(self) -> JsonDict:
        return {**super().get_config(), "mask": list(self.mask)}


class InMask(_Mask):
    """Keep only the fields its `mask` names (by base key).

    Args:
        mask: the fields to keep (at least one of the input's must match).
        name, description, trainable: see `Module` (it has no variables).

    Example:
        ```python
        summary = await ChainOfThought(data_model=Summary, language_model=lm)(inputs)
        summary_only = await InMask(mask=["summary"])(summary)   # drops `thinking`
        ```
    """

    keeps = True


class OutMask(_Mask):
    """Drop the fields its `mask` names (by base key).

    Args:
        mask: the fields to drop (at least one field must be left).
        name, description, trainable: see `Module` (it has no variables).

    Example:
        ```python
        answer = await OutMask(mask=["thinking"])(reasoned)
        ```
    """

    keeps = False

"""Identity: its input, unchanged."""

from __future__ import annotations

from typing import Any, ClassVar

from optimizer_core.datamodels import DataModel
from optimizer_core.modules.module import Module, SymbolicDataModel

__all__ = ["Identity"]


class Identity(Module):
    """Give its input as it is (several inputs: one output each, in order).

    A placeholder while a program's shape is drawn, or a named point of the graph
    to read in a trace.

    Example:
        ```python
        same = await Identity()(inputs)
        ```
    """

    propagates_none: ClassVar[bool] = False

    def compute_output_spec(
        self, inputs: list[SymbolicDataModel]
    ) -> type[DataModel] | tuple[type[DataModel], ...]:
        if len(inputs) == 1:
            return inputs[0].data_model
        return tuple(symbol.data_model for symbol in inputs)

    async def call(self, inputs: Any, *, training: bool = False) -> Any:
        return tuple(inputs) if isinstance(inputs, list | tuple) else inputs

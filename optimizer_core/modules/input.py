"""Input: the entry point of a program's graph."""

from __future__ import annotations

from typing import Any

from optimizer_core.datamodels import DataModel, JsonDict
from optimizer_core.modules.module import Module, Node, SymbolicDataModel


class InputLayer(Module):
    """The module behind `Input`; holds the expected DataModel."""

    def __init__(
        self, *, data_model: type[DataModel], name: str | None = None, **kwargs: Any
    ) -> None:
        if not (isinstance(data_model, type) and issubclass(data_model, DataModel)):
            raise TypeError(f"`data_model` must be a DataModel subclass, got {data_model!r}")
        super().__init__(name=name or None, **kwargs)
        self.data_model = data_model
        node = Node(self, [])
        self.output = SymbolicDataModel(data_model, node=node)
        node.outputs = [self.output]

    async def call(self, inputs: Any, *, training: bool = False) -> Any:
        return inputs

    def get_config(self) -> JsonDict:
        from optimizer_core.modules.serialization import serialize_data_model

        return {**super().get_config(), "data_model": serialize_data_model(self.data_model)}

    @classmethod
    def from_config(cls, config: JsonDict) -> InputLayer:
        from optimizer_core.modules.serialization import deserialize_data_model

        config = dict(config)
        config["data_model"] = deserialize_data_model(config["data_model"])
        return cls(**config)


def Input(data_model: type[DataModel], *, name: str | None = None) -> SymbolicDataModel:
    """Declare a program input of the given DataModel.

    Example:
        ```python
        inputs = Input(data_model=Query)
        outputs = await Generator(data_model=Answer, language_model=lm)(inputs)
        program = Program(inputs=inputs, outputs=outputs)
        ```
    """
    return InputLayer(data_model=data_model, name=name).output

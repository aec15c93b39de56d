"""Data models: the typed JSON that flows through a program.

A `DataModel` is a pydantic v2 model. Its JSON schema is what a language model
must fill, what the studio's editor shows as a node's ports, and what dataset
rows are validated against.
"""

from __future__ import annotations

import json
from typing import Any

import pydantic
from pydantic import ConfigDict

JsonDict = dict[str, Any]


class DataModel(pydantic.BaseModel):
    """Base class for the inputs and outputs of a program.

    Example:
        ```python
        class Query(DataModel):
            query: str = Field(description="The user's question")
        ```
    """

    model_config = ConfigDict(extra="forbid")

    def get(self, key: str, default: Any = None) -> Any:
        """Read one field, or `default` when the model has no such field."""
        return self.get_json().get(key, default)

    def get_json(self) -> JsonDict:
        """The model as a plain JSON-compatible dict."""
        return self.model_dump(mode="json")

    @classmethod
    def get_schema(cls) -> JsonDict:
        """The JSON schema a language model has to fill."""
        return cls.model_json_schema()

    def pretty_json(self) -> str:
        return json.dumps(self.get_json(), indent=2, ensure_ascii=False)


def to_json(value: Any) -> JsonDict | None:
    """Turn a DataModel, a pydantic model, a dict or None into a JSON dict (or None)."""
    if value is None:
        return None
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, dict):
        return value
    raise TypeError(f"expected a DataModel, a dict or None, got {type(value).__name__}")

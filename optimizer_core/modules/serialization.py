"""How DataModels are written into saved programs.

A DataModel is saved as its JSON schema plus the import path of its class. On
load, the class is used when it is registered or already defined in this
process (nothing is imported in safe mode) and still has the same schema;
otherwise an equivalent DataModel is rebuilt from the schema, so a program
saved in a notebook loads in a worker that has never seen the class.
"""

from __future__ import annotations

from typing import Any

from optimizer_core.datamodels import (
    DataModel,
    JsonDict,
    data_model_from_schema,
    known_data_model,
)
from optimizer_core.exceptions import SerializationError
from optimizer_core.saving.object_registry import in_safe_mode, resolve_import_path


def serialize_data_model(data_model: type[DataModel]) -> JsonDict:
    return {
        "name": data_model.__name__,
        "class": f"{data_model.__module__}.{data_model.__qualname__}",
        "schema": data_model.model_json_schema(),
    }


def deserialize_data_model(config: Any) -> type[DataModel]:
    if isinstance(config, type) and issubclass(config, DataModel):
        return config
    if not isinstance(config, dict) or "schema" not in config:
        raise SerializationError(f"not a saved DataModel: {config!r}", config=config)
    schema = config["schema"]
    hint = config.get("class")
    if isinstance(hint, str) and hint:
        cls = known_data_model(hint, schema) if in_safe_mode() else resolve_import_path(hint)
        if (
            isinstance(cls, type)
            and issubclass(cls, DataModel)
            and cls.model_json_schema() == schema
        ):
            return cls
    try:
        return data_model_from_schema(schema, name=config.get("name"))
    except ValueError as error:
        raise SerializationError(
            f"cannot rebuild DataModel {config.get('name')!r}: {error}", config=config
        ) from error

"""How DataModels are written into saved programs.

A DataModel is saved as its JSON schema plus the import path of its class. On
load, the class is used when it imports and still has the same schema;
otherwise an equivalent DataModel is rebuilt from the schema, so a program
saved in a notebook loads in a worker that has never seen the class.
"""

from __future__ import annotations

import importlib
from typing import Any

from optimizer_core.datamodels import DataModel, JsonDict, data_model_from_schema
from optimizer_core.exceptions import SerializationError


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
        raise SerializationError(f"not a saved DataModel: {config!r}")
    schema = config["schema"]
    path = str(config.get("class") or "")
    module_name, _, qualname = path.rpartition(".")
    if module_name and "<locals>" not in path:
        try:
            cls: Any = importlib.import_module(module_name)
            for part in qualname.split("."):
                cls = getattr(cls, part)
            if (
                isinstance(cls, type)
                and issubclass(cls, DataModel)
                and cls.model_json_schema() == schema
            ):
                return cls
        except (ImportError, AttributeError):
            pass
    try:
        return data_model_from_schema(schema, name=config.get("name"))
    except ValueError as error:
        raise SerializationError(
            f"cannot rebuild DataModel {config.get('name')!r}: {error}"
        ) from error

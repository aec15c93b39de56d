"""How data models combine: concatenation, union and field masks, on classes and on values.

A program's merge modules (`Concat`, `And`, `Or`, `Xor`, `InMask`, `OutMask`), the
operators ``+ & | ^`` of data models, and a Generator given several inputs all
combine data models the same way, here:

- **concatenation** (``Concat``, ``And``, ``+``, ``&``, a Generator's inputs): the
  fields of each model in order. A name already taken gets the first free
  ``_<n>`` suffix, counted from 1 for each field, as the reference library does:
  ``{answer} + {answer}`` is ``{answer, answer_1}``, and a third one adds
  ``answer_2``. Field types, descriptions and requiredness are kept.
- **union** (``Or``, ``Xor``, ``|``, ``^``): the output is one of the inputs, so its
  model has each field name once. A field every input model has stays as it is
  (required where it was required); a field only some have becomes optional
  (default None). Two fields of the same name and different types cannot be one
  field: that is an error naming the field and both models. (The reference
  library declares the first input's schema as the output's, so a program whose
  second branch answers with other fields has an output its schema does not
  describe; we do not copy that.)
- **masks** (``InMask`` keeps, ``OutMask`` drops): top-level fields matched by base
  key (``answer`` also matches ``answers`` and ``answer_1``; see
  `optimizer_core.utils.json_utils`), a nested object going with its field.

Everything works on pydantic model classes with the base class given by the
caller (`DataModel`), so this module depends on no other part of the library.
Class-level results are cached: a program built once per request, or a module
called once per row, builds each merged class once.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar, cast

import pydantic
from pydantic.fields import FieldInfo

from optimizer_core.utils.json_utils import base_key

__all__ = [
    "MergeError",
    "concat_keys",
    "concat_models",
    "concat_values",
    "mask_model",
    "merged_json",
    "union_models",
]

M = TypeVar("M", bound=pydantic.BaseModel)

#: Merged classes kept per process (each a few kB); least recently used go first.
_CACHE_SIZE = 512


class MergeError(ValueError):
    """Data models that cannot be merged (a field's two types) or masked (no field left)."""


def concat_keys(key_lists: Sequence[Sequence[str]]) -> list[list[str]]:
    """The name each field gets in a concatenation, model by model.

    Args:
        key_lists: the field names of each model, in order.

    Example:
        ```python
        concat_keys([["answer"], ["answer", "critique"]])
        # [["answer"], ["answer_1", "critique"]]
        ```
    """
    taken: set[str] = set()
    renamed: list[list[str]] = []
    for keys in key_lists:
        names = []
        for key in keys:
            name, suffix = key, 0
            while name in taken:
                suffix += 1
                name = f"{key}_{suffix}"
            taken.add(name)
            names.append(name)
        renamed.append(names)
    return renamed


def _title(models: Sequence[type[pydantic.BaseModel]], joiner: str) -> str:
    title = joiner.join(model.__name__ for model in models)
    return title if len(title) <= 120 else title[:117] + "etc"


def _copy_field(info: FieldInfo) -> tuple[Any, FieldInfo]:
    return (info.annotation, info)


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _concat_models(models: tuple[type[M], ...], base: type[M]) -> type[M]:
    renamed = concat_keys([list(model.model_fields) for model in models])
    fields: dict[str, Any] = {}
    for model, names in zip(models, renamed, strict=True):
        for (_, info), name in zip(model.model_fields.items(), names, strict=True):
            fields[name] = _copy_field(info)
    merged: type[M] = pydantic.create_model(_title(models, "And"), __base__=base, **fields)
    return merged


def concat_models(models: Sequence[type[M]], *, base: type[M]) -> type[M]:
    """The model of a concatenation: every field of each model, renamed on a clash.

    One model is returned as it is.

    Args:
        models: the models, in order (at least one).
        base: the base class of the new model (`DataModel`).
    """
    if not models:
        raise MergeError("nothing to concatenate: no data model was given")
    if len(models) == 1:
        return models[0]
    return _concat_models(tuple(models), base)


def concat_values(values: Sequence[pydantic.BaseModel], *, base: type[M]) -> M:
    """One instance holding the fields of each value, named as `concat_models` names them.

    Args:
        values: the instances, in order (at least one, none None).
        base: the base class of the merged model (`DataModel`).
    """
    if len(values) == 1 and isinstance(values[0], base):
        return values[0]
    models = [type(value) for value in values]
    merged = concat_models(cast(list[type[M]], models), base=base)
    renamed = concat_keys([list(model.model_fields) for model in models])
    data: dict[str, Any] = {}
    for value, names in zip(values, renamed, strict=True):
        for key, name in zip(type(value).model_fields, names, strict=True):
            data[name] = getattr(value, key)
    result: M = merged.model_validate(data)
    return result


def merged_json(
    values: Sequence[Any], models: Sequence[type[pydantic.BaseModel]]
) -> dict[str, Any] | None:
    """Values of `models` (instances, JSON dicts or None) as one JSON object, named as
    `concat_models(models)` names their fields.

    The names come from the models, not from which values are there: a None value
    leaves its fields out and renames nothing, so a program's outputs and its targets
    merge into objects a reward can compare field by field. None when every value is.
    """
    if len(values) != len(models):
        raise MergeError(f"{len(values)} values for {len(models)} data models")
    renamed = concat_keys([list(model.model_fields) for model in models])
    merged: dict[str, Any] = {}
    present = False
    for value, model, names in zip(values, models, renamed, strict=True):
        if value is None:
            continue
        present = True
        data = value.model_dump(mode="json") if isinstance(value, pydantic.BaseModel) else value
        for key, name in zip(model.model_fields, names, strict=True):
            if key in data:
                merged[name] = data[key]
    return merged if present else None


def _resolved(schema: Any, defs: Mapping[str, Any]) -> Any:
    """A property schema with its ``$ref``s inlined and its labels left out, to compare types."""
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str):
            target = defs.get(ref.rsplit("/", 1)[-1], {})
            return _resolved({**target, **{k: v for k, v in schema.items() if k != "$ref"}}, defs)
        return {
            key: _resolved(value, defs)
            for key, value in schema.items()
            if key not in ("title", "description", "default", "examples")
        }
    if isinstance(schema, list):
        return [_resolved(item, defs) for item in schema]
    return schema


def _field_type(model: type[pydantic.BaseModel], key: str) -> Any:
    schema = model.model_json_schema()
    return _resolved(schema["properties"][key], schema.get("$defs", {}))


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _union_models(models: tuple[type[M], ...], base: type[M]) -> type[M]:
    owners: dict[str, list[type[M]]] = {}
    for model in models:
        for key in model.model_fields:
            owners.setdefault(key, []).append(model)
    fields: dict[str, Any] = {}
    for key, having in owners.items():
        first = having[0]
        info = first.model_fields[key]
        for other in having[1:]:
            if other is not first and _field_type(other, key) != _field_type(first, key):
                raise MergeError(
                    f"field {key!r} has one type in {first.__name__} and another in "
                    f"{other.__name__}: the two cannot be one field (rename one, or merge "
                    "them with Concat, which keeps both)"
                )
        everywhere = len(having) == len(models)
        if everywhere or not info.is_required():
            fields[key] = _copy_field(info)
        else:
            optional: Any = info.annotation
            fields[key] = (
                optional | None,
                pydantic.Field(default=None, description=info.description),
            )
    merged: type[M] = pydantic.create_model(_title(models, "Or"), __base__=base, **fields)
    return merged


def union_models(models: Sequence[type[M]], *, base: type[M]) -> type[M]:
    """The model of a value that is one of several models (see the module docstring).

    Models that are the same class count once, so ``Answer | Answer`` is ``Answer``.

    Raises:
        MergeError: a field name with two different types.
    """
    distinct = tuple(dict.fromkeys(models))
    if not distinct:
        raise MergeError("nothing to merge: no data model was given")
    if len(distinct) == 1:
        return distinct[0]
    return _union_models(distinct, base)


def _matches(key: str, mask: Iterable[str]) -> bool:
    return base_key(key) in {base_key(entry) for entry in mask}


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _mask_model(
    model: type[M], keep: tuple[str, ...] | None, drop: tuple[str, ...] | None, base: type[M]
) -> type[M]:
    kept = [
        key
        for key in model.model_fields
        if (keep is None or _matches(key, keep)) and (drop is None or not _matches(key, drop))
    ]
    if not kept:
        what = (
            f"keeps none of {list(keep)}"
            if keep is not None
            else f"drops all of {list(drop or ())}"
        )
        raise MergeError(
            f"the mask {what}: {model.__name__} has fields {list(model.model_fields)}, "
            "and a data model needs at least one"
        )
    if kept == list(model.model_fields):
        return model
    fields = {key: _copy_field(model.model_fields[key]) for key in kept}
    masked: type[M] = pydantic.create_model(  # type: ignore[call-overload]
        model.__name__, __base__=base, __doc__=model.__doc__, **fields
    )
    return masked


def mask_model(
    model: type[M],
    *,
    base: type[M],
    keep: Sequence[str] | None = None,
    drop: Sequence[str] | None = None,
) -> type[M]:
    """`model` with only the fields `keep` matches, less those `drop` matches (by base key).

    Raises:
        MergeError: no field is left.
    """
    return _mask_model(
        model,
        tuple(keep) if keep is not None else None,
        tuple(drop) if drop is not None else None,
        base,
    )

"""Checking a user's JSON schema: the one way to turn it into a DataModel.

Dataset input / output schemas and DataModel library entries both go through
`build_data_model`, each naming its own `DomainError` class for the problems.
"""

from __future__ import annotations

import logging
from typing import Any, TypeVar

import pydantic

from optimizer_core.datamodels import DataModel, data_model_from_schema
from studio.common.exceptions import DomainError
from studio.common.jsondepth import MAX_DEPTH, exceeds_depth

logger = logging.getLogger(__name__)

JsonDict = dict[str, Any]
E = TypeVar("E", bound=DomainError)


def _ref_name(ref: Any) -> str:
    # As optimizer_core resolves it: the last segment, looked up in ``$defs``.
    return str(ref).rsplit("/", 1)[-1]


def _schema_problem(schema: JsonDict, argument: str, error: type[E]) -> E | None:
    """The first structural problem of a schema that the builder would trip on, or None.

    Empty ``type`` / ``anyOf`` / ``oneOf`` / ``allOf`` lists and ``$ref`` cycles
    (recursive models, which DataModels cannot express), each with its path.
    """
    if exceeds_depth(schema, MAX_DEPTH):
        return error(f"`{argument}` is nested deeper than {MAX_DEPTH} levels", path=argument)
    defs = schema.get("$defs")
    defs = defs if isinstance(defs, dict) else {}
    refs_in: dict[str, list[tuple[str, str]]] = {}  # def name -> [(ref name, path)]
    stack: list[tuple[Any, str, str | None]] = [(schema, argument, None)]
    while stack:
        node, path, owner = stack.pop()
        if isinstance(node, list):
            stack.extend((item, f"{path}[{i}]", owner) for i, item in enumerate(node))
            continue
        if not isinstance(node, dict):
            continue
        if node.get("type") == []:
            return error(f"`{path}.type` is an empty list", path=f"{path}.type")
        for key in ("anyOf", "oneOf", "allOf"):
            if key in node and (not isinstance(node[key], list) or not node[key]):
                return error(
                    f"`{path}.{key}` must be a non-empty list of schemas", path=f"{path}.{key}"
                )
        if "$ref" in node:
            refs_in.setdefault(owner or "", []).append((_ref_name(node["$ref"]), path))
        for key, value in node.items():
            if path == argument and key == "$defs" and isinstance(value, dict):
                stack.extend((v, f"{path}.$defs.{k}", str(k)) for k, v in value.items())
            else:
                stack.append((value, f"{path}.{key}", owner))
    return _ref_cycle(refs_in, defs, error)


def _ref_cycle(
    refs_in: dict[str, list[tuple[str, str]]], defs: JsonDict, error: type[E]
) -> E | None:
    """A ``$ref`` cycle reachable from the schema's own properties (iterative DFS)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: explored
    for start, _ in refs_in.get("", []):
        if start not in defs or start in state:
            continue
        state[start] = 1
        stack = [(start, iter(refs_in.get(start, [])))]
        while stack:
            name, children = stack[-1]
            for target, ref_path in children:
                if target not in defs or state.get(target) == 2:
                    continue
                if state.get(target) == 1:
                    return error(
                        f"`{ref_path}.$ref` refers back to {target!r}: recursive schemas "
                        "are not supported",
                        path=f"{ref_path}.$ref",
                    )
                state[target] = 1
                stack.append((target, iter(refs_in.get(target, []))))
                break
            else:
                state[name] = 2
                stack.pop()
    return None


def build_data_model(schema: Any, *, argument: str, name: str, error: type[E]) -> type[DataModel]:
    """Build a DataModel from a user's JSON schema, naming `argument` when it is unusable.

    The one check of a user's schema: an object schema, nested at most `MAX_DEPTH`
    levels, free of the structural problems the builder trips on (empty ``type`` /
    ``anyOf`` / ``oneOf`` / ``allOf`` lists, ``$ref`` cycles), then built by
    `optimizer_core.datamodels.data_model_from_schema` (which refuses class hints).

    Args:
        error: the caller's `DomainError` class, raised with the culprit's path.

    Raises:
        error: the schema is not an object schema optimizer_core understands
            (with the path of the culprit where it is known).
    """
    if not isinstance(schema, dict):
        raise error(f"`{argument}` must be a JSON object schema", path=argument)
    problem = _schema_problem(schema, argument, error)
    if problem is not None:
        raise problem
    try:
        return data_model_from_schema(schema, name=name)
    except (ValueError, TypeError, KeyError, pydantic.PydanticUserError) as failure:
        raise error(f"`{argument}` is not a usable schema: {failure}", path=argument) from None
    except RecursionError:
        raise error(
            f"`{argument}` is recursive or nested too deeply to build", path=argument
        ) from None
    except Exception as failure:  # anything else the builder trips on is still the schema's
        logger.warning("`%s` could not be built: %r", argument, failure)
        raise error(
            f"`{argument}` is not a usable schema ({type(failure).__name__}: {failure})",
            path=argument,
        ) from None

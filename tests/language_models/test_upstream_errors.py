"""A provider's error carries its status, its type and a short message: never its body.

A stand-in answers with a marker inside an HTML page, a plain-text body, a JSON object
that is no error and a traceback; through every litellm route the studio offers, the
error a caller gets never holds the marker. A JSON error's own message is kept, bounded.
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from optimizer_core.exceptions import LanguageModelError
from optimizer_core.language_models import LanguageModel
from optimizer_core.language_models.upstream_errors import MAX_MESSAGE, describe

MARKER = "MARKER-7f3a-internal"
HELLO = [{"role": "user", "content": "hello"}]

BODIES = {
    "html-403": (403, "text/html", f"<html><body><h1>Admin</h1>{MARKER}</body></html>"),
    "html-200": (200, "text/html", f"<html><body>{MARKER}</body></html>"),
    "text-500": (500, "text/plain", f"internal failure {MARKER}"),
    "text-200": (200, "text/plain", f"hello {MARKER}"),
    "json-404": (404, "application/json", '{"users": ["' + MARKER + '"]}'),
    "json-200": (200, "application/json", '{"users": ["' + MARKER + '"]}'),
    "trace-500": (
        500,
        "text/plain",
        f'Traceback (most recent call last):\n  File "/srv/app/{MARKER}.py", line 1',
    ),
}
ROUTES = [
    ("openai/stand-in", "/v1"),
    ("hosted_vllm/stand-in", "/v1"),
    ("anthropic/stand-in", ""),
    ("ollama/stand-in", ""),
]


@pytest.fixture
async def stand_in() -> AsyncIterator[str]:
    """``http://127.0.0.1:<port>``; ``/<case>/...`` answers ``BODIES[case]``."""

    async def answer(request: web.Request) -> web.Response:
        status, content_type, body = BODIES[request.match_info["case"]]
        return web.Response(status=status, text=body, content_type=content_type)

    app = web.Application()
    app.router.add_route("*", "/{case}/{tail:.*}", answer)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


pytestmark = pytest.mark.litellm


@pytest.mark.parametrize("case", sorted(BODIES))
@pytest.mark.parametrize(("model", "suffix"), ROUTES)
async def test_no_upstream_body_reaches_the_error(stand_in, case, model, suffix) -> None:
    language_model = LanguageModel(
        model, api_base=f"{stand_in}/{case}{suffix}", api_key="k", max_retries=0
    )
    try:
        answer = await language_model(HELLO)
    except LanguageModelError as error:
        text = f"{error} {error.__class__.__name__}"
        assert MARKER not in text
        assert "<html" not in text and "Traceback" not in text and "/srv/" not in text
    else:  # a route that read the 200 body as an empty answer
        assert MARKER not in str(answer)


async def test_a_json_errors_own_message_is_kept_and_bounded(stand_in) -> None:
    long = "x" * 1000
    BODIES["json-error"] = (
        400,
        "application/json",
        '{"error": {"message": "model not found ' + long + '", "type": "invalid_request_error"}}',
    )
    try:
        model = LanguageModel(
            "openai/stand-in", api_base=f"{stand_in}/json-error/v1", api_key="k", max_retries=0
        )
        with pytest.raises(LanguageModelError) as refused:
            await model(HELLO)
    finally:
        del BODIES["json-error"]
    text = str(refused.value)
    assert "HTTP 400, BadRequestError (invalid_request_error): model not found x" in text
    assert "x" * MAX_MESSAGE not in text


def test_a_failure_before_any_answer_says_what_the_system_said() -> None:
    class APIConnectionError(Exception):
        pass

    try:
        try:
            raise socket.gaierror(-2, "Name or service not known")
        except OSError as cause:
            raise APIConnectionError(f"OpenAIException - Connection error {MARKER}") from cause
    except APIConnectionError as error:
        text = describe(error)
    assert text == "APIConnectionError: the host name did not resolve"


def test_a_refusal_of_the_client_library_itself_is_kept_without_its_traceback() -> None:
    class AuthenticationError(Exception):
        status_code = 401

    error = AuthenticationError(
        "litellm.AuthenticationError: Missing Anthropic API Key\nTraceback (most recent "
        'call last):\n  File "/srv/venv/lib/python3.11/site-packages/litellm/main.py"'
    )
    assert describe(error) == "HTTP 401, AuthenticationError: Missing Anthropic API Key"

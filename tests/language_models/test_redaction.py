"""Keys never reach an error message, even from a provider that echoes them."""

from __future__ import annotations

import pytest

from optimizer_core.exceptions import AuthenticationError
from optimizer_core.language_models import LanguageModel, redact_secrets
from optimizer_core.testing.scripted_server import ScriptedServer

KEY = "sk-studio-test-0123456789abcdef"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Incorrect API key provided: sk-proj-abc123def456.", "Incorrect API key provided: ***."),
        ("Authorization: Bearer eyJhbGciOi.payload.sig", "Authorization: Bearer ***"),
        ("{'api_key': 'q1w2e3r4t5y6u7'}", "{'api_key': '***'}"),
        ("x-api-key: q1w2e3r4t5y6u7", "x-api-key: ***"),
        ("key=AIzaSyA1234567890abcdefghijklmnopqrstu", "key=***"),
        ("the task-abcdefghijkl finished", "the task-abcdefghijkl finished"),
        ("no secret here", "no secret here"),
    ],
)
def test_common_key_shapes_are_redacted(text: str, expected: str) -> None:
    assert redact_secrets(text) == expected


def test_named_secrets_are_redacted_whatever_their_shape() -> None:
    assert redact_secrets("echo: my-own-secret!", ["my-own-secret"]) == "echo: ***!"
    # Too short to replace safely, and nothing to do for no key.
    assert redact_secrets("abc", ["abc", None, ""]) == "abc"


@pytest.mark.litellm
async def test_a_key_the_provider_echoes_is_not_in_the_error() -> None:
    async with ScriptedServer() as server:
        server.fail_next(status=401, echo_key=True)
        lm = LanguageModel("openai/scripted", api_base=server.base_url, api_key=KEY)
        with pytest.raises(AuthenticationError) as refused:
            await lm([{"role": "user", "content": "hi"}])
    message = str(refused.value)
    assert "Incorrect API key provided: ***" in message
    assert KEY not in message
    # The provider's own exception stays chained for debugging, with the key in it:
    # what logs it must redact it (studio.providers.redaction).
    assert KEY in str(refused.value.__cause__.__cause__)
    assert KEY not in (lm.usage.records[-1].error or "")


@pytest.mark.litellm
async def test_a_key_from_the_environment_is_redacted_by_its_shape(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    async with ScriptedServer() as server:
        server.fail_next(status=401, echo_key=True)
        lm = LanguageModel("openai/scripted", api_base=server.base_url)
        with pytest.raises(AuthenticationError) as refused:
            await lm([{"role": "user", "content": "hi"}])
    assert KEY not in str(refused.value)

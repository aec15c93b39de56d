"""Secrets out of text: the keys a caller names, and the shapes of common API keys.

Providers may echo a key back in an error body (``Incorrect API key provided:
sk-...``); every message this package raises goes through `redact_secrets`
first. The shapes cover keys that reach litellm from the environment, which the
model itself never sees.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

REDACTED = "***"

# Shorter known secrets are left alone: replacing a 3-letter string everywhere
# would garble messages more than it would protect (no real API key is that short).
MIN_SECRET_LENGTH = 8

# (pattern, replacement): what is kept of a match is a label before the secret.
SECRET_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # OpenAI (sk-, sk-proj-), Anthropic (sk-ant-), DeepSeek, OpenRouter (sk-or-)...
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"), REDACTED),
    # Google AI Studio / Vertex API keys.
    (re.compile(r"\bAIza[0-9A-Za-z_\-]{30,}"), REDACTED),
    # Groq, xAI, Hugging Face, Replicate, Fireworks.
    (re.compile(r"\b(?:gsk_|xai-|hf_|r8_|fw_)[A-Za-z0-9_\-]{16,}"), REDACTED),
    # An Authorization header's credentials, whatever their shape.
    (re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=\-]{8,}"), rf"\g<1>{REDACTED}"),
    # "api_key": "...", api-key=..., x-api-key: ... in echoed headers or bodies.
    (
        re.compile(
            r"(?i)((?:api[_-]?key|authorization)[\"']?\s{0,3}[:=]\s{0,3}[\"']?)"
            r"(?!bearer\b)[A-Za-z0-9._~+/=\-]{8,}"
        ),
        rf"\g<1>{REDACTED}",
    ),
)


def redact_secrets(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with every given secret, and anything shaped like an API key, replaced.

    Args:
        text: the message.
        secrets: exact strings to remove (keys in use); ``None``, empty and
            strings under 8 characters are ignored.

    Example:
        ```python
        redact_secrets("401: Incorrect API key provided: sk-live-1234567890")
        # '401: Incorrect API key provided: ***'
        ```
    """
    # Longest first, so a secret that contains another is removed whole.
    for secret in sorted({s for s in secrets if s and len(s) >= MIN_SECRET_LENGTH}, key=len)[::-1]:
        text = text.replace(secret, REDACTED)
    for pattern, replacement in SECRET_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


__all__ = ["REDACTED", "SECRET_PATTERNS", "redact_secrets"]

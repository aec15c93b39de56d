"""What an error from a provider may say: its status, its type and a short message, no body.

A provider's answer is data from a server a user chose, and whatever the server sends
(an internal service's HTML page, a stack trace, someone else's records) must not come
back through our errors, which reach run events, API responses and logs. litellm puts the
upstream body into its exception messages (``OpenAIException - <html>...``, ``Original
Response: ...``) and sometimes a traceback of its own, so its text is never passed on.
`describe` builds the message from parts instead:

- the HTTP status and the error's class (``HTTP 403, PermissionDeniedError``);
- the provider's own error type and message, when the body is an error object in JSON
  (OpenAI's ``{"error": {"message", "type"}}``, ``{"error": "..."}``, ``{"message"}``,
  ``{"detail"}``): one line, at most `MAX_MESSAGE` characters, nothing that looks like
  markup;
- for a failure before any answer (a connection refused, a name that does not resolve,
  a TLS failure), the operating system's reason found in the exception chain;
- litellm's own text only where it quotes nothing from upstream (it marks what it quotes
  with ``<Provider>Exception - ``): a refusal of its own such as a missing key, cut before
  any traceback and bounded the same way.
"""

from __future__ import annotations

import json
import re
import socket
import ssl
from typing import Any

__all__ = ["MAX_MESSAGE", "describe", "provider_message"]

MAX_MESSAGE = 200
"""The most characters of a provider's own message that an error carries."""

_UPSTREAM = re.compile(r"\b\w*Exception - ")
_PREFIX = re.compile(r"^(?:litellm\.)?\w+(?:Error|Exception|Timeout): ")
_MARKUP = re.compile(r"<\s*[!/]?[a-zA-Z][^>]*>")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
_PATH = re.compile(r"(?:/[\w.+-]+){2,}\.py\w?")


def _clean(text: str) -> str:
    """One line, no markup, no file paths, at most `MAX_MESSAGE` characters ("": nothing left)."""
    if _MARKUP.search(text):
        return ""
    text = _PATH.sub("<path>", _CONTROL.sub(" ", text))
    text = " ".join(text.split())
    if len(text) > MAX_MESSAGE:
        text = text[: MAX_MESSAGE - 1].rstrip() + "…"
    return text


def _parse_json(text: str) -> Any:
    text = text.strip()
    start = text.find("{")
    if start < 0:
        return None
    try:
        return json.loads(text[start:])
    except ValueError:
        pass
    try:  # litellm quotes some bodies as a Python literal: {'error': {...}}
        import ast

        return ast.literal_eval(text[start:])
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def provider_message(body: Any) -> tuple[str, str]:
    """``(type, message)`` of an error object in a provider's JSON body; ``("", "")`` otherwise."""
    if not isinstance(body, dict):
        return "", ""
    inner = body.get("error", body)
    if isinstance(inner, str):
        return "", _clean(inner)
    if not isinstance(inner, dict):
        return "", ""
    kind = inner.get("type") or inner.get("code") or ""
    message = inner.get("message") or inner.get("detail") or inner.get("error") or ""
    if not isinstance(message, str):
        message = ""
    return (_clean(str(kind))[:60] if isinstance(kind, str | int) else ""), _clean(message)


def _bodies(error: BaseException) -> list[Any]:
    """The structured bodies an exception chain carries (the SDK's ``body``, the response)."""
    found: list[Any] = []
    for link in _chain(error):
        body = getattr(link, "body", None)
        if isinstance(body, dict):
            # The openai SDK gives the ``error`` object itself (message, type, code).
            found.append(body if "error" in body else {"error": body})
        response = getattr(link, "response", None)
        try:
            parsed = response.json() if response is not None else None
        except Exception:  # not JSON, not read, not a response at all
            parsed = None
        if isinstance(parsed, dict):
            found.append(parsed)
    return found


def _chain(error: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    link: BaseException | None = error
    while link is not None and link not in seen and len(seen) < 20:
        seen.append(link)
        link = link.__cause__ or link.__context__
    return seen


def _os_reason(error: BaseException) -> str:
    """The operating system's reason for a failed connection, found in the chain."""
    for link in _chain(error):
        if isinstance(link, socket.gaierror):
            return "the host name did not resolve"
        if isinstance(link, ssl.SSLError):
            return f"the TLS handshake failed ({_clean(str(link.reason or 'ssl error'))})"
        if isinstance(link, ConnectionRefusedError):
            return "the connection was refused"
        if isinstance(link, TimeoutError):
            return "the connection timed out"
        if isinstance(link, OSError) and link.strerror:
            return _clean(link.strerror.lower())
    return ""


def _own_text(error: BaseException) -> str:
    """litellm's own message, when it quotes nothing from upstream; else ""."""
    text = str(error)
    if _UPSTREAM.search(text) or "Original Response" in text or "Received:" in text:
        return ""
    text = text.split("Traceback (most recent call last)", 1)[0]
    while _PREFIX.match(text):
        text = _PREFIX.sub("", text, count=1)
    return _clean(text)


def describe(error: BaseException, *, status: int | None = None) -> str:
    """The text of a provider error: status, class, the provider's type and a short message.

    Args:
        error: what the client library raised.
        status: the HTTP status, when the caller knows it (else read from ``status_code``).

    Example:
        ``HTTP 400, BadRequestError (invalid_request_error): the model does not exist``;
        ``HTTP 403, PermissionDeniedError: the provider's answer is not shown``;
        ``APIConnectionError: the connection was refused``.
    """
    if status is None:
        code = getattr(error, "status_code", None)
        status = code if isinstance(code, int) and not isinstance(code, bool) else None
    head = type(error).__name__
    if status is not None:
        head = f"HTTP {status}, {head}"
    kind = message = ""
    for body in _bodies(error):
        kind, message = provider_message(body)
        if message:
            break
    if not message:
        text = str(error)
        quoted = _UPSTREAM.search(text)
        if quoted is not None:
            kind, message = provider_message(_parse_json(text[quoted.end() :]))
    if message:
        return f"{head} ({kind}): {message}" if kind else f"{head}: {message}"
    reason = _os_reason(error) or _own_text(error)
    if reason:
        return f"{head}: {reason}"
    return f"{head}: the provider's answer is not shown"

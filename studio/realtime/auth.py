"""Websocket authentication by API token, never in the URL.

Browsers authenticate sockets with their session cookie (Channels'
`AuthMiddlewareStack`). Scripts use the same DRF token as the REST API, either

- in the handshake's ``Authorization: Token <key>`` header (`TokenAuthMiddleware`),
  for clients that can set headers, or
- in the first message, ``{"type": "auth", "token": "<key>"}``, sent before anything
  else (`studio.realtime.consumers`), for those that cannot.

A ``?token=`` query parameter is not read: URLs end up in proxy and access logs.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware


def user_for_token(key: Any) -> Any:
    """The active user whose API token is `key`, or None."""
    from rest_framework.authtoken.models import Token

    if not isinstance(key, str) or not key or len(key) > 128:
        return None
    token = Token.objects.select_related("user").filter(key=key).first()
    if token is None or not token.user.is_active:
        return None
    return token.user


def _header_token(scope: Any) -> str | None:
    for name, value in scope.get("headers", []):
        if name.lower() == b"authorization":
            kind, _, key = value.decode("latin-1").partition(" ")
            if kind.lower() == "token" and key.strip():
                return key.strip()
    return None


class TokenAuthMiddleware(BaseMiddleware):
    """Sets ``scope["user"]`` from an ``Authorization: Token <key>`` handshake header."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> Any:
        key = _header_token(scope)
        if key is not None:
            user = await database_sync_to_async(user_for_token)(key)
            if user is not None:
                scope = dict(scope, user=user)
        return await super().__call__(scope, receive, send)

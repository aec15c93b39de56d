"""Websocket authentication by API token: ``ws/runs/<id>/?token=<key>``.

Browsers authenticate sockets with their session cookie (Channels'
`AuthMiddlewareStack`); scripts and the integration tests use the same
DRF token as the REST API, passed as a query parameter because a websocket
handshake cannot carry an Authorization header from a browser.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware


def _user_for_token(key: str) -> Any:
    from rest_framework.authtoken.models import Token

    token = Token.objects.select_related("user").filter(key=key).first()
    if token is None or not token.user.is_active:
        return None
    return token.user


class QueryTokenAuthMiddleware(BaseMiddleware):
    """Sets ``scope["user"]`` from a ``?token=`` query parameter when one is given."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> Any:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        keys = query.get("token")
        if keys:
            user = await database_sync_to_async(_user_for_token)(keys[0])
            if user is not None:
                scope = dict(scope, user=user)
        return await super().__call__(scope, receive, send)

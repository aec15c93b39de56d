"""daphne's HTTP requests leave the body to Django.

daphne serves HTTP through Twisted's ``twisted.web.http.Request``, which parses every
``multipart/form-data`` and form-encoded POST body into ``request.args`` before the
application is called. daphne never reads those arguments (it hands the raw body to
Django, whose parsers do the work), so the parse is only a cost: a second copy of
every upload in memory, and, for a body Twisted's parser refuses (a multipart body
with no parts, a part name that is not ASCII, a missing boundary), a bare
``HTTP/1.1 400 Bad Request`` with no headers and no body, written before Django runs
and logged nowhere. Twisted lets a request opt out (``parsePOSTFormSubmission``, in the
pinned 26.10); daphne 4.2 does not pass it.

`leave_bodies_to_django` makes daphne build its requests with the parse off, so every
body reaches Django and a malformed one is answered as every other 400 (JSON, the
shape of `studio.common.errors`). daphne looks its request class up on each new
connection (``HTTPFactory.buildProtocol``), so installing it when the ASGI application
is imported, before the server accepts anything, covers every request. Nothing is
changed under another ASGI server: only daphne's module is touched.

Why not another server: uvicorn or hypercorn would do, but daphne is what Channels
documents and what the runserver integration, the launcher and the docker image use;
one keyword is a smaller change than a server.
"""

from __future__ import annotations

from typing import Any

from daphne import http_protocol


class BodyLeftToDjango(http_protocol.WebRequest):
    """daphne's request, without Twisted's parse of form bodies."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["parsePOSTFormSubmission"] = False
        super().__init__(*args, **kwargs)


def leave_bodies_to_django() -> None:
    """Make daphne build every request as `BodyLeftToDjango` (idempotent)."""
    http_protocol.WebRequest = BodyLeftToDjango  # type: ignore[misc]

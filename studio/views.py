"""The browser app's entry page: every page path the SPA routes gets its index.html."""

from __future__ import annotations

from django.conf import settings
from django.http import FileResponse, HttpRequest, HttpResponse


def spa_index(request: HttpRequest) -> HttpResponse:
    index = settings.FRONTEND_DIST / "index.html"
    if not index.is_file():
        return HttpResponse(
            "The browser app is not built: run `make frontend` (or `make run`), then reload.\n"
            "The API is at /api/ and its documentation at /api/docs/.",
            status=503,
            content_type="text/plain; charset=utf-8",
        )
    response = FileResponse(index.open("rb"), content_type="text/html; charset=utf-8")
    response["Cache-Control"] = "no-cache"  # assets are hashed; the page must be fresh
    return response

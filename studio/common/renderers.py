"""Renderers of the API's downloads: they let content negotiation accept a file's media type.

A download view answers its file itself (an `HttpResponse` of CSV, JSON Lines);
its renderer classes list the file's media type beside JSON, so a request that
accepts only that type (``Accept: text/csv``) is served rather than refused
(406), and an error, which DRF renders, is JSON text under either.
"""

from __future__ import annotations

from typing import Any

from rest_framework import renderers


class _DownloadRenderer(renderers.BaseRenderer):
    """Accepts a download's media type; what DRF renders under it (errors) is JSON text."""

    charset = "utf-8"

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: dict[str, Any] | None = None,
    ) -> bytes:
        return renderers.JSONRenderer().render(data)


class CSVRenderer(_DownloadRenderer):
    media_type = "text/csv"
    format = "csv"


class JSONLinesRenderer(_DownloadRenderer):
    media_type = "application/x-ndjson"
    format = "jsonl"

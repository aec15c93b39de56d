"""Refusing oversized uploads early: by Content-Length, then by the bytes streamed."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler, StopUpload
from django.http import HttpRequest

from studio.datasets.exceptions import UploadTooLarge

# Multipart framing and the other form fields (schemas, name) on top of the file.
FORM_OVERHEAD_BYTES = 1024 * 1024


class SizeLimitHandler(FileUploadHandler):
    """Counts the bytes of every uploaded file and stops the upload past the limit.

    Runs first among the request's handlers; Django then drops the files, and
    the view answers 413 (``exceeded`` is set).
    """

    def __init__(self, request: HttpRequest | None = None, *, limit: int) -> None:
        super().__init__(request)
        self.limit = limit
        self.received = 0
        self.exceeded = False

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes | None:
        self.received += len(raw_data)
        if self.received > self.limit:
            self.exceeded = True
            raise StopUpload(connection_reset=False)
        return raw_data

    def file_complete(self, file_size: int) -> Any:
        return None


def guard_upload(request: HttpRequest) -> SizeLimitHandler:
    """Check Content-Length and install the streaming size check on a request.

    Raises:
        UploadTooLarge: the declared body is larger than the limit allows.
    """
    limit = int(settings.STUDIO_UPLOAD_MAX_BYTES)
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    if declared > limit + FORM_OVERHEAD_BYTES:
        raise UploadTooLarge(limit)
    handler = SizeLimitHandler(request, limit=limit)
    request.upload_handlers.insert(0, handler)
    return handler

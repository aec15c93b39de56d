"""An on-disk answer cache: one JSON file per request, keyed by a hash of the request."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

MISSING: Any = object()
"""What `DiskCache.get` returns when it holds nothing for a key."""


def request_key(payload: dict[str, Any]) -> str:
    """The sha256 hex digest of a JSON-compatible request description."""
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class DiskCache:
    """A directory of ``<key[:2]>/<key>.json`` files.

    Writes go to a temporary file in the same directory and are moved in place
    with ``os.replace``, so concurrent writers and readers never see half a file.
    Unreadable files count as misses.

    Args:
        directory: where the files live; created when missing.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> Any:
        """The stored value, or `MISSING` when there is none."""
        path = self._path(key)
        try:
            with path.open(encoding="utf-8") as file:
                entry = json.load(file)
        except FileNotFoundError:
            return MISSING
        except (OSError, ValueError):
            logger.warning("ignoring unreadable cache file %s", path)
            return MISSING
        if not isinstance(entry, dict) or "value" not in entry:
            return MISSING
        return entry["value"]

    def put(self, key: str, value: Any, request: dict[str, Any] | None = None) -> None:
        """Store ``value`` (JSON-compatible) under ``key``, atomically.

        Args:
            key: from `request_key`.
            value: the answer.
            request: the request it answers, kept in the file for inspection.
        """
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        entry = {"key": key, "created_at": time.time(), "request": request, "value": value}
        descriptor, temporary = tempfile.mkstemp(
            dir=path.parent, prefix=f".{key[:8]}-", suffix=".tmp"
        )
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as file:
                json.dump(entry, file, ensure_ascii=False)
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.remove(temporary)
            raise

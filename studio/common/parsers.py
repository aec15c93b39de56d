"""The API's JSON parser: DRF's, with a bound on nesting (400 naming the limit)."""

from __future__ import annotations

import codecs
from typing import Any

from django.conf import settings
from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.utils import json

from studio.common.jsondepth import loads


class JSONParser(parsers.JSONParser):
    """Parses JSON bodies; refuses one nested deeper than `jsondepth.MAX_DEPTH` (400)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = codecs.getreader(encoding)(stream).read()
            constant = json.strict_constant if self.strict else None
            return loads(text, parse_constant=constant)
        except ValueError as error:  # TooDeep included
            raise ParseError(f"JSON parse error - {error}") from None

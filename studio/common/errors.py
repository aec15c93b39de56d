"""One error format, ``{"errors": [{"path", "message"}]}``, and the API's error handlers.

`exception_handler` is the one DRF exception handler. Besides DRF's own
exceptions it answers:

- a `studio.common.exceptions.DomainError` (what services raise) with its
  ``status``; a Django ``ValidationError`` (keyed by field path) as a 400;
- a request nested too deeply for Python to walk as a 400 instead of a 500;
- a body Django refuses to read (`request_refusal`): over ``DATA_UPLOAD_MAX_MEMORY_SIZE``
  as a 413 naming the limit, too many fields or files, a multipart body that does not
  parse, each as a 400 saying which.

The body is DRF's shape (``{"field.path": ["message"]}``, ``{"detail": "message"}``
for a problem with the whole request), except in the actions a view lists in
``field_errors_actions``: those document their 400s with `FieldErrorsSerializer`
and answer every 400 and 413, request errors included, as ``{"errors": [{path, message}]}``.

`handler400` / `handler404` / `handler500` (wired in ``studio.urls``) answer JSON on /api/
paths (a body refused before a view runs, by a middleware, included); other paths keep
Django's pages.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import (
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.views import defaults
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from studio.common.exceptions import DomainError, TooLarge
from studio.common.jsondepth import MAX_DEPTH
from studio.common.sizes import describe_size

logger = logging.getLogger(__name__)


class FieldErrorSerializer(serializers.Serializer[dict[str, Any]]):
    path = serializers.CharField(help_text="dotted path of the field at fault; empty: the whole")
    message = serializers.CharField()


class FieldErrorsSerializer(serializers.Serializer[dict[str, Any]]):
    """The body of a 400 that lists problems, each with the path of its field."""

    errors = FieldErrorSerializer(many=True)


def flatten(detail: Any, prefix: str = "") -> list[dict[str, str]]:
    """DRF's error detail (``{"field": ["msg"]}``, nested) as ``[{path, message}]``."""
    if isinstance(detail, dict):
        found = []
        for key, value in detail.items():
            name = "" if key in ("non_field_errors", "detail") else str(key)
            found.extend(flatten(value, f"{prefix}.{name}" if prefix and name else prefix or name))
        return found
    if isinstance(detail, list):
        if all(not isinstance(item, dict | list) for item in detail):
            return [{"path": prefix, "message": str(item)} for item in detail]
        found = []
        for index, item in enumerate(detail):
            found.extend(flatten(item, f"{prefix}[{index}]"))
        return found
    return [{"path": prefix, "message": str(detail)}]


def domain_error_detail(error: DomainError) -> dict[str, Any]:
    """A domain error in DRF's shape: ``{"detail": message}`` for one problem with the
    whole request, else ``{path: [messages]}`` (``non_field_errors`` for the whole)."""
    if len(error.errors) == 1 and not error.path:
        return {"detail": error.errors[0].message}
    detail: dict[str, list[str]] = {}
    for problem in error.errors:
        detail.setdefault(problem.path or "non_field_errors", []).append(problem.message)
    return detail


def request_refusal(exc: BaseException) -> DomainError | None:
    """What Django's refusal to read a request body says to the client, or None.

    Django raises these while reading ``request.body`` / ``request.POST`` (in a view,
    a parser or a middleware) and would answer a bare "bad request".
    """
    if isinstance(exc, RequestDataTooBig):
        return TooLarge(
            f"the request body is larger than the limit of "
            f"{describe_size(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)}; "
            "upload data sets as files, and predict many rows with a batch job"
        )
    if isinstance(exc, TooManyFieldsSent):
        return DomainError(
            f"the request has more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS:,} form fields"
        )
    if isinstance(exc, TooManyFilesSent):
        return DomainError(
            f"the request has more than {settings.DATA_UPLOAD_MAX_NUMBER_FILES:,} files"
        )
    if isinstance(exc, MultiPartParserError):
        return DomainError(f"the multipart body does not parse: {str(exc)[:200]}")
    return None


def _answers_field_errors(context: dict[str, Any]) -> bool:
    view = context.get("view")
    return getattr(view, "action", None) in getattr(view, "field_errors_actions", ())


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """The API's exception handler (``REST_FRAMEWORK["EXCEPTION_HANDLER"]``)."""
    if isinstance(exc, DjangoValidationError):
        exc = DomainError.from_django(exc)
    exc = request_refusal(exc) or exc
    if isinstance(exc, DomainError):
        response: Response | None = Response(domain_error_detail(exc), status=exc.status)
    elif isinstance(exc, RecursionError):
        logger.warning("request nested too deeply: %s", context.get("request"))
        response = Response(
            {"detail": f"the request is nested too deeply (the limit is {MAX_DEPTH} levels)"},
            status=status.HTTP_400_BAD_REQUEST,
        )
    else:
        response = drf_exception_handler(exc, context)
    if (
        response is not None
        and response.status_code in (400, 413)
        and _answers_field_errors(context)
    ):
        if isinstance(exc, DomainError):  # its own order, not grouped by path
            response.data = {"errors": [problem.as_json() for problem in exc.errors]}
        elif not (isinstance(response.data, dict) and set(response.data) == {"errors"}):
            response.data = {"errors": flatten(response.data)}
    elif response is not None and isinstance(response.data, list):
        # A bare list of messages (a query parameter's validator, e.g. a NUL character in
        # a filter): every refusal is an object, as the schema says.
        response.data = {"detail": "; ".join(str(message) for message in response.data)}
    return response


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def handler400(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _is_api(request):
        refusal = request_refusal(exception) if exception is not None else None
        if refusal is not None:
            return JsonResponse(domain_error_detail(refusal), status=refusal.status)
        return JsonResponse({"detail": "bad request"}, status=400)
    return defaults.bad_request(request, exception)


def handler403(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _is_api(request):
        return JsonResponse({"detail": "forbidden"}, status=403)
    return defaults.permission_denied(request, exception)


def handler404(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _is_api(request):
        return JsonResponse({"detail": "not found"}, status=404)
    return defaults.page_not_found(request, exception)


def handler500(request: HttpRequest) -> HttpResponse:
    if _is_api(request):
        return JsonResponse({"detail": "server error"}, status=500)
    return defaults.server_error(request)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF refusals (the sign-in view checks CSRF itself): JSON on /api/ paths."""
    if _is_api(request):
        return JsonResponse({"detail": f"CSRF failed: {reason}"}, status=403)
    from django.views.csrf import csrf_failure as django_csrf_failure

    return django_csrf_failure(request, reason)

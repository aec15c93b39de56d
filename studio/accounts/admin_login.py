"""The admin's sign-in page under the API sign-in's throttles.

``/admin/login/`` is a second way to guess a password: it counts every attempt per
client address (``sign_in``) and failures per address and username
(``sign_in_failures``), the same counters and rates as ``/api/auth/login/``
(`studio.accounts.api.throttling`). Past them it answers 429 with ``Retry-After``,
whatever the password.
"""

from __future__ import annotations

import math
from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request

from studio.accounts.api.throttling import SignInFailureThrottle, SignInThrottle


class _SignInView:
    throttle_scope = "sign_in"


def admin_login(request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
    """`admin.site.login`, throttled like the API's sign-in (POSTs only)."""
    if request.method != "POST":
        return admin.site.login(request, extra_context)
    wrapped = Request(request, parsers=[FormParser(), MultiPartParser()])
    view = _SignInView()
    for throttle in (SignInThrottle(), SignInFailureThrottle()):
        if not throttle.allow_request(wrapped, view):
            wait = throttle.wait() or 60
            response = HttpResponse(
                "Too many sign-in attempts; try again later.\n",
                status=429,
                content_type="text/plain",
            )
            response["Retry-After"] = str(math.ceil(wait))
            return response
    response = admin.site.login(request, extra_context)
    # The login view redirects when the credentials were right, and shows the form again
    # (200) when they were not.
    if response.status_code == 200:
        SignInFailureThrottle.record_failure(wrapped)
    else:
        SignInFailureThrottle.forget(wrapped)
    return response

"""Throttles of sign-in, token creation and sign-up.

Sign-up: every attempt per client address (``sign_up`` scope, DRF's
ScopedRateThrottle). Sign-in, two limits: every attempt per client address
(``sign_in`` scope), and failed attempts per client address and username
(``sign_in_failures``): past that rate even the right password answers 429 with
Retry-After until the window has passed, so a password cannot be guessed at full
speed. Rates are in ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]``.
"""

from __future__ import annotations

import hashlib
from typing import Any

from rest_framework.request import Request
from rest_framework.throttling import ScopedRateThrottle, SimpleRateThrottle


class SignInThrottle(ScopedRateThrottle):
    """Every sign-in / token request, per client address (views set ``throttle_scope``)."""


class SignUpThrottle(ScopedRateThrottle):
    """Every sign-up request, per client address (scope ``sign_up``).

    Always the address, even for a signed-in caller: each sign-up signs its new user
    in, so counting per user would give every new account a fresh allowance.
    """

    def get_cache_key(self, request: Request, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


def _username(request: Request) -> str:
    data = request.data
    value = data.get("username", "") if hasattr(data, "get") else ""
    return str(value).strip().lower()


class SignInFailureThrottle(SimpleRateThrottle):
    """Refuses sign-in once an address has failed too often for one username.

    Only failures count: the view calls `record_failure` when the credentials are
    wrong; `allow_request` checks the count without adding to it.
    """

    scope = "sign_in_failures"

    def get_cache_key(self, request: Request, view: Any) -> str:
        who = hashlib.sha256(_username(request).encode()).hexdigest()[:32]
        ident = f"{self.get_ident(request)}:{who}"
        return self.cache_format % {"scope": self.scope, "ident": ident}

    def allow_request(self, request: Request, view: Any) -> bool:
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        self.now = self.timer()
        self.history = [t for t in self.cache.get(self.key, []) if t > self.now - self.duration]
        if len(self.history) >= self.num_requests:
            return self.throttle_failure()
        return True

    @classmethod
    def record_failure(cls, request: Request) -> None:
        """Count one failed attempt of this request's address and username."""
        throttle = cls()
        if throttle.rate is None:
            return
        key = throttle.get_cache_key(request, None)
        now = throttle.timer()
        history = [t for t in throttle.cache.get(key, []) if t > now - throttle.duration]
        throttle.cache.set(key, [now, *history], throttle.duration)

    @classmethod
    def forget(cls, request: Request) -> None:
        """A successful sign-in clears the failures of its address and username."""
        throttle = cls()
        throttle.cache.delete(throttle.get_cache_key(request, None))

"""Authentication endpoints: session login / logout / me, CSRF cookie, API token."""

from __future__ import annotations

from django.contrib.auth import authenticate, login, logout
from django.middleware.csrf import get_token
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import csrf_protect, ensure_csrf_cookie
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from studio.accounts import services
from studio.accounts.api.serializers import (
    CsrfSerializer,
    LoginSerializer,
    TokenSerializer,
    UserSerializer,
)
from studio.accounts.api.throttling import SignInFailureThrottle, SignInThrottle

_THROTTLED = OpenApiResponse(description="too many attempts; retry after `Retry-After` seconds")


def _authenticate(request: Request) -> object:
    payload = LoginSerializer(data=request.data)
    payload.is_valid(raise_exception=True)
    user = authenticate(
        request._request,
        username=payload.validated_data["username"],
        password=payload.validated_data["password"],
    )
    if user is None or not user.is_active:
        SignInFailureThrottle.record_failure(request)
        raise AuthenticationFailed("wrong username or password")
    SignInFailureThrottle.forget(request)
    return user


@method_decorator(csrf_protect, name="dispatch")
class LoginView(APIView):
    """Open a session. CSRF is enforced (get the cookie from /api/auth/csrf/ first)."""

    permission_classes = [AllowAny]
    throttle_classes = [SignInThrottle, SignInFailureThrottle]
    throttle_scope = "sign_in"

    @extend_schema(
        operation_id="auth_login",
        request=LoginSerializer,
        responses={
            200: UserSerializer,
            403: OpenApiResponse(description="wrong credentials"),
            429: _THROTTLED,
        },
    )
    def post(self, request: Request) -> Response:
        user = _authenticate(request)
        login(request._request, user)
        return Response(UserSerializer(user).data)


class LogoutView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(operation_id="auth_logout", request=None, responses={204: None})
    def post(self, request: Request) -> Response:
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="auth_me", responses=UserSerializer)
    def get(self, request: Request) -> Response:
        return Response(UserSerializer(request.user).data)


@method_decorator(ensure_csrf_cookie, name="dispatch")
class CsrfView(APIView):
    """Set the ``csrftoken`` cookie; send its value back as the ``X-CSRFToken`` header."""

    permission_classes = [AllowAny]
    authentication_classes: list[type] = []

    @extend_schema(operation_id="auth_csrf", responses=CsrfSerializer)
    def get(self, request: Request) -> Response:
        return Response({"csrf_token": get_token(request._request)})


class TokenView(APIView):
    """The caller's API token, for scripts (``Authorization: Token <key>``).

    Either already authenticated (session / token), or send username and password.
    """

    permission_classes = [AllowAny]
    authentication_classes = [SessionAuthentication, TokenAuthentication]
    throttle_classes = [SignInThrottle, SignInFailureThrottle]
    throttle_scope = "sign_in"

    @extend_schema(
        operation_id="auth_token",
        request=LoginSerializer,
        responses={
            200: TokenSerializer,
            403: OpenApiResponse(description="wrong credentials"),
            429: _THROTTLED,
        },
    )
    def post(self, request: Request) -> Response:
        user = request.user if request.user.is_authenticated else _authenticate(request)
        return Response({"token": services.issue_token(user)})

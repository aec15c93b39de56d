"""Account endpoints: session login / logout / me, sign-up, the sign-in page's settings,
CSRF cookie, API token; the account's DataModel library."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate, login, logout
from django.db.models import QuerySet
from django.middleware.csrf import get_token
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import csrf_protect, ensure_csrf_cookie
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed, PermissionDenied
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer
from rest_framework.views import APIView

from studio.accounts import services
from studio.accounts.api.serializers import (
    AuthConfigSerializer,
    CsrfSerializer,
    LoginSerializer,
    SavedDataModelSerializer,
    SignUpSerializer,
    TokenSerializer,
    UserSerializer,
)
from studio.accounts.api.throttling import SignInFailureThrottle, SignInThrottle, SignUpThrottle
from studio.accounts.models import SavedDataModel

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


@method_decorator(csrf_protect, name="dispatch")
class SignUpView(APIView):
    """Register and open a session, while ``STUDIO_OPEN_REGISTRATION`` is on.

    CSRF is enforced as for sign-in. The new account starts with the bundled model as
    its default provider when it is installed.
    """

    permission_classes = [AllowAny]
    throttle_classes = [SignUpThrottle]
    throttle_scope = "sign_up"

    @extend_schema(
        operation_id="auth_signup",
        request=SignUpSerializer,
        responses={
            201: UserSerializer,
            400: OpenApiResponse(description="invalid or taken username, weak password"),
            403: OpenApiResponse(description="registration is closed on this server"),
            429: _THROTTLED,
        },
    )
    def post(self, request: Request) -> Response:
        if not settings.STUDIO_OPEN_REGISTRATION:
            raise PermissionDenied("registration is closed on this server")
        payload = SignUpSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        user = services.create_account(**payload.validated_data)
        login(request._request, user, backend="django.contrib.auth.backends.ModelBackend")
        return Response(UserSerializer(user).data, status=status.HTTP_201_CREATED)


class AuthConfigView(APIView):
    """What the sign-in page offers: sign-up, and the demo account in the embedded studio."""

    permission_classes = [AllowAny]
    authentication_classes: list[type] = []

    @extend_schema(operation_id="auth_config", responses=AuthConfigSerializer)
    def get(self, request: Request) -> Response:
        return Response(
            {
                "registration_open": bool(settings.STUDIO_OPEN_REGISTRATION),
                "demo_account": services.demo_account_hint(),
            }
        )


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


@extend_schema_view(
    list=extend_schema(operation_id="data_models_list"),
    create=extend_schema(operation_id="data_models_create"),
    retrieve=extend_schema(operation_id="data_models_retrieve"),
    update=extend_schema(operation_id="data_models_update"),
    partial_update=extend_schema(operation_id="data_models_partial_update"),
    destroy=extend_schema(operation_id="data_models_destroy"),
)
class SavedDataModelViewSet(
    mixins.ListModelMixin,
    mixins.CreateModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet[SavedDataModel],
):
    """The caller's DataModel library (the editor's designer; dataset uploads offer it too).

    Not paginated: a library is a few dozen models, and the editor needs all of them.
    """

    serializer_class = SavedDataModelSerializer
    pagination_class = None
    filter_backends: list[type] = []
    queryset = SavedDataModel.objects.none()

    def get_queryset(self) -> QuerySet[SavedDataModel]:
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return SavedDataModel.objects.none()
        return SavedDataModel.objects.filter(owner=self.request.user)

    def perform_create(self, serializer: BaseSerializer[SavedDataModel]) -> None:
        data: dict[str, Any] = dict(serializer.validated_data)
        serializer.instance = services.create_data_model(owner=self.request.user, **data)

    def perform_update(self, serializer: BaseSerializer[SavedDataModel]) -> None:
        assert serializer.instance is not None
        data: dict[str, Any] = dict(serializer.validated_data)
        serializer.instance = services.update_data_model(serializer.instance, **data)

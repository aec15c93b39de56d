"""Routes of the account API: /api/auth/... and /api/data-models/."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from studio.accounts.api import views

router = SimpleRouter()
router.register("data-models", views.SavedDataModelViewSet, basename="data-model")

urlpatterns = [
    path("auth/signup/", views.SignUpView.as_view(), name="auth-signup"),
    path("auth/config/", views.AuthConfigView.as_view(), name="auth-config"),
    path("auth/login/", views.LoginView.as_view(), name="auth-login"),
    path("auth/logout/", views.LogoutView.as_view(), name="auth-logout"),
    path("auth/me/", views.MeView.as_view(), name="auth-me"),
    path("auth/csrf/", views.CsrfView.as_view(), name="auth-csrf"),
    path("auth/token/", views.TokenView.as_view(), name="auth-token"),
    *router.urls,
]

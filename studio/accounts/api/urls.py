"""Routes of the authentication API, under /api/auth/."""

from django.urls import path

from studio.accounts.api import views

urlpatterns = [
    path("auth/login/", views.LoginView.as_view(), name="auth-login"),
    path("auth/logout/", views.LogoutView.as_view(), name="auth-logout"),
    path("auth/me/", views.MeView.as_view(), name="auth-me"),
    path("auth/csrf/", views.CsrfView.as_view(), name="auth-csrf"),
    path("auth/token/", views.TokenView.as_view(), name="auth-token"),
]

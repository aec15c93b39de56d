"""URL map: the REST API under /api/, its OpenAPI schema at /api/schema/."""

from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from studio.accounts.admin_login import admin_login
from studio.views import spa_index

urlpatterns = [
    # The admin's sign-in, throttled like the API's (studio.accounts.admin_login).
    path("admin/login/", admin_login, name="admin-login"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/", include("studio.accounts.api.urls")),
    path("api/", include("studio.programs.api.urls")),
    path("api/", include("studio.datasets.api.urls")),
    path("api/", include("studio.providers.api.urls")),
    path("api/", include("studio.runs.api.urls")),
    path("api/", include("studio.deployments.api.urls")),
    path("api/", include("studio.evaluations.api.urls")),
    path("api/", include("studio.scorers.api.urls")),
    # Everything else is a page of the browser app.
    re_path(r"^(?!api/|admin/|ws/|static/).*$", spa_index, name="spa"),
]

# Errors answer JSON on /api/ paths (never Django's HTML pages); page paths keep them.
handler400 = "studio.common.errors.handler400"
handler403 = "studio.common.errors.handler403"
handler404 = "studio.common.errors.handler404"
handler500 = "studio.common.errors.handler500"

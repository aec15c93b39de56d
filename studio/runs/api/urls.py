"""Routes of the runs API: the runs, and the catalogue run setup is built from."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from studio.runs.api.views import CatalogueView, RunViewSet

router = SimpleRouter()
router.register("runs", RunViewSet, basename="run")

urlpatterns = [
    path("catalogue/", CatalogueView.as_view(), name="catalogue"),
    *router.urls,
]

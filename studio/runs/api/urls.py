"""Routes of the runs API."""

from rest_framework.routers import SimpleRouter

from studio.runs.api.views import RunViewSet

router = SimpleRouter()
router.register("runs", RunViewSet, basename="run")

urlpatterns = router.urls

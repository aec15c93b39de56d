"""Routes of the datasets API, under /api/."""

from rest_framework.routers import SimpleRouter

from studio.datasets.api.views import DatasetViewSet

router = SimpleRouter()
router.register("datasets", DatasetViewSet, basename="dataset")

urlpatterns = router.urls

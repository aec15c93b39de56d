"""Routes of the code rewards API, under /api/."""

from rest_framework.routers import SimpleRouter

from studio.scorers.api.views import ScorerViewSet

router = SimpleRouter()
router.register("scorers", ScorerViewSet, basename="scorer")

urlpatterns = router.urls

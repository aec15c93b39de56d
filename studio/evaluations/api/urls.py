"""Routes of the evaluations API."""

from rest_framework.routers import SimpleRouter

from studio.evaluations.api.views import EvaluationViewSet

router = SimpleRouter()
router.register("evaluations", EvaluationViewSet, basename="evaluation")

urlpatterns = router.urls

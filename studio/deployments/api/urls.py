"""Routes of the deployments API."""

from rest_framework.routers import SimpleRouter

from studio.deployments.api.views import NAME_PATTERN, BatchJobViewSet, DeploymentViewSet

router = SimpleRouter()
router.register("deployments", DeploymentViewSet, basename="deployment")
router.register(
    rf"deployments/(?P<deployment_name>{NAME_PATTERN})/batches", BatchJobViewSet, basename="batch"
)

urlpatterns = router.urls

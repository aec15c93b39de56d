"""Routes of the providers API, under /api/."""

from rest_framework.routers import SimpleRouter

from studio.providers.api.views import ProviderViewSet

router = SimpleRouter()
router.register("providers", ProviderViewSet, basename="provider")

urlpatterns = router.urls

"""Routes of the programs API, under /api/."""

from rest_framework.routers import SimpleRouter

from studio.programs.api.views import ProgramViewSet

router = SimpleRouter()
router.register("programs", ProgramViewSet, basename="program")

urlpatterns = router.urls

"""Routes of the deployments API."""

from django.urls import re_path
from rest_framework.routers import SimpleRouter

from studio.deployments.api.into_dataset import PredictionsToDatasetView
from studio.deployments.api.views import (
    NAME_PATTERN,
    BatchJobViewSet,
    DeploymentViewSet,
    PredictionLogViewSet,
)

router = SimpleRouter()
router.register("deployments", DeploymentViewSet, basename="deployment")
router.register(
    rf"deployments/(?P<deployment_name>{NAME_PATTERN})/batches", BatchJobViewSet, basename="batch"
)

router.register(
    rf"deployments/(?P<deployment_name>{NAME_PATTERN})/predictions",
    PredictionLogViewSet,
    basename="prediction",
)

urlpatterns = [
    *router.urls,
    re_path(
        rf"^deployments/(?P<deployment_name>{NAME_PATTERN})/predictions/$",
        PredictionLogViewSet.as_view({"get": "page"}),
        name="prediction-list",
    ),
    re_path(
        rf"^deployments/(?P<deployment_name>{NAME_PATTERN})/predictions/to-dataset/$",
        PredictionsToDatasetView.as_view({"post": "to_dataset"}),
        name="prediction-to-dataset",
    ),
]

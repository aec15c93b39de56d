"""Websocket routes."""

from django.urls import re_path

from studio.realtime.consumers import BatchEventsConsumer, RunEventsConsumer

websocket_urlpatterns = [
    re_path(r"^ws/runs/(?P<pk>\d+)/$", RunEventsConsumer.as_asgi()),
    re_path(r"^ws/batches/(?P<pk>\d+)/$", BatchEventsConsumer.as_asgi()),
]

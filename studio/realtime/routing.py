"""Websocket routes."""

from django.urls import re_path

from studio.realtime.consumers import RunEventsConsumer

websocket_urlpatterns = [
    re_path(r"^ws/runs/(?P<run_id>\d+)/$", RunEventsConsumer.as_asgi()),
]

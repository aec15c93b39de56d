"""Studio: the Django project (REST API, websocket, Celery workers) around optimizer_core."""

from studio.celery import app as celery_app

__all__ = ["celery_app"]

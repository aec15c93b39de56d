"""ASGI entry point: HTTP through Django, websockets through the realtime app."""

import os

from django.core.asgi import get_asgi_application

from studio.web_server import leave_bodies_to_django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings.local")
leave_bodies_to_django()  # under daphne: malformed form bodies reach Django (web_server.py)
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from studio.realtime.auth import TokenAuthMiddleware  # noqa: E402
from studio.realtime.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(TokenAuthMiddleware(URLRouter(websocket_urlpatterns)))
        ),
    }
)

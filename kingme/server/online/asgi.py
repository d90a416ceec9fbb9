"""A server of the online routes alone (``uvicorn --factory kingme.server.online.asgi:create_app``).

Used by the scale-out test and ``kingme bench online``, which need nothing but rooms.
"""

from __future__ import annotations

from starlette.applications import Starlette

from kingme.server.gc_tuning import tune_for_many_live_objects
from kingme.server.online import OnlineConfig, OnlineServer
from kingme.server.settings import Settings


def app_for(server: OnlineServer) -> Starlette:
    """A Starlette app serving ``server``'s routes, started and stopped with it."""
    return Starlette(routes=server.routes(), lifespan=server.lifespan)


def create_app(settings: Settings | None = None, config: OnlineConfig | None = None) -> Starlette:
    """The uvicorn factory: a whole server process of its own, so the collector is tuned too."""
    app = app_for(OnlineServer(settings or Settings.from_env(), config))
    tune_for_many_live_objects()
    return app

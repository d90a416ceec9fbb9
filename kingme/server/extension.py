"""``Extension``: a part of the server (online play, dailies) that plugs routes into the app.

The app is built by ``kingme.server.app.create_app`` from the one-device API, the extensions and,
last, the static front end. An extension contributes routes (HTTP or WebSocket, mounted before
the static files so they win) and, optionally, a lifespan: an async context manager entered at
start-up and left at shutdown, where it opens and closes its storage or pub/sub connections.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass

from starlette.applications import Starlette
from starlette.routing import BaseRoute

from kingme.server.settings import Settings


@dataclass(frozen=True)
class Extension:
    """Routes plus an optional ``lifespan(app)``; ``app.state`` holds ``settings`` and ``engine``."""

    name: str
    routes: Sequence[BaseRoute] = ()
    lifespan: Callable[[Starlette], AbstractAsyncContextManager[None]] | None = None


#: How an extension is made: from the server's settings.
ExtensionFactory = Callable[[Settings], Extension]

"""Online play with a friend: rooms, invite links, seats, the event log and its WebSocket.

``extension(settings)`` is online play as a part of the web app (one line in
``kingme.server.app.EXTENSIONS``); ``OnlineServer`` is the same for other hosts (its
``routes()``, ``startup()``/``shutdown()`` or ``lifespan``). The parts: ``wire`` (every
message, one dataclass each: client to server, checked; server to client; between processes),
``events`` (every event of a room's log, one dataclass each), ``room`` (the room as a fold of
events), ``repository`` (load, cache, lock, commit),
``hub`` (connections, forwarding, presence), ``service`` (the two composed: decide → store →
publish), ``endpoint`` (HTTP and WebSocket), ``limits`` and ``config``; ``client`` and
``bench`` drive a server from outside, ``asgi`` serves the online routes alone.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from starlette.routing import BaseRoute

from kingme.server.extension import Extension
from kingme.server.online.config import OnlineConfig
from kingme.server.online.endpoint import routes
from kingme.server.online.service import OnlineService
from kingme.server.pubsub import RedisOptions, open_pubsub
from kingme.server.settings import Settings
from kingme.server.storage import Database, RoomStore, migrate


class OnlineServer:
    """Owns the database, pub/sub and service between start-up and shut-down."""

    def __init__(self, settings: Settings, config: OnlineConfig | None = None) -> None:
        self.settings = settings
        self.config = config or OnlineConfig.from_env()
        self.service: OnlineService | None = None
        self._database: Database | None = None
        self._tasks: list[asyncio.Task[None]] = []

    def _service(self) -> OnlineService:
        if self.service is None:
            raise RuntimeError("online play has not started")
        return self.service

    async def startup(self) -> None:
        self._database = Database.from_settings(self.settings)
        await migrate(self._database)
        pubsub = open_pubsub(self.settings.redis_url, RedisOptions.from_env())
        self.service = OnlineService(RoomStore(self._database), pubsub, self.config)
        await pubsub.start()
        # Marked alive before serving: a presence announced before the mark would be forgotten.
        await self.service.hub.beat()
        self._tasks = [asyncio.create_task(task) for task in self.service.background()]

    async def shutdown(self) -> None:
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self.service is not None:
            await self.service.pubsub.close()
        if self._database is not None:
            self._database.close()

    def routes(self) -> list[BaseRoute]:
        return routes(self._service)

    @contextlib.asynccontextmanager
    async def lifespan(self, _app: object = None) -> AsyncIterator[None]:
        """Started for the app's lifetime: storage, migrations, pub/sub."""
        await self.startup()
        try:
            yield
        finally:
            await self.shutdown()


def extension(settings: Settings) -> Extension:
    """Online play as an extension of the web app (``kingme.server.app.EXTENSIONS``)."""
    server = OnlineServer(settings)
    return Extension("online", server.routes(), server.lifespan)


__all__ = ["OnlineConfig", "OnlineServer", "extension"]

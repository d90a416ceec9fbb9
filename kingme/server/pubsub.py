"""Pub/sub for room events: in-process by default, Redis when ``KINGME_REDIS_URL`` is set.

Both deliver every published message to this process's handler at once, in order (so local
players never wait on Redis and keep playing if it is down). The Redis one also sends it to
the other processes, which deliver it to their own handlers, and skips its own messages when
they come back. When the Redis connection drops it is re-established with back-off and the
``on_reconnect`` callback runs, so the server can re-sync the clients that may have missed
messages meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
from collections.abc import Awaitable, Callable
from typing import Protocol

log = logging.getLogger("kingme.pubsub")

#: A channel every process follows (nothing is published on it yet).
CONTROL_CHANNEL = "kingme:control"

Handler = Callable[[str, str], None]
Reconnected = Callable[[], Awaitable[None]]


class PubSub(Protocol):
    """What the online server needs: publish to a channel, and hear the channels it follows."""

    def set_handlers(self, handler: Handler, on_reconnect: Reconnected) -> None: ...

    async def start(self) -> None: ...

    async def close(self) -> None: ...

    async def subscribe(self, channel: str) -> None: ...

    async def unsubscribe(self, channel: str) -> None: ...

    async def publish(self, channel: str, message: str) -> None: ...


class LocalPubSub:
    """One process: publishing is calling the handler."""

    def __init__(self) -> None:
        self._handler: Handler = lambda channel, message: None

    def set_handlers(self, handler: Handler, on_reconnect: Reconnected) -> None:
        self._handler = handler

    async def start(self) -> None:
        pass

    async def close(self) -> None:
        pass

    async def subscribe(self, channel: str) -> None:
        pass

    async def unsubscribe(self, channel: str) -> None:
        pass

    async def publish(self, channel: str, message: str) -> None:
        self._handler(channel, message)


class RedisPubSub:
    """Several processes sharing rooms through Redis pub/sub."""

    #: Seconds between reconnection attempts, growing to the last value.
    BACKOFF = (0.1, 0.25, 0.5, 1.0, 2.0)

    def __init__(self, url: str) -> None:
        import redis.asyncio as redis

        # Named after the process, so operators (and tests) can tell its connections apart.
        self._redis = redis.Redis.from_url(
            url, socket_connect_timeout=2, health_check_interval=10, client_name=f"kingme-{os.getpid()}"
        )
        self._origin = secrets.token_hex(8)
        self._channels: set[str] = set()
        self._pubsub = None
        self._connected = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._handler: Handler = lambda channel, message: None
        self._on_reconnect: Reconnected | None = None
        self._publish_failing = False

    def set_handlers(self, handler: Handler, on_reconnect: Reconnected) -> None:
        self._handler = handler
        self._on_reconnect = on_reconnect

    async def start(self) -> None:
        self._task = asyncio.create_task(self._listen(), name="kingme-redis-pubsub")
        # Start serving even if Redis is late; local play works meanwhile.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._connected.wait(), timeout=5)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        await self._redis.aclose()

    async def subscribe(self, channel: str) -> None:
        self._channels.add(channel)
        if self._pubsub is not None and self._connected.is_set():
            with contextlib.suppress(Exception):  # the listener resubscribes after a reconnect
                await self._pubsub.subscribe(channel)

    async def unsubscribe(self, channel: str) -> None:
        self._channels.discard(channel)
        if self._pubsub is not None and self._connected.is_set():
            with contextlib.suppress(Exception):
                await self._pubsub.unsubscribe(channel)

    async def publish(self, channel: str, message: str) -> None:
        self._handler(channel, message)
        try:
            await self._redis.publish(channel, f"{self._origin} {message}")
            self._publish_failing = False
        except Exception as error:  # stored already; other processes re-sync after the reconnect
            if not self._publish_failing:  # say it once per outage, not once per message
                log.warning("publishing to Redis failed: %s", error)
            self._publish_failing = True

    async def _listen(self) -> None:
        attempt = 0
        first = True
        while True:
            try:
                self._pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
                # Always follow one channel, so listening never ends for want of subscriptions.
                await self._pubsub.subscribe(CONTROL_CHANNEL, *self._channels)
                self._connected.set()
                attempt = 0
                if not first and self._on_reconnect is not None:
                    await self._on_reconnect()
                first = False
                async for item in self._pubsub.listen():
                    if item.get("type") != "message":
                        continue
                    self._deliver(item["channel"], item["data"])
            except asyncio.CancelledError:
                raise
            except Exception as error:
                self._connected.clear()
                if attempt == 0:
                    log.warning("Redis pub/sub connection lost (%s); reconnecting", error)
                with contextlib.suppress(Exception):
                    await self._pubsub.aclose()
                await asyncio.sleep(self.BACKOFF[min(attempt, len(self.BACKOFF) - 1)])
                attempt += 1
                first = False

    def _deliver(self, channel: bytes | str, data: bytes | str) -> None:
        text = data.decode() if isinstance(data, bytes) else data
        origin, _, message = text.partition(" ")
        if origin == self._origin:
            return
        name = channel.decode() if isinstance(channel, bytes) else channel
        try:
            self._handler(name, message)
        except Exception:  # one bad message must not stop the listener
            log.exception("handling a pub/sub message failed")


def open_pubsub(redis_url: str | None) -> PubSub:
    """Redis pub/sub when a URL is given, else in-process."""
    return RedisPubSub(redis_url) if redis_url else LocalPubSub()

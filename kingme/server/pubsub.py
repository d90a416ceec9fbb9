"""Pub/sub for room events: in-process by default, Redis when ``KINGME_REDIS_URL`` is set.

Both deliver every published message to this process's handler at once, in order (so local
players never wait on Redis and keep playing if it is down). The Redis one also sends it to
the other processes, which deliver it to their own handlers, and skips its own messages when
they come back.

Sending to Redis never holds up a move: messages wait in a bounded outbox that one task sends
in pipelined batches, each bounded by a timeout. A batch that cannot be sent (Redis down, hung
or slow) is sent again, first, until Redis takes it: a batch that timed out may or may not have
reached Redis, and a message heard twice is skipped by its event number, while a message
dropped was a move its opponent never saw (issue 41: under load, batches of 500 timed out and
their moves reached the opponents only through the version checks, seconds later). Only
messages pushed out of a full outbox are lost; their channels are reported through
``on_lost`` once Redis answers again, so the server can announce those rooms' versions and the
other processes reload them from the database. When the listening connection drops it is re-established with
back-off and ``on_reconnect`` runs, so the server can re-sync the clients that may have missed
messages meanwhile.

Every key and channel the Redis one touches starts with ``KINGME_REDIS_PREFIX`` (``kingme:`` by
default), so several installations can share one Redis; callers name channels and keys without
it.

Besides messages, Redis holds what the processes must agree on at once: counters (rooms per
address, a seat's messages), each live process's mark (a key that lapses unless renewed, so a
process killed outright is known dead within seconds), and places taken among a fixed number
(spectators per room), counted atomically over the live processes.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import secrets
from collections import deque
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from kingme.server.environment import whole_number

log = logging.getLogger("kingme.pubsub")

#: A channel every process follows (nothing is published on it yet).
CONTROL_CHANNEL = "control"
#: What a key prefix may hold: it is part of every key and channel name, and shown in logs.
PREFIX_PATTERN = re.compile(r"[A-Za-z0-9_.:-]{1,64}")

T = TypeVar("T")
Handler = Callable[[str, str], None]
Reconnected = Callable[[], Awaitable[None]]
Lost = Callable[[set[str]], Awaitable[None]]


class PubSub(Protocol):
    """What the online server needs: publish to a channel, and hear the channels it follows."""

    #: Whether other processes share the rooms (so versions must be checked against the database).
    shared: bool

    def set_handlers(self, handler: Handler, on_reconnect: Reconnected, on_lost: Lost) -> None: ...

    async def start(self) -> None: ...

    async def close(self) -> None: ...

    async def subscribe(self, channel: str) -> None: ...

    async def unsubscribe(self, channel: str) -> None: ...

    async def publish(self, channel: str, message: str) -> None: ...

    async def count(self, key: str, seconds: int) -> int | None:
        """Add one to a counter every process shares, kept ``seconds``; None when there is no
        shared counter (one process) or Redis does not answer (each process then counts alone)."""
        ...

    async def beat(self, origin: str, seconds: int) -> bool | None:
        """Mark the process ``origin`` alive for ``seconds``. Whether its mark was still there
        (False: it had lapsed, so the others may have forgotten its presence); None with one
        process or when Redis does not answer."""
        ...

    async def alive(self, origins: Collection[str]) -> set[str] | None:
        """Those of ``origins`` whose mark is there; None when that cannot be known."""
        ...

    async def claim(self, key: str, origin: str, limit: int, seconds: int) -> bool | None:
        """Take, for ``origin``, one of ``limit`` places counted under ``key`` by every process
        together — the places of processes whose mark has lapsed do not count — in one atomic
        step; the count is kept ``seconds`` after the last claim. Whether a place was free;
        None when there is no shared count (the caller counts alone)."""
        ...

    async def release(self, key: str, origin: str, places: int) -> bool:
        """Give back ``places`` that ``origin`` claimed under ``key``; False when Redis did not
        answer (the caller tries again later)."""
        ...


class LocalPubSub:
    """One process: publishing is calling the handler."""

    shared = False

    def __init__(self) -> None:
        self._handler: Handler = lambda channel, message: None

    def set_handlers(self, handler: Handler, on_reconnect: Reconnected, on_lost: Lost) -> None:
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

    async def count(self, key: str, seconds: int) -> int | None:
        return None

    async def beat(self, origin: str, seconds: int) -> bool | None:
        return None

    async def alive(self, origins: Collection[str]) -> set[str] | None:
        return None

    async def claim(self, key: str, origin: str, limit: int, seconds: int) -> bool | None:
        return None

    async def release(self, key: str, origin: str, places: int) -> bool:
        return True


@dataclass(frozen=True)
class RedisOptions:
    """How kingme uses Redis (``KINGME_REDIS_POOL``, ``KINGME_REDIS_TIMEOUT``,
    ``KINGME_REDIS_PREFIX``)."""

    #: Connections for publishing and subscribing (the listener has one more of its own).
    pool_size: int = 8
    #: Seconds any Redis call may take before it counts as failed. Acknowledgements never wait
    #: for Redis, so this only bounds how long a hung Redis holds a batch or a subscription.
    timeout: float = 3.0
    #: Messages waiting to be sent before the oldest are dropped (their rooms are then announced).
    outbox: int = 20_000
    #: Messages sent in one pipelined round trip: about 400 kB of events (a move's event with its
    #: state is a few kB), which a starved process still sends well within ``timeout``; batches
    #: of 500 (2 MB) timed out on a loaded machine (issue 41), and each retry resends the batch.
    batch: int = 100
    #: The start of every key and channel name, so several installations can share one Redis.
    prefix: str = "kingme:"

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> RedisOptions:
        pool = whole_number(env, "KINGME_REDIS_POOL", cls.pool_size, 1, 1000)
        timeout = env.get("KINGME_REDIS_TIMEOUT", str(cls.timeout))
        try:
            seconds = float(timeout)
        except ValueError:
            seconds = -1.0
        if not 0.05 <= seconds <= 60:
            raise ValueError(f"KINGME_REDIS_TIMEOUT must be a number of seconds from 0.05 to 60, not {timeout!r}")
        prefix = env.get("KINGME_REDIS_PREFIX", cls.prefix)
        if not PREFIX_PATTERN.fullmatch(prefix):
            raise ValueError(f"KINGME_REDIS_PREFIX must be 1 to 64 letters, digits or any of _ . : -, not {prefix!r}")
        return cls(pool_size=pool, timeout=seconds, prefix=prefix)


#: Takes a place under KEYS[1] (a hash: process -> places) for ARGV[1] if the places of the live
#: processes (those whose mark, ARGV[4] followed by the process, is there) are fewer than
#: ARGV[2]; keeps the hash ARGV[3] seconds. The marks are read inside the script, which a single
#: Redis (not a cluster) allows: that is what makes checking and taking one step.
CLAIM_SCRIPT = """
local taken = 0
local places = redis.call('HGETALL', KEYS[1])
for i = 1, #places, 2 do
  if places[i] == ARGV[1] or redis.call('EXISTS', ARGV[4] .. places[i]) == 1 then
    taken = taken + tonumber(places[i + 1])
  end
end
if taken >= tonumber(ARGV[2]) then
  return 0
end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""
#: Gives back ARGV[2] places of ARGV[1] under KEYS[1], dropping the process's entry at none
#: (or below none, if the hash had lapsed meanwhile).
RELEASE_SCRIPT = """
if redis.call('HINCRBY', KEYS[1], ARGV[1], -tonumber(ARGV[2])) <= 0 then
  redis.call('HDEL', KEYS[1], ARGV[1])
end
return 1
"""


class RedisPubSub:
    """Several processes sharing rooms through Redis pub/sub."""

    shared = True
    #: Seconds between reconnection attempts, growing to the last value.
    BACKOFF = (0.1, 0.25, 0.5, 1.0, 2.0)

    def __init__(self, url: str, options: RedisOptions | None = None) -> None:
        import redis.asyncio as redis

        self.options = options or RedisOptions()
        name = f"kingme-{os.getpid()}"  # so operators (and tests) can tell its connections apart
        # Publishing: a bounded pool, every call bounded by the timeout.
        pool = redis.BlockingConnectionPool.from_url(
            url,
            max_connections=self.options.pool_size,
            timeout=self.options.timeout,
            socket_connect_timeout=self.options.timeout,
            socket_timeout=self.options.timeout,
            client_name=name,
        )
        self._redis = redis.Redis(connection_pool=pool)
        # Listening: a connection of its own that may stay quiet for hours (no read timeout).
        self._listener = redis.Redis.from_url(
            url, socket_connect_timeout=self.options.timeout, health_check_interval=10, client_name=name
        )
        self._prefix = self.options.prefix
        self._claim = self._redis.register_script(CLAIM_SCRIPT)
        self._release = self._redis.register_script(RELEASE_SCRIPT)
        self._origin = secrets.token_hex(8)
        #: The channels followed, named without the prefix.
        self._channels: set[str] = set()
        self._pubsub: Any = None
        self._connected = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._sender: asyncio.Task[None] | None = None
        self._outbox: deque[tuple[str, str]] = deque()
        #: A batch that could not be sent, sent again before anything newer.
        self._unsent: list[tuple[str, str]] = []
        self._wake = asyncio.Event()
        self._lost: set[str] = set()
        self._handler: Handler = lambda channel, message: None
        self._on_reconnect: Reconnected | None = None
        self._on_lost: Lost | None = None
        self._publish_failing = False
        #: Whether the last question to Redis (a count, a mark, a place) failed: said once per outage.
        self._asking_failed = False

    def set_handlers(self, handler: Handler, on_reconnect: Reconnected, on_lost: Lost) -> None:
        self._handler = handler
        self._on_reconnect = on_reconnect
        self._on_lost = on_lost

    async def start(self) -> None:
        self._task = asyncio.create_task(self._listen(), name="kingme-redis-pubsub")
        self._sender = asyncio.create_task(self._send(), name="kingme-redis-publish")
        # Start serving even if Redis is late; local play works meanwhile.
        try:
            await asyncio.wait_for(self._connected.wait(), timeout=5)
        except TimeoutError:
            log.warning("Redis did not answer within 5 s of start-up; serving meanwhile, rooms are shared once it does")

    async def close(self) -> None:
        for task in (self._task, self._sender):
            if task is not None:
                task.cancel()
                try:
                    await task
                except asyncio.CancelledError:
                    pass
                except Exception as error:  # shutting down: nothing more to do about it
                    log.warning("a Redis task had failed before shut-down: %r", error)
        await self._redis.aclose()
        await self._listener.aclose()

    async def subscribe(self, channel: str) -> None:
        self._channels.add(channel)
        await self._follow("subscribe", channel)

    async def unsubscribe(self, channel: str) -> None:
        self._channels.discard(channel)
        await self._follow("unsubscribe", channel)

    async def _follow(self, action: str, channel: str) -> None:
        """(Un)subscribe on the listening connection; if Redis does not answer in time, the
        listener is restarted, which subscribes to every channel again and re-syncs the clients."""
        if self._pubsub is None or not self._connected.is_set():
            return  # the listener subscribes to every channel when it connects
        try:
            await asyncio.wait_for(getattr(self._pubsub, action)(self._prefix + channel), timeout=self.options.timeout)
        except Exception as error:
            log.warning("Redis did not %s %s in time (%r); reconnecting", action, channel, error)
            self._restart_listener()

    def _restart_listener(self) -> None:
        self._connected.clear()
        if self._task is not None:
            self._task.cancel()
        self._task = asyncio.create_task(self._listen(first=False), name="kingme-redis-pubsub")

    async def publish(self, channel: str, message: str) -> None:
        self._handler(channel, message)
        self._outbox.append((channel, f"{self._origin} {message}"))
        if len(self._outbox) > self.options.outbox:
            self._lost.add(self._outbox.popleft()[0])
        self._wake.set()

    async def _ask(self, what: str, call: Callable[[], Awaitable[T]]) -> T | None:
        """``call``'s answer, or None when Redis is known to be away (not asked: the caller
        manages alone rather than wait for it) or does not answer in time."""
        if self._publish_failing or not self._connected.is_set():
            return None
        try:
            async with asyncio.timeout(self.options.timeout):
                answer = await call()
        except Exception as error:
            if not self._asking_failed:  # the heartbeat asks every 2 s: say it once per outage
                log.warning("%s in Redis failed (%r); this process manages alone meanwhile", what, error)
            self._asking_failed = True
            return None
        if self._asking_failed:
            log.warning("Redis answers again (%s)", what)
            self._asking_failed = False
        return answer

    async def count(self, key: str, seconds: int) -> int | None:
        async def incr() -> int:
            pipeline = self._redis.pipeline(transaction=True)
            pipeline.incr(self._prefix + key)
            pipeline.expire(self._prefix + key, seconds, nx=True)
            value, _ = await pipeline.execute()
            return int(value)

        return await self._ask(f"counting {key}", incr)

    def _mark(self, origin: str) -> str:
        return f"{self._prefix}process:{origin}"

    async def beat(self, origin: str, seconds: int) -> bool | None:
        async def mark() -> bool:
            return await self._redis.set(self._mark(origin), 1, ex=seconds, get=True) is not None

        return await self._ask("renewing this process's mark", mark)

    async def alive(self, origins: Collection[str]) -> set[str] | None:
        listed = list(origins)

        async def marks() -> set[str]:
            values = await self._redis.mget([self._mark(origin) for origin in listed])
            return {origin for origin, value in zip(listed, values, strict=True) if value is not None}

        return await self._ask("reading the processes' marks", marks)

    async def claim(self, key: str, origin: str, limit: int, seconds: int) -> bool | None:
        async def take() -> bool:
            args: list[str | int] = [origin, limit, seconds, self._mark("")]
            return bool(await self._claim(keys=[self._prefix + key], args=args))

        return await self._ask(f"taking a place in {key}", take)

    async def release(self, key: str, origin: str, places: int) -> bool:
        async def give_back() -> bool:
            await self._release(keys=[self._prefix + key], args=[origin, places])
            return True

        return await self._ask(f"giving back places in {key}", give_back) is not None

    async def _send(self) -> None:
        """Send the outbox in pipelined batches, a failed batch again first; report lost
        channels once sending works again."""
        attempt = 0
        while True:
            if not self._unsent and not self._outbox and not self._lost:
                await self._wake.wait()
            self._wake.clear()
            if self._unsent:
                batch = self._unsent
            elif self._outbox:
                batch = [self._outbox.popleft() for _ in range(min(len(self._outbox), self.options.batch))]
            else:  # only lost channels: probe Redis before announcing them
                batch = []
            try:
                await asyncio.wait_for(self._send_batch(batch), timeout=self.options.timeout)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                self._unsent = batch
                if not self._publish_failing:  # say it once per outage, not once per message
                    log.warning("publishing to Redis failed (%r); sending again", error)
                self._publish_failing = True
                await asyncio.sleep(self.BACKOFF[min(attempt, len(self.BACKOFF) - 1)])
                attempt += 1
                continue
            attempt = 0
            self._unsent = []
            if self._publish_failing:
                log.warning("publishing to Redis works again")
            self._publish_failing = False
            if self._lost and self._on_lost is not None:
                lost, self._lost = self._lost, set()
                try:
                    await self._on_lost(lost)
                except Exception:
                    log.exception("announcing rooms after a Redis failure failed")

    async def _send_batch(self, batch: list[tuple[str, str]]) -> None:
        if not batch:
            await self._redis.ping()
            return
        pipeline = self._redis.pipeline(transaction=False)
        for channel, text in batch:
            pipeline.publish(self._prefix + channel, text)
        await pipeline.execute()

    async def _listen(self, first: bool = True) -> None:
        attempt = 0
        while True:
            try:
                self._pubsub = self._listener.pubsub(ignore_subscribe_messages=True)
                # Always follow one channel, so listening never ends for want of subscriptions.
                await self._pubsub.subscribe(*(self._prefix + name for name in (CONTROL_CHANNEL, *self._channels)))
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
                await self._close_listener()
                raise
            except Exception as error:
                self._connected.clear()
                if attempt == 0:
                    log.warning("Redis pub/sub connection lost (%s); reconnecting", error)
                await self._close_listener()
                await asyncio.sleep(self.BACKOFF[min(attempt, len(self.BACKOFF) - 1)])
                attempt += 1
                first = False

    async def _close_listener(self) -> None:
        """Close the listening connection, which may be broken already."""
        if self._pubsub is None:
            return
        try:
            await asyncio.wait_for(self._pubsub.aclose(), timeout=self.options.timeout)
        except Exception as error:
            log.debug("closing the Redis listening connection failed: %r", error)

    def _deliver(self, channel: bytes | str, data: bytes | str) -> None:
        text = data.decode() if isinstance(data, bytes) else data
        origin, _, message = text.partition(" ")
        if origin == self._origin:
            return
        name = channel.decode() if isinstance(channel, bytes) else channel
        try:
            self._handler(name.removeprefix(self._prefix), message)
        except Exception:  # one bad message must not stop the listener
            log.exception("handling a pub/sub message failed")


def open_pubsub(redis_url: str | None, options: RedisOptions | None = None) -> PubSub:
    """Redis pub/sub when a URL is given, else in-process."""
    return RedisPubSub(redis_url, options) if redis_url else LocalPubSub()

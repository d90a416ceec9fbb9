"""Counters shared through Redis (rooms per address, a seat's messages) never make a request
wait for a Redis that is known to be away: the process counts alone until Redis is back. A Redis
that stops answering is reported once, not at every heartbeat."""

from __future__ import annotations

import asyncio
import logging
import socket

from kingme.server.pubsub import RedisOptions, RedisPubSub


def test_a_count_is_not_attempted_while_the_listener_is_not_connected(run):
    with socket.socket() as silent:  # takes connections and never answers, like a hung Redis
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        url = f"redis://127.0.0.1:{silent.getsockname()[1]}/0"

        async def scenario() -> None:
            pubsub = RedisPubSub(url, RedisOptions(timeout=60))  # never started: not connected
            async with asyncio.timeout(30):  # asking this Redis would wait its 60 s
                assert await pubsub.count("kingme:rooms:203.0.113.9:1", 3600) is None

        run(scenario())


def test_a_redis_that_stops_answering_is_reported_once_not_at_every_beat(run, caplog):
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        url = f"redis://127.0.0.1:{silent.getsockname()[1]}/0"

        async def scenario() -> None:
            pubsub = RedisPubSub(url, RedisOptions(timeout=0.05))
            pubsub._connected.set()  # as if it had connected before Redis hung
            for _ in range(3):  # three heartbeats: each gives up after the timeout
                assert await pubsub.beat("a-process", 6) is None
            await pubsub.close()

        with caplog.at_level(logging.WARNING, logger="kingme.pubsub"):
            run(scenario())
        assert [record.getMessage().split(" (")[0] for record in caplog.records] == [
            "renewing this process's mark in Redis failed"
        ]

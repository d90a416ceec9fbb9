"""Counters shared through Redis (rooms per address, a seat's messages) never make a request
wait for a Redis that is known to be away: the process counts alone until Redis is back."""

from __future__ import annotations

import asyncio
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

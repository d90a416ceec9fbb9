"""What the processes agree on through a real Redis (127.0.0.1:6379): each live process's mark,
so the presence of a process killed outright is forgotten at the survivors' next beat; the
spectator limit, taken in one atomic step over the live processes; and the key prefix that lets
installations share one Redis. Each test has a prefix of its own, and beats are called by the
test (no background task runs), so nothing here waits on a clock."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
from waiting import until

from kingme.server.online import OnlineConfig
from kingme.server.online.hub import HEARTBEAT_TTL, spectator_places
from kingme.server.online.service import OnlineService, Seat
from kingme.server.online.wire import Hello, ProtocolError
from kingme.server.pubsub import RedisOptions, RedisPubSub
from kingme.server.storage import Database, RoomStore, migrate
from tests.online.test_delivery import Player


def test_the_key_prefix_is_kingme_unless_set_and_is_checked():
    assert RedisOptions.from_env({}).prefix == "kingme:"
    assert RedisOptions.from_env({"KINGME_REDIS_PREFIX": "club-a:"}).prefix == "club-a:"
    for bad in ("", "with space:", "x" * 65):
        with pytest.raises(ValueError, match="KINGME_REDIS_PREFIX must be 1 to 64 letters"):
            RedisOptions.from_env({"KINGME_REDIS_PREFIX": bad})


@dataclass
class Processes:
    """Two services over one database and one Redis: Black's room on ``a``, White on ``b``."""

    redis: redis.Redis
    prefix: str
    a: OnlineService
    b: OnlineService
    room: str
    black: Player
    white: Player
    black_seat: Seat
    white_seat: Seat

    def mark(self, service: OnlineService) -> str:
        return f"{self.prefix}process:{service.hub.origin}"

    async def kill(self, service: OnlineService) -> None:
        """``service``'s process dies without a word (kill -9): it stops renewing its mark,
        which lapses (done here at once, as Redis does after ``HEARTBEAT_TTL``)."""
        await service.pubsub.close()
        self.redis.delete(self.mark(service))


def installation() -> RedisOptions:
    """Redis options with a key prefix of this test's own."""
    return RedisOptions(prefix=f"kingme-test-{secrets.token_hex(6)}:")


@asynccontextmanager
async def processes(tmp_path: Path, redis_url: str, **options: Any) -> AsyncIterator[Processes]:
    database = Database.sqlite(tmp_path / "rooms.sqlite3")
    await migrate(database)
    config = OnlineConfig(**({"rooms_per_hour": 1000} | options))
    redis_options = installation()
    a, b = (OnlineService(RoomStore(database), RedisPubSub(redis_url, redis_options), config) for _ in range(2))
    server = redis.Redis.from_url(redis_url)
    try:
        for service in (a, b):
            await service.pubsub.start()
            await service.hub.beat()
        created = await a.create_room("american", "black", "127.0.0.1")
        joined = await b.join(created.room)
        black, white = Player(a), Player(b)
        await black.hello(created)
        await white.hello(joined)
        yield Processes(server, redis_options.prefix, a, b, created.room, black, white, created, joined)
        for player in (black, white):
            if not player.writer.done():  # not on a process the test killed
                await player.leave()
    finally:
        for service in (a, b):
            await service.pubsub.close()  # closing twice (after a kill) is harmless
        for key in server.scan_iter(match=f"{redis_options.prefix}*"):
            server.delete(key)
        database.close()


def presence(black: bool, white: bool) -> Any:
    return lambda m: m["type"] == "presence" and (m["black"], m["white"]) == (black, white)


async def dies(process: Processes, service: OnlineService, *players: Player) -> None:
    """``service``'s process is killed with ``players`` connected to it."""
    for player in players:
        player.client.close(1006)
        await player.writer
    await process.kill(service)


def test_each_process_renews_a_mark_that_lapses_within_the_heartbeat_ttl(tmp_path, redis_url, run):
    async def scenario() -> None:
        async with processes(tmp_path, redis_url) as pair:
            for service in (pair.a, pair.b):
                assert 0 < pair.redis.ttl(pair.mark(service)) <= HEARTBEAT_TTL

    run(scenario())


def test_the_presence_of_a_killed_process_is_forgotten_at_the_next_beat(tmp_path, redis_url, run):
    async def scenario() -> None:
        async with processes(tmp_path, redis_url) as pair:
            await pair.black.wait_for(presence(True, True))
            await dies(pair, pair.b, pair.white)
            pair.black.received.clear()
            await pair.a.hub.beat()
            # Not after PRESENCE_TTL (40 s): the survivor's next beat finds White's process gone.
            await pair.black.wait_for(presence(True, False))
            assert pair.a.hub.presence(pair.room).players == {"1": True, "2": False}

    run(scenario())


def test_a_process_whose_mark_lapsed_while_alive_announces_itself_again(tmp_path, redis_url, run):
    async def scenario() -> None:
        async with processes(tmp_path, redis_url) as pair:
            await pair.black.wait_for(presence(True, True))
            pair.redis.delete(pair.mark(pair.b))  # White's process was too busy to renew it in time
            pair.black.received.clear()
            await pair.a.hub.beat()
            await pair.black.wait_for(presence(True, False))
            await pair.b.hub.beat()  # its mark had lapsed: it announces who it has again
            await pair.black.wait_for(presence(True, True))

    run(scenario())


async def watch(service: OnlineService, room: str) -> Player | ProtocolError:
    """A spectator joining ``room`` through ``service``: connected, or the refusal."""
    spectator = Player(service)
    try:
        await service.connect(spectator.client, room, Hello())
    except ProtocolError as error:
        spectator.client.close(1013)
        await spectator.writer
        return error
    return spectator


def test_spectators_joining_at_once_on_two_processes_never_overshoot_the_limit(tmp_path, redis_url, run):
    async def scenario() -> None:
        async with processes(tmp_path, redis_url, spectators_per_room=3) as pair:
            # Neither process has heard of the other's spectators when they all ask at once.
            joins = [watch(service, pair.room) for _ in range(4) for service in (pair.a, pair.b)]
            answers = await asyncio.gather(*joins)
            admitted = [answer for answer in answers if isinstance(answer, Player)]
            refused = [answer for answer in answers if isinstance(answer, ProtocolError)]
            assert len(admitted) == 3 and {error.code for error in refused} == {"room_crowded"}
            # A spectator leaving gives its place back, whichever process it was on.
            await admitted[0].leave()
            late = await watch(pair.b, pair.room)
            assert isinstance(late, Player)
            for spectator in [*admitted[1:], late]:
                await spectator.leave()
            assert not pair.redis.exists(pair.prefix + spectator_places(pair.room))

    run(scenario())


def test_the_spectators_of_a_killed_process_hold_no_places(tmp_path, redis_url, run):
    async def scenario() -> None:
        async with processes(tmp_path, redis_url, spectators_per_room=1) as pair:
            on_b = await watch(pair.b, pair.room)
            assert isinstance(on_b, Player)
            refused = await watch(pair.a, pair.room)
            assert isinstance(refused, ProtocolError) and refused.code == "room_crowded"
            await dies(pair, pair.b, on_b, pair.white)
            on_a = await watch(pair.a, pair.room)
            assert isinstance(on_a, Player)
            await on_a.leave()

    run(scenario())


def test_installations_with_different_prefixes_share_nothing_in_one_redis(redis_url, run):
    async def scenario() -> None:
        first, second = installation(), installation()
        pubsubs = [RedisPubSub(redis_url, options) for options in (first, first, second, second)]
        heard: list[list[str]] = [[] for _ in pubsubs]
        for pubsub, messages in zip(pubsubs, heard, strict=True):
            pubsub.set_handlers(lambda _channel, text, into=messages: into.append(text), _nothing, _nothing)
            await pubsub.start()
            await pubsub.subscribe("room:abc")
        server = redis.Redis.from_url(redis_url)
        try:
            assert await pubsubs[0].count("rooms:127.0.0.1:1", 60) == 1
            assert await pubsubs[2].count("rooms:127.0.0.1:1", 60) == 1  # not 2: counted apart
            assert server.exists(f"{first.prefix}rooms:127.0.0.1:1", f"{second.prefix}rooms:127.0.0.1:1") == 2
            await pubsubs[0].publish("room:abc", "first's")
            await until(lambda: heard[1] == ["first's"], "the first process's message heard")
            # Redis hands a message to every subscriber of its channel when it is published, and
            # each subscriber reads them in order: had the second installation been sent the
            # first's message, it would have heard it before its own.
            await pubsubs[2].publish("room:abc", "second's")
            await until(lambda: heard[3] == ["second's"], "the second process's message heard")
            assert heard == [["first's"], ["first's"], ["second's"], ["second's"]]
            assert server.pubsub_numsub(f"{first.prefix}room:abc")[0][1] == 2
        finally:
            for pubsub in pubsubs:
                await pubsub.close()
            for options in (first, second):
                for key in server.scan_iter(match=f"{options.prefix}*"):
                    server.delete(key)

    run(scenario())


async def _nothing(*_: object) -> None: ...

"""Events reach every process's clients: a lost broadcast, a skipped number or a reload racing
an event never leaves a process with an old copy of a room. Two services share one database
and a pub/sub that the tests control, so every interleaving here is deterministic."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from waiting import WAIT_SECONDS, until

from kingme.server.online import OnlineConfig
from kingme.server.online.hub import Client
from kingme.server.online.service import OnlineService, Seat
from kingme.server.online.wire import DrawOffer, Hello, Move, ProtocolError
from kingme.server.pubsub import Handler, Lost, Reconnected
from kingme.server.storage import Database, RoomStore, migrate


class Bus:
    """Pub/sub between services in one event loop; it can lose messages like a failing Redis."""

    def __init__(self) -> None:
        self.members: list[BusPubSub] = []
        self.losing = False
        #: Messages between processes wait here while this is not None (a slow Redis).
        self.held: list[tuple[BusPubSub, str, str]] | None = None
        self.counters: dict[str, int] = {}

    def hold(self) -> None:
        """Messages between processes wait until ``release`` (each process still hears its own)."""
        self.held = []

    def release(self) -> None:
        held, self.held = self.held or [], None
        for member, name, message in held:
            member.handler(name, message)

    async def recover(self) -> None:
        """Sending works again: every member reports the channels it could not send to."""
        self.losing = False
        for member in self.members:
            lost, member.lost = member.lost, set()
            if lost:
                await member.on_lost(lost)


@dataclass
class BusPubSub:
    bus: Bus
    shared: bool = True
    lost: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.bus.members.append(self)

    def set_handlers(self, handler: Handler, on_reconnect: Reconnected, on_lost: Lost) -> None:
        self.handler, self.on_lost = handler, on_lost

    async def start(self) -> None: ...

    async def close(self) -> None: ...

    async def subscribe(self, name: str) -> None: ...

    async def unsubscribe(self, name: str) -> None: ...

    async def count(self, key: str, seconds: int) -> int | None:
        self.bus.counters[key] = self.bus.counters.get(key, 0) + 1
        return self.bus.counters[key]

    # Marks and places are Redis's alone (tests/online/test_redis_marks.py): like a Redis that
    # does not answer them, so presence and the spectator limit are counted as without Redis.
    async def beat(self, origin: str, seconds: int) -> bool | None:
        return None

    async def alive(self, origins: object) -> set[str] | None:
        return None

    async def claim(self, key: str, origin: str, limit: int, seconds: int) -> bool | None:
        return None

    async def release(self, key: str, origin: str, places: int) -> bool:
        return True

    async def publish(self, name: str, message: str) -> None:
        self.handler(name, message)
        if self.bus.losing:
            self.lost.add(name)
            return
        for member in self.bus.members:
            if member is not self:
                if self.bus.held is None:
                    member.handler(name, message)
                else:
                    self.bus.held.append((member, name, message))


class Player:
    """A connection to one service, recording what it is sent."""

    def __init__(self, service: OnlineService) -> None:
        self.service = service
        self.received: list[dict[str, Any]] = []

        async def send(text: str) -> None:
            self.received.append(json.loads(text))

        async def close(code: int) -> None: ...

        self.client = Client(send, close, service.config)
        self.writer = asyncio.create_task(self.client.write())

    def events(self) -> list[int]:
        """The numbers of the events received so far, in order."""
        return [message["n"] for message in self.received if message["type"] == "event"]

    async def hello(self, seat: Seat) -> None:
        await self.service.connect(self.client, seat.room, Hello(seat.token))
        await self.wait_for(lambda m: m["type"] == "welcome")

    async def wait_for(self, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first message received so far or within ``WAIT_SECONDS`` that ``wanted`` accepts."""
        async with asyncio.timeout(WAIT_SECONDS):
            while True:
                for message in self.received:
                    if wanted(message):
                        return message
                await asyncio.sleep(0.01)

    async def move(self, move: str, move_id: str) -> None:
        await self.service.act(self.client, Move(move_id, move))

    async def leave(self) -> None:
        await self.service.disconnect(self.client)
        self.client.close(1000)
        await self.writer


@dataclass
class Pair:
    """One room: Black on service ``a``, White on service ``b``."""

    bus: Bus
    a: OnlineService
    b: OnlineService
    room: str
    black: Player
    white: Player
    black_seat: Seat


@asynccontextmanager
async def two_processes(
    tmp_path: Path, time_control: str = "untimed", clock: Callable[[], float] | None = None, **options: Any
) -> AsyncIterator[Pair]:
    """Black's room on ``a`` (with ``time_control``), White on ``b``; both run by ``clock`` if given."""
    database = Database.sqlite(tmp_path / "rooms.sqlite3")
    await migrate(database)
    config = OnlineConfig(**({"rooms_per_hour": 1000} | options))
    bus = Bus()
    a = OnlineService(RoomStore(database), BusPubSub(bus), config)
    b = OnlineService(RoomStore(database), BusPubSub(bus), config)
    if clock is not None:
        a.clock = b.clock = clock
    created = await a.create_room("american", "black", "127.0.0.1", time_control)
    joined = await b.join(created.room)
    black, white = Player(a), Player(b)
    await black.hello(created)
    await white.hello(joined)
    try:
        yield Pair(bus, a, b, created.room, black, white, created)
    finally:
        for player in (black, white):
            await player.leave()
        database.close()


def is_ack(move_id: str) -> Callable[[dict[str, Any]], bool]:
    return lambda message: message["type"] == "ack" and message["id"] == move_id


def shows(version: int) -> Callable[[dict[str, Any]], bool]:
    """A message that brings the client to ``version`` (an event, or a welcome catching it up)."""
    return lambda m: (
        (m["type"] == "event" and m["n"] == version) or (m["type"] == "welcome" and m["version"] == version)
    )


def test_an_event_arriving_while_a_process_reloads_the_room_is_not_lost(tmp_path, run):
    async def scenario() -> None:
        async with two_processes(tmp_path) as pair:
            await pair.black.move("11-15", "b1")
            await pair.white.wait_for(shows(3))
            # Black's process reads the room again (a sync); the read ends before White's move...
            store, read = pair.a.store, asyncio.Event()
            release, original = asyncio.Event(), store.load

            async def slow_load(room_id: str) -> Any:
                stored = await original(room_id)
                read.set()
                await release.wait()
                return stored

            store.load = slow_load  # type: ignore[method-assign]
            syncing = asyncio.create_task(pair.a.resync(pair.black.client, None))
            await read.wait()
            # ... and White's move arrives before the read is used.
            await pair.white.move("22-18", "w1")
            store.load = original  # type: ignore[method-assign]
            release.set()
            await syncing
            # The sync's answer shows White's move: the copy read before it was read again.
            await pair.black.wait_for(shows(4))
            welcomes = [m for m in pair.black.received if m["type"] == "welcome"]
            assert welcomes[-1]["version"] == 4
            # Black's process knows it is Black's turn: the move is played, not refused.
            await pair.black.move("15x22", "b2")
            await pair.black.wait_for(is_ack("b2"))
            assert not [m for m in pair.black.received if m["type"] == "error"]
            await pair.white.wait_for(shows(5))

    run(scenario())


def test_broadcasts_that_could_not_be_sent_are_announced_and_the_opponent_catches_up(tmp_path, run):
    async def scenario() -> None:
        async with two_processes(tmp_path) as pair:
            pair.bus.losing = True  # Redis is down: Black's move is stored and acknowledged...
            await pair.black.move("11-15", "b1")
            await pair.black.wait_for(is_ack("b1"))
            assert not any(shows(3)(m) for m in pair.white.received)
            await pair.bus.recover()  # ... and once it answers, White gets the move with its event
            welcome = await pair.white.wait_for(shows(3))
            assert welcome["type"] == "welcome" and [e["n"] for e in welcome["missed"]] == [3]

    run(scenario())


def test_a_skipped_event_number_makes_the_process_catch_its_clients_up(tmp_path, run):
    async def scenario() -> None:
        async with two_processes(tmp_path) as pair:
            pair.bus.losing = True
            await pair.black.move("11-15", "b1")  # event 3 never reaches White's process
            pair.bus.losing = False
            await pair.a.act(pair.black.client, DrawOffer())  # event 4 does
            welcome = await pair.white.wait_for(shows(4))
            assert welcome["type"] == "welcome" and [e["n"] for e in welcome["missed"]] == [3, 4]

    run(scenario())


def test_a_move_refused_on_a_stale_copy_is_decided_again_on_the_stored_room(tmp_path, run):
    async def scenario() -> None:
        async with two_processes(tmp_path) as pair:
            pair.bus.losing = True
            await pair.black.move("11-15", "b1")  # White's process never hears of it
            await pair.white.move("22-18", "w1")  # yet White's reply is played, not refused
            await pair.white.wait_for(is_ack("w1"))
            assert not [m for m in pair.white.received if m["type"] == "error"]

    run(scenario())

    run(scenario())


def test_the_database_is_checked_now_and_then_so_a_lost_broadcast_is_caught_up(tmp_path, run):
    async def scenario() -> None:
        async with two_processes(tmp_path, version_check_seconds=0.05) as pair:
            checking = asyncio.create_task(pair.b.hub.check_versions())
            try:
                pair.bus.losing = True  # lost for good: no recovery is reported
                await pair.black.move("11-15", "b1")
                await pair.white.wait_for(shows(3))
            finally:
                checking.cancel()

    run(scenario())


def test_a_client_welcomed_ahead_of_the_others_does_not_hide_the_event_from_them(tmp_path, run):
    async def scenario() -> None:
        async with two_processes(tmp_path) as pair:
            twin = Player(pair.b)  # Black's second tab, on White's process
            await twin.hello(pair.black_seat)
            pair.bus.hold()  # Black's move reaches White's process late...
            await pair.black.move("11-15", "b1")
            await pair.b.resync(twin.client, 2)  # ... after the twin, syncing, was shown it
            await twin.wait_for(shows(3))
            pair.bus.release()
            # White, on the same process, still gets the move; the twin does not get it twice.
            await pair.white.wait_for(shows(3))
            await pair.white.move("22-18", "w1")
            await twin.wait_for(shows(4))
            assert twin.events() == [4]
            await twin.leave()

    run(scenario())


def test_the_version_check_catches_up_a_client_even_when_another_here_is_up_to_date(tmp_path, run):
    async def scenario() -> None:
        async with two_processes(tmp_path, version_check_seconds=0.05) as pair:
            twin = Player(pair.b)
            await twin.hello(pair.black_seat)
            pair.bus.losing = True  # Black's move never reaches White's process...
            await pair.black.move("11-15", "b1")
            await pair.b.resync(twin.client, 2)  # ... but the twin, syncing, reads it
            checking = asyncio.create_task(pair.b.hub.check_versions())
            try:
                welcome = await pair.white.wait_for(shows(3))
                assert [e["n"] for e in welcome["missed"]] == [3]
            finally:
                checking.cancel()
            await twin.leave()

    run(scenario())


def test_a_sync_answers_from_the_database_not_from_a_stale_copy(tmp_path, run):
    async def scenario() -> None:
        async with two_processes(tmp_path) as pair:
            pair.bus.losing = True
            await pair.black.move("11-15", "b1")
            await pair.b.resync(pair.white.client, 2)
            welcome = await pair.white.wait_for(shows(3))
            assert [e["n"] for e in welcome["missed"]] == [3]

    run(scenario())


def test_a_reused_move_id_with_another_move_is_refused(tmp_path, run):
    async def scenario() -> None:
        async with two_processes(tmp_path) as pair:
            await pair.black.move("11-15", "b1")
            await pair.white.move("22-18", "w1")
            await pair.white.move("22-18", "w1")  # the same move again: acknowledged, not replayed
            assert (await pair.white.wait_for(lambda m: m.get("duplicate")))["n"] == 4
            with pytest.raises(ProtocolError) as refused:
                await pair.white.move("24-20", "w1")
            assert refused.value.code == "move_id_reused"

    run(scenario())


def test_a_burst_of_a_thousand_joins_leaves_both_players_connected(tmp_path, run):
    async def scenario() -> None:
        async with two_processes(tmp_path, spectators_per_room=2000) as pair:
            crowd = [Player(pair.a) for _ in range(1000)]
            for spectator in crowd:
                await pair.a.connect(spectator.client, pair.room, Hello())
            # Presence is announced for the burst as a whole, never queued message by message.
            await pair.black.wait_for(lambda m: m["type"] == "presence" and m["spectators"] == 1000)
            await pair.white.wait_for(lambda m: m["type"] == "presence" and m["spectators"] == 1000)
            assert not pair.black.client.closed and not pair.white.client.closed
            await pair.black.move("11-15", "b1")
            await pair.white.wait_for(shows(3))
            for spectator in crowd:
                await spectator.leave()

    run(scenario())


def test_spectators_past_the_room_limit_are_refused_and_players_still_get_in(tmp_path, run):
    async def scenario() -> None:
        async with two_processes(tmp_path, spectators_per_room=1) as pair:
            first, second = Player(pair.a), Player(pair.a)
            await pair.a.connect(first.client, pair.room, Hello())
            with pytest.raises(ProtocolError) as refused:
                await pair.a.connect(second.client, pair.room, Hello())
            assert refused.value.code == "room_crowded"
            await first.leave()

    run(scenario())


def test_the_rooms_per_hour_limit_counts_every_process_together(tmp_path, run):
    async def scenario() -> None:
        async with two_processes(tmp_path, rooms_per_hour=3) as pair:  # the pair's room is the first
            for service in (pair.a, pair.b):
                await service.create_room("american", "black", "127.0.0.1")
            with pytest.raises(ProtocolError) as refused:
                await pair.b.create_room("american", "black", "127.0.0.1")
            assert refused.value.code == "too_many_rooms"

    run(scenario())


def test_a_seat_on_two_processes_shares_one_message_rate(tmp_path, run):
    async def scenario() -> None:
        async with two_processes(tmp_path, messages_per_second=10, message_burst=20) as pair:
            for service in (pair.a, pair.b):
                service.clock = lambda: 1000.0  # one counting window for the whole test
            second_tab = Player(pair.b)  # Black's seat, now also on White's process
            await second_tab.hello(pair.black_seat)
            await until(lambda: pair.a.hub.seat_elsewhere(pair.room, 1), "the seat on the other process announced")
            allowed = [await pair.a.allow_message(pair.black.client) for _ in range(15)]
            allowed += [await pair.b.allow_message(second_tab.client) for _ in range(15)]
            # Each process alone would allow its 15 (a burst of 20); together the seat has 20 per window.
            assert allowed.count(True) == 20 and allowed[:15] == [True] * 15
            # White, alone on one process, is not counted in Redis and keeps its own rate.
            assert all([await pair.b.allow_message(pair.white.client) for _ in range(20)])
            assert not any(key.endswith(":2:500") for key in pair.bus.counters)
            await second_tab.leave()

    run(scenario())


def test_the_spectator_limit_counts_the_spectators_of_every_process(tmp_path, run):
    async def scenario() -> None:
        async with two_processes(tmp_path, spectators_per_room=1) as pair:
            watcher = Player(pair.a)
            await pair.a.connect(watcher.client, pair.room, Hello())
            await until(lambda: pair.b.hub.spectators(pair.room) == 1, "the spectator on the other process announced")
            with pytest.raises(ProtocolError) as refused:
                await pair.b.connect(Player(pair.b).client, pair.room, Hello())
            assert refused.value.code == "room_crowded"
            await watcher.leave()
            await until(lambda: pair.b.hub.spectators(pair.room) == 0, "the spectator's leaving announced")
            second = Player(pair.b)
            await pair.b.connect(second.client, pair.room, Hello())
            await second.leave()

    run(scenario())

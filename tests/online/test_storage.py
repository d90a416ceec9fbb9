"""Storage behaves the same on SQLite and PostgreSQL: migrations, rooms, event logs, version checks."""

from __future__ import annotations

import asyncio

import pytest
from async_support import run

from kingme.server.online import OnlineConfig
from kingme.server.online.client import RoomClient, http_json
from kingme.server.storage import MIGRATIONS, Database, RoomStore, StoredEvent, StoredRoom, migrate, schema_version


def room(room_id: str = "R" * 22) -> StoredRoom:
    return StoredRoom(room_id, "american", 1000, 1000, 1, "hash-1", None, {"state": 1})


@pytest.fixture
def database(settings):
    database = Database.from_settings(settings)
    run(migrate(database))
    yield database
    database.close()


def test_migrations_bring_an_empty_database_to_the_latest_schema_once(settings, run):
    database = Database.from_settings(settings)
    try:
        assert database.run_sync(schema_version) == 0
        assert run(migrate(database, target=1)) == 1
        assert database.run_sync(schema_version) == 1
        assert run(migrate(database)) == len(MIGRATIONS)
        assert run(migrate(database)) == len(MIGRATIONS)  # nothing left to do the second time
        assert database.run_sync(schema_version) == len(MIGRATIONS)
    finally:
        database.close()


def test_a_room_and_its_events_are_stored_and_loaded(database, run):
    store = RoomStore(database)

    async def scenario():
        await store.create(room(), StoredEvent(1, "created", {"sides": {"black": 1}}))
        assert await store.append(
            "R" * 22, 1, [StoredEvent(2, "move", {"move": "11-15"}, "m1")], {"state": 2}, 1005, moved=True
        )
        loaded = await store.load("R" * 22)
        assert (loaded.version, loaded.state, loaded.last_move_at, loaded.move_ids) == (
            2,
            {"state": 2},
            1005,
            {"m1": 2},
        )
        assert [e.kind for e in await store.events_since("R" * 22, 0, 10)] == ["created", "move"]
        assert [e.number for e in await store.events_since("R" * 22, 1, 10)] == [2]
        assert await store.load("S" * 22) is None

    run(scenario())


def test_a_write_from_a_stale_version_stores_nothing(database, run):
    store = RoomStore(database)

    async def scenario():
        await store.create(room(), StoredEvent(1, "created", {}))
        assert await store.append("R" * 22, 1, [StoredEvent(2, "move", {"n": "first"}, "a")], {"v": 2}, 1)
        assert not await store.append("R" * 22, 1, [StoredEvent(2, "move", {"n": "second"}, "b")], {"v": "x"}, 1)
        loaded = await store.load("R" * 22)
        assert loaded.state == {"v": 2} and loaded.move_ids == {"a": 2}

    run(scenario())


def test_the_rooms_whose_clock_has_run_out_are_found_earliest_first_and_not_after_the_game(database, run):
    store = RoomStore(database)

    async def scenario():
        for name, flag_at in (("A", 5_000), ("B", 3_000), ("C", 9_000), ("D", None)):
            await store.create(room(name * 22), StoredEvent(1, "created", {}))
            await store.append(name * 22, 1, [StoredEvent(2, "joined", {})], {}, 1, flag_at=flag_at)
        assert await store.flagged(5_000) == ["B" * 22, "A" * 22]
        assert await store.append("B" * 22, 2, [StoredEvent(3, "time_out", {})], {}, 1)  # decided: no flag
        assert await store.flagged(10_000) == ["A" * 22, "C" * 22]
        assert [e.at for e in await store.events_since("A" * 22, 0, 5)] == [1000, 1]

    run(scenario())


def test_two_writers_racing_on_one_room_exactly_one_wins(settings, database, run):
    store = RoomStore(database)
    other = Database.from_settings(settings)  # a second process's connection

    async def scenario():
        await store.create(room(), StoredEvent(1, "created", {}))
        results = await asyncio.gather(
            *(
                RoomStore(db).append("R" * 22, 1, [StoredEvent(2, "move", {"by": name}, name)], {"by": name}, 1)
                for db, name in ((database, "one"), (other, "two"))
            )
        )
        assert sorted(results) == [False, True]
        events = await store.events_since("R" * 22, 1, 10)
        assert len(events) == 1 and (await store.load("R" * 22)).state == events[0].data

    try:
        run(scenario())
    finally:
        other.close()


def test_a_move_id_is_stored_at_most_once_per_room(database, run):
    store = RoomStore(database)

    async def scenario():
        await store.create(room(), StoredEvent(1, "created", {}))
        await store.append("R" * 22, 1, [StoredEvent(2, "move", {}, "same")], {}, 1)
        with pytest.raises(Exception):  # noqa: B017 - each driver names its own IntegrityError
            await store.append("R" * 22, 2, [StoredEvent(3, "move", {}, "same")], {}, 1)
        assert (await store.load("R" * 22)).version == 2

    run(scenario())


def test_a_room_outlives_a_server_restart(settings, run, make_server):
    async def first_server() -> tuple[str, str]:
        created = await asyncio.to_thread(http_json, "POST", f"{server.http}/api/rooms", {"side": "black"})
        joined = await asyncio.to_thread(http_json, "POST", f"{server.http}/api/rooms/{created[1]['room']}/join")
        black = await RoomClient.open(server.ws, created[1]["room"], created[1]["token"])
        await black.send({"type": "move", "id": "b1", "move": "11-15"})
        await black.receive("ack")
        return created[1]["room"], joined[1]["token"]

    with make_server(settings, OnlineConfig()) as server:
        room_id, white_token = run(first_server())

    async def second_server() -> None:
        white = await RoomClient.open(server.ws, room_id, white_token, last_event=2)
        assert white.color == "white" and [e["kind"] for e in white.welcome["missed"]] == ["move"]
        assert white.state["game"]["record"]["moves"] == ["11-15"]

    with make_server(settings, OnlineConfig()) as server:
        run(second_server())


def test_rooms_idle_past_the_cutoff_are_purged_with_their_events(database, run):
    store = RoomStore(database)

    async def scenario():
        for room_id, last_move in (("A" * 22, 100), ("B" * 22, 5000)):
            stored = StoredRoom(room_id, "american", 100, last_move, 1, "hash", None, {})
            await store.create(stored, StoredEvent(1, "created", {}))
        assert await store.purge(1000) == 1
        assert await store.load("A" * 22) is None and await store.events_since("A" * 22, 0, 10) == []
        assert (await store.load("B" * 22)).version == 1

    run(scenario())

"""The online routes answer through the same edge as every other route: a refusal of the room
protocol gets its HTTP status, storage that fails gets 503 and anything else 500 — always the
one JSON shape, never a traceback. Storage errors of either driver reach the edge as one type."""

from __future__ import annotations

import sqlite3

import pytest

from kingme.server.edge import BadRequest
from kingme.server.online.client import http_json
from kingme.server.online.wire import ProtocolError
from kingme.server.storage import Database, StorageError

ROOM = "r" * 22


def test_a_protocol_refusal_is_the_edges_one_error_type_with_its_http_status():
    full, bad = ProtocolError("room_full", "both seats are taken"), ProtocolError("bad_message", "no type")
    assert isinstance(full, BadRequest)
    assert (full.status, full.code, full.message) == (409, "room_full", "both seats are taken")
    assert (bad.status, bad.code) == (400, "bad_message")


def test_an_unknown_room_is_404_and_a_full_one_409_in_the_one_shape(server):
    status, body = http_json("GET", f"{server.http}/api/rooms/{ROOM}")
    assert status == 404 and body["code"] == "unknown_room" and set(body) == {"error", "code"}
    _, created = http_json("POST", f"{server.http}/api/rooms", {"side": "black"})
    http_json("POST", f"{server.http}/api/rooms/{created['room']}/join")
    status, body = http_json("POST", f"{server.http}/api/rooms/{created['room']}/join")
    assert (status, body["code"]) == (409, "room_full")


def test_storage_that_fails_is_answered_503_and_nothing_is_created(server, monkeypatch):
    async def away(*_args: object) -> None:
        raise StorageError("cannot reach the postgresql database: connection refused")

    monkeypatch.setattr(server.service.rooms.store, "create", away)
    monkeypatch.setattr(server.service.rooms.store, "load", away)
    status, body = http_json("POST", f"{server.http}/api/rooms", {"side": "black"})
    assert (status, body["code"]) == (503, "unavailable") and "try again" in body["error"]
    status, body = http_json("GET", f"{server.http}/api/rooms/{ROOM}")
    assert (status, body["code"]) == (503, "unavailable")


def test_an_unexpected_failure_is_answered_500_without_a_traceback(server, monkeypatch):
    async def broken(*_args: object) -> None:
        raise RuntimeError("a bug with a secret inside")

    monkeypatch.setattr(server.service.rooms.store, "load", broken)
    status, body = http_json("GET", f"{server.http}/api/rooms/{ROOM}")
    assert (status, body["code"]) == (500, "internal_error")
    assert "secret" not in body["error"] and "Traceback" not in body["error"]


def test_a_database_error_of_the_driver_becomes_a_storage_error_with_its_cause(tmp_path, run):
    database = Database.sqlite(tmp_path / "rooms.sqlite3")

    def failing(connection: object) -> None:
        raise sqlite3.OperationalError("database is locked")

    try:
        with pytest.raises(StorageError, match="the sqlite database failed: database is locked") as failed:
            run(database.run(failing))
        assert isinstance(failed.value.__cause__, sqlite3.OperationalError)
        assert run(database.run(lambda connection: connection.execute("SELECT 1").fetchone())) == (1,)
    finally:
        database.close()


def test_a_database_that_cannot_be_reached_is_a_storage_error(run):
    pytest.importorskip("psycopg")
    database = Database.postgresql("postgresql://nobody@127.0.0.1:9/none?connect_timeout=2")
    try:
        with pytest.raises(StorageError, match="cannot reach the postgresql database"):
            run(database.run(lambda connection: None))
    finally:
        database.close()

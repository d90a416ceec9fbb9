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


@pytest.mark.parametrize(
    ("failure", "status", "code"),
    [
        (StorageError("cannot reach the postgresql database: connection refused (secret)"), 503, "unavailable"),
        (RuntimeError("a bug with a secret inside"), 500, "internal_error"),
    ],
    ids=["storage away", "a bug"],
)
def test_a_failure_is_answered_in_the_one_shape_without_its_details(server, monkeypatch, failure, status, code):
    async def failing(*_args: object) -> None:
        raise failure

    for call in ("create", "load"):
        monkeypatch.setattr(server.service.rooms.store, call, failing)
    for method, path, body in (("POST", "/api/rooms", {"side": "black"}), ("GET", f"/api/rooms/{ROOM}", None)):
        answered, refusal = http_json(method, f"{server.http}{path}", body)
        assert (answered, refusal["code"], set(refusal)) == (status, code, {"error", "code"})
        assert "try again" in refusal["error"] and "secret" not in refusal["error"]


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

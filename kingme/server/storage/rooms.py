"""Rooms and their numbered event logs in the database.

A room row holds the room's current state (JSON) and ``version``, the number of its last event.
Every change appends events and rewrites the state in one transaction that only succeeds if
the version is still the one the writer read: of two processes racing on one room exactly one
wins, and the loser learns it (``append`` returns False) and reloads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from kingme.server.storage.database import Connection, Database

#: Rooms whose versions are read in one query.
VERSIONS_PER_QUERY = 500
#: Rooms whose flag has fallen, read in one query (the next query reads the rest).
FLAGS_PER_QUERY = 100


@dataclass(frozen=True)
class StoredEvent:
    """One entry of a room's event log."""

    number: int
    kind: str
    data: dict[str, Any]
    move_id: str | None = None
    #: When it was stored (Unix seconds), as read back from the log (0 before it is stored).
    at: int = 0


@dataclass
class StoredRoom:
    """A room as stored: its tokens are hashes, never the tokens themselves."""

    id: str
    variant: str
    created_at: int
    last_move_at: int
    version: int
    player1_token: str
    player2_token: str | None
    state: dict[str, Any]
    move_ids: dict[str, int] = field(default_factory=dict)


def _create(connection: Connection, room: StoredRoom, event: StoredEvent) -> None:
    connection.begin()
    try:
        connection.execute(
            "INSERT INTO rooms (id, variant, created_at, last_move_at, version, player1_token, player2_token, state)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                room.id,
                room.variant,
                room.created_at,
                room.last_move_at,
                room.version,
                room.player1_token,
                room.player2_token,
                json.dumps(room.state),
            ),
        )
        _insert_events(connection, room.id, [event], room.created_at)
        connection.commit()
    except BaseException:
        connection.rollback()
        raise


def _insert_events(connection: Connection, room_id: str, events: list[StoredEvent], now: int) -> None:
    for event in events:
        connection.execute(
            "INSERT INTO room_events (room_id, number, kind, move_id, data, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (room_id, event.number, event.kind, event.move_id, json.dumps(event.data), now),
        )


def _load(connection: Connection, room_id: str) -> StoredRoom | None:
    row = connection.execute(
        "SELECT id, variant, created_at, last_move_at, version, player1_token, player2_token, state"
        " FROM rooms WHERE id = ?",
        (room_id,),
    ).fetchone()
    if row is None:
        return None
    moves = connection.execute(
        "SELECT move_id, number FROM room_events WHERE room_id = ? AND move_id IS NOT NULL", (room_id,)
    ).fetchall()
    _, variant, created_at, last_move_at, version, player1_token, player2_token, state = row
    return StoredRoom(
        room_id,
        variant,
        created_at,
        last_move_at,
        version,
        player1_token,
        player2_token,
        json.loads(state),
        {move_id: number for move_id, number in moves},
    )


def _append(
    connection: Connection,
    room_id: str,
    expected_version: int,
    events: list[StoredEvent],
    state: dict[str, Any],
    now: int,
    moved: bool,
    player2_token: str | None,
    flag_at: int | None,
) -> bool:
    connection.begin()
    try:
        assignments = "version = ?, state = ?, flag_at = ?" + (", last_move_at = ?" if moved else "")
        params: list[Any] = [events[-1].number, json.dumps(state), flag_at] + ([now] if moved else [])
        if player2_token is not None:
            assignments += ", player2_token = ?"
            params.append(player2_token)
        cursor = connection.execute(
            f"UPDATE rooms SET {assignments} WHERE id = ? AND version = ?", (*params, room_id, expected_version)
        )
        if cursor.rowcount != 1:
            connection.rollback()
            return False
        _insert_events(connection, room_id, events, now)
        connection.commit()
        return True
    except BaseException:
        connection.rollback()
        raise


def _events_since(connection: Connection, room_id: str, after: int, limit: int) -> list[StoredEvent]:
    rows = connection.execute(
        "SELECT number, kind, data, move_id, created_at FROM room_events"
        " WHERE room_id = ? AND number > ? ORDER BY number LIMIT ?",
        (room_id, after, limit),
    ).fetchall()
    return [StoredEvent(number, kind, json.loads(data), move_id, at) for number, kind, data, move_id, at in rows]


def _versions(connection: Connection, room_ids: list[str]) -> dict[str, int]:
    versions: dict[str, int] = {}
    for start in range(0, len(room_ids), VERSIONS_PER_QUERY):
        chunk = room_ids[start : start + VERSIONS_PER_QUERY]
        marks = ", ".join("?" * len(chunk))
        rows = connection.execute(f"SELECT id, version FROM rooms WHERE id IN ({marks})", chunk).fetchall()
        versions.update({room_id: version for room_id, version in rows})
    return versions


def _flagged(connection: Connection, now_ms: int) -> list[str]:
    rows = connection.execute(
        "SELECT id FROM rooms WHERE flag_at <= ? ORDER BY flag_at LIMIT ?", (now_ms, FLAGS_PER_QUERY)
    ).fetchall()
    return [room_id for (room_id,) in rows]


def _purge(connection: Connection, cutoff: int) -> int:
    connection.begin()
    try:
        connection.execute(
            "DELETE FROM room_events WHERE room_id IN (SELECT id FROM rooms WHERE last_move_at < ?)", (cutoff,)
        )
        deleted = int(connection.execute("DELETE FROM rooms WHERE last_move_at < ?", (cutoff,)).rowcount)
        connection.commit()
        return deleted
    except BaseException:
        connection.rollback()
        raise


class RoomStore:
    """Async access to rooms and event logs; every call is one transaction in a worker thread."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def create(self, room: StoredRoom, event: StoredEvent) -> None:
        await self.database.run(_create, room, event)

    async def load(self, room_id: str) -> StoredRoom | None:
        return await self.database.run(_load, room_id)

    async def append(
        self,
        room_id: str,
        expected_version: int,
        events: list[StoredEvent],
        state: dict[str, Any],
        now: int,
        *,
        moved: bool = False,
        player2_token: str | None = None,
        flag_at: int | None = None,
    ) -> bool:
        """Store ``events`` (numbered from ``expected_version + 1``), the new state and when the
        running clock runs out (``flag_at``, Unix milliseconds; None: no clock runs), or nothing
        and False when another writer changed the room first."""
        return await self.database.run(
            _append, room_id, expected_version, events, state, now, moved, player2_token, flag_at
        )

    async def flagged(self, now_ms: int) -> list[str]:
        """Rooms whose running clock has run out by ``now_ms``, the earliest first (a batch)."""
        return await self.database.run(_flagged, now_ms)

    async def purge(self, cutoff: int) -> int:
        """Delete the rooms (and their events) whose last move was before ``cutoff``; returns how many."""
        return await self.database.run(_purge, cutoff)

    async def events_since(self, room_id: str, after: int, limit: int) -> list[StoredEvent]:
        """Up to ``limit`` events numbered above ``after``, oldest first."""
        return await self.database.run(_events_since, room_id, after, limit)

    async def versions(self, room_ids: list[str]) -> dict[str, int]:
        """The stored version of each of these rooms (rooms that do not exist are left out)."""
        if not room_ids:
            return {}
        return await self.database.run(_versions, room_ids)

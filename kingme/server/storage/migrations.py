"""The database schema as numbered migration steps, applied once each, in order.

``schema_version`` holds the number of the last step applied. Steps are only ever appended:
a released step is never edited, so every database reaches the same schema by the same path.
Several processes may start at once; the first takes the write lock and the others then find
nothing left to do.
"""

from __future__ import annotations

from kingme.server.storage.database import Connection, Database

#: Each step is a list of statements both SQLite and PostgreSQL accept.
MIGRATIONS: list[list[str]] = [
    # 1: rooms and their event logs.
    [
        """CREATE TABLE rooms (
            id TEXT PRIMARY KEY,
            variant TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            last_move_at BIGINT NOT NULL,
            version INTEGER NOT NULL,
            player1_token TEXT NOT NULL,
            player2_token TEXT,
            state TEXT NOT NULL
        )""",
        """CREATE TABLE room_events (
            room_id TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
            number INTEGER NOT NULL,
            kind TEXT NOT NULL,
            move_id TEXT,
            data TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            PRIMARY KEY (room_id, number)
        )""",
        "CREATE UNIQUE INDEX room_events_move_id ON room_events (room_id, move_id)",
    ],
    # 2: finding rooms by age, for expiry.
    ["CREATE INDEX rooms_last_move_at ON rooms (last_move_at)"],
    # 3: clocks (issue 41). When the running clock of a timed room runs out (Unix milliseconds;
    # NULL while none runs), so any process finds the games lost on time, those whose players
    # never came back and those whose time ran out while the server was down included. The
    # remaining times themselves are in each event's data and in the room's state.
    [
        "ALTER TABLE rooms ADD COLUMN flag_at BIGINT",
        "CREATE INDEX rooms_flag_at ON rooms (flag_at)",
    ],
]

#: Serializes migrations of several PostgreSQL processes (an arbitrary fixed lock number).
_ADVISORY_LOCK = 5_161_990


def schema_version(connection: Connection) -> int:
    """The number of the last step applied (0 for an empty database)."""
    connection.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    row = connection.execute("SELECT MAX(version) FROM schema_version").fetchone()
    return int(row[0] or 0)


def _migrate(connection: Connection, target: int) -> int:
    connection.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    connection.begin()
    try:
        if connection.dialect == "postgresql":
            connection.execute(f"SELECT pg_advisory_xact_lock({_ADVISORY_LOCK})")
        current = schema_version(connection)
        if current > len(MIGRATIONS):
            raise RuntimeError(f"the database has schema version {current}, newer than this kingme ({len(MIGRATIONS)})")
        for number in range(current + 1, target + 1):
            for statement in MIGRATIONS[number - 1]:
                connection.execute(statement)
            connection.execute("INSERT INTO schema_version (version) VALUES (?)", (number,))
        connection.commit()
    except BaseException:
        connection.rollback()
        raise
    return max(current, target)


async def migrate(database: Database, target: int | None = None) -> int:
    """Apply the missing steps up to ``target`` (all by default); returns the schema version."""
    return await database.run(_migrate, len(MIGRATIONS) if target is None else target)

"""Storage: rooms and event logs in SQLite (default) or PostgreSQL (``KINGME_DATABASE_URL``).

One schema, one code path (``database.py`` adapts placeholders), numbered migrations
(``migrations.py``), and the room store (``rooms.py``).
"""

from kingme.server.storage.database import Database, StorageError
from kingme.server.storage.migrations import MIGRATIONS, migrate, schema_version
from kingme.server.storage.rooms import RoomStore, StoredEvent, StoredRoom

__all__ = [
    "MIGRATIONS",
    "Database",
    "RoomStore",
    "StorageError",
    "StoredEvent",
    "StoredRoom",
    "migrate",
    "schema_version",
]

"""One database interface over SQLite and PostgreSQL, so storage has one code path.

Storage code is written once as plain synchronous functions over a ``Connection`` and runs in
worker threads, off the event loop. SQL is written with ``?`` placeholders in the subset both
databases accept; the only dialect difference kingme needs — the placeholder style — is
adapted here. SQLite gets a single worker thread (it has one writer anyway); PostgreSQL gets a
few, each holding its own connection.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

#: Worker threads (and connections) for PostgreSQL.
POSTGRES_WORKERS = 4

log = logging.getLogger("kingme.storage")


class StorageError(Exception):
    """The database failed or could not be reached; the driver's own error is the cause. One
    type for both drivers, so the HTTP edge answers it with 503 without knowing either."""


class Connection:
    """A DB-API connection seen through ``?`` placeholders, whatever the driver wants."""

    def __init__(self, raw: Any, dialect: str) -> None:
        self.raw = raw
        self.dialect = dialect

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s") if self.dialect == "postgresql" else sql

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """Run one statement and return the cursor (``rowcount``, ``fetchone``, ``fetchall``)."""
        cursor = self.raw.cursor()
        cursor.execute(self._sql(sql), tuple(params))
        return cursor

    def begin(self) -> None:
        """Start a write transaction; SQLite takes its write lock now, not at the first write."""
        self.execute("BEGIN IMMEDIATE" if self.dialect == "sqlite" else "BEGIN")

    def commit(self) -> None:
        self.execute("COMMIT")

    def rollback(self) -> None:
        self.execute("ROLLBACK")


class Database:
    """Runs storage functions ``fn(connection, *args)`` in worker threads, one transaction each."""

    def __init__(
        self, connect: Callable[[], Any], dialect: str, workers: int, errors: tuple[type[Exception], ...]
    ) -> None:
        self.dialect = dialect
        self._connect = connect
        #: The driver's errors, each raised again as ``StorageError``.
        self._errors = errors
        self._local = threading.local()
        self._connections: list[Any] = []
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=f"kingme-{dialect}")

    @classmethod
    def sqlite(cls, path: Path) -> Database:
        """A SQLite database in ``path`` (created with its directory when missing)."""
        path.parent.mkdir(parents=True, exist_ok=True)

        def connect() -> sqlite3.Connection:
            raw = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=30)
            # WAL + NORMAL: a commit survives the process dying (not a power cut), and readers
            # in other processes never block the writer.
            raw.execute("PRAGMA journal_mode=WAL")
            raw.execute("PRAGMA synchronous=NORMAL")
            raw.execute("PRAGMA foreign_keys=ON")
            return raw

        return cls(connect, "sqlite", workers=1, errors=(sqlite3.Error,))

    @classmethod
    def postgresql(cls, url: str) -> Database:
        """A PostgreSQL database at ``url`` (``postgresql://…``; ``?options=-csearch_path%3D…`` works)."""
        import psycopg

        def connect() -> Any:
            return psycopg.connect(url, autocommit=True)

        return cls(connect, "postgresql", workers=POSTGRES_WORKERS, errors=(psycopg.Error,))

    @classmethod
    def from_settings(cls, settings: Any) -> Database:
        """PostgreSQL when the settings name a database URL, else SQLite in the data directory."""
        if settings.database_url:
            if not settings.database_url.startswith(("postgresql://", "postgres://")):
                raise ValueError("KINGME_DATABASE_URL must be a postgresql:// URL")
            return cls.postgresql(settings.database_url)
        return cls.sqlite(settings.sqlite_path)

    def _connection(self) -> Connection:
        connection = getattr(self._local, "connection", None)
        if connection is None:
            raw = self._connect()
            with self._lock:
                self._connections.append(raw)
            connection = self._local.connection = Connection(raw, self.dialect)
        return connection

    def _call(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        try:
            connection = self._connection()
        except self._errors as error:
            raise StorageError(f"cannot reach the {self.dialect} database: {error}") from error
        try:
            return fn(connection, *args)
        except BaseException as error:
            self._undo(connection)
            if isinstance(error, self._errors):
                raise StorageError(f"the {self.dialect} database failed: {error}") from error
            raise

    def _undo(self, connection: Connection) -> None:
        """Roll back after a failure (the connection may be gone: then the next call reconnects)."""
        try:
            connection.rollback()
        except Exception as error:
            log.debug("rolling back failed too: %r", error)
        if self.dialect == "postgresql" and connection.raw.closed:
            self._local.connection = None

    def run_sync(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(connection, *args)`` in a worker thread and wait for it (for tools and tests)."""
        return self._executor.submit(self._call, fn, args).result()

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(connection, *args)`` in a worker thread without blocking the event loop."""
        return await asyncio.get_running_loop().run_in_executor(self._executor, self._call, fn, args)

    def close(self) -> None:
        self._executor.shutdown(wait=True)
        with self._lock:
            for raw in self._connections:
                try:
                    raw.close()
                except Exception as error:  # already gone: nothing more to close
                    log.debug("closing a %s connection failed: %r", self.dialect, error)
            self._connections.clear()

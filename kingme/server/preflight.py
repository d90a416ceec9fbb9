"""Checks ``kingme serve`` makes before it starts, so a mistake costs one line, not a traceback.

Each failure raises ``ValueError`` (a setting is wrong) or ``OSError`` (the machine refuses)
with a message naming the problem and what to do; ``kingme`` prints it as one line and exits
with status 2. Database URLs are never printed whole: they may hold a password.
"""

from __future__ import annotations

import errno
import socket
import tempfile
from urllib.parse import urlsplit

from kingme.server.connection_limits import ConnectionLimits
from kingme.server.edge import EdgeSettings
from kingme.server.pubsub import RedisOptions
from kingme.server.settings import Settings

#: Seconds to wait for the database to answer at start-up.
CONNECT_SECONDS = 5


def check_settings(settings: Settings) -> None:
    """Every ``KINGME_*`` variable is valid, the data directory writable, the database reachable."""
    ConnectionLimits.from_env()
    EdgeSettings.from_env()
    RedisOptions.from_env()
    check_data_dir(settings)
    if settings.database_url:
        check_database(settings.database_url)


def check_data_dir(settings: Settings) -> None:
    """The data directory exists (it is created) and a file can be written in it."""
    directory = settings.data_dir
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".kingme-check-"):
            pass
    except OSError as error:
        raise OSError(
            f"the data directory {directory} is not writable ({error.strerror or error}); "
            "set KINGME_DATA_DIR to a directory kingme may write to"
        ) from None


def check_database(url: str) -> None:
    """``url`` names PostgreSQL, and PostgreSQL answers there."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres"):
        kind = parts.scheme or "no scheme"
        raise ValueError(f"KINGME_DATABASE_URL must be a postgresql:// URL, not {kind!r}; leave it unset for SQLite")
    import psycopg

    where = f"{parts.hostname or 'localhost'}:{parts.port or 5432}"
    try:
        with psycopg.connect(url, connect_timeout=CONNECT_SECONDS):
            pass
    except psycopg.Error as error:
        reason = str(error).strip().splitlines()[-1] if str(error).strip() else type(error).__name__
        raise OSError(f"cannot reach the database at {where} ({reason}); check KINGME_DATABASE_URL") from None


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port``, or ``OSError`` saying the port is taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise OSError(f"port {port} on {host} is already in use; stop the other server or pick --port") from None
        raise OSError(f"cannot listen on {host}:{port} ({error.strerror or error})") from None
    return sock

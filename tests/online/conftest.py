"""Fixtures for online play: databases (SQLite and PostgreSQL), servers, and players."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import async_support
import pytest
import uvicorn
from waiting import WAIT_SECONDS, wait_until

from kingme.server.connection_limits import ConnectionLimits, uvicorn_options
from kingme.server.online import OnlineConfig, OnlineServer
from kingme.server.online.asgi import app_for
from kingme.server.online.client import RoomClient, http_json
from kingme.server.online.service import OnlineService
from kingme.server.settings import Settings

POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"
REDIS = "redis://127.0.0.1:6379/0"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def postgres_schema() -> Iterator[str]:
    """A PostgreSQL URL whose tables live in a fresh schema, dropped afterwards (xdist-safe)."""
    psycopg = pytest.importorskip("psycopg")
    name = f"kingme_test_{secrets.token_hex(6)}"
    try:
        admin = psycopg.connect(POSTGRES, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as error:
        pytest.skip(f"PostgreSQL is not reachable at {POSTGRES}: {error}")
    with admin:
        admin.execute(f"CREATE SCHEMA {name}")
        try:
            yield f"{POSTGRES}?options=-csearch_path%3D{name}"
        finally:
            admin.execute(f"DROP SCHEMA {name} CASCADE")


@pytest.fixture(params=["sqlite", "postgresql"])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Settings]:
    """Server settings on each database kingme supports."""
    if request.param == "sqlite":
        yield Settings(data_dir=tmp_path)
    else:
        with postgres_schema() as url:
            yield Settings(data_dir=tmp_path, database_url=url)


@pytest.fixture
def find_port() -> Any:
    """Finds a free TCP port on loopback."""
    return free_port


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A PostgreSQL URL in a schema of this test's own."""
    with postgres_schema() as url:
        yield url


@pytest.fixture
def redis_url() -> str:
    redis = pytest.importorskip("redis")
    try:
        redis.Redis.from_url(REDIS, socket_connect_timeout=3).ping()
    except redis.RedisError as error:
        pytest.skip(f"Redis is not reachable at {REDIS}: {error}")
    return REDIS


class ThreadedServer:
    """The online routes (or, given ``app``, a whole app) served by uvicorn in a thread of the tests."""

    def __init__(
        self, settings: Settings, config: OnlineConfig, app: Any = None, limits: ConnectionLimits | None = None
    ) -> None:
        self.port = free_port()
        self.settings = settings
        self.online = OnlineServer(settings, config)
        app = app or app_for(self.online)
        options = uvicorn_options(limits or ConnectionLimits())
        self.server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", **options)
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def service(self) -> OnlineService:
        assert self.online.service is not None
        return self.online.service

    @contextlib.contextmanager
    def days_later(self, days: float) -> Iterator[None]:
        """The server's clock runs ``days`` ahead inside this block."""
        self.service.clock = lambda: time.time() + days * 86400
        try:
            yield
        finally:
            self.service.clock = time.time

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def __enter__(self) -> ThreadedServer:
        self.thread.start()
        wait_until(lambda: self.server.started or not self.thread.is_alive(), "the test server started or stopped")
        if not self.server.started:
            raise RuntimeError("the test server stopped at start-up")
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


#: Limits for tests: rooms and messages as many as a test needs; a hello allowed as long as a
#: test waits for anything (``waiting.WAIT_SECONDS``), so that a client slowed down between its
#: connection and its hello is never turned away (the hello's timeout has a test of its own).
TEST_CONFIG = OnlineConfig(rooms_per_hour=10_000, messages_per_second=100, hello_timeout=WAIT_SECONDS, max_missed=4)


@pytest.fixture
def make_server() -> Any:
    """Starts a server of one's own: ``with make_server(settings, config) as server: ...``."""
    return ThreadedServer


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadedServer]:
    """A SQLite-backed server shared by a module's tests (each test makes its own rooms)."""
    with ThreadedServer(Settings(data_dir=tmp_path_factory.mktemp("online")), TEST_CONFIG) as running:
        yield running


@dataclass
class Table:
    """A room with both seats taken: ``black`` and ``white`` are connected players."""

    room: str
    black: RoomClient
    white: RoomClient
    tokens: dict[str, str]


class Lobby:
    """Creating, joining and opening rooms on one server, as the browser does."""

    def __init__(self, server: ThreadedServer) -> None:
        self.server = server

    async def create(self, **body: Any) -> dict[str, Any]:
        status, answer = await asyncio.to_thread(http_json, "POST", f"{self.server.http}/api/rooms", body)
        assert status == 201, answer
        return answer

    async def join(self, room: str) -> dict[str, Any]:
        status, answer = await asyncio.to_thread(http_json, "POST", f"{self.server.http}/api/rooms/{room}/join")
        assert status == 201, answer
        return answer

    async def connect(self, room: str, token: str | None = None, **options: Any) -> RoomClient:
        return await RoomClient.open(self.server.ws, room, token, **options)

    async def table(self, variant: str = "american") -> Table:
        """Create a room as Black, join it, and connect both players."""
        created = await self.create(variant=variant, side="black")
        joined = await self.join(created["room"])
        black = await self.connect(created["room"], created["token"])
        white = await self.connect(created["room"], joined["token"])
        return Table(created["room"], black, white, {"black": created["token"], "white": joined["token"]})


@pytest.fixture
def lobby(server: ThreadedServer) -> Lobby:
    return Lobby(server)


@pytest.fixture
def run() -> Any:
    """Runs one async scenario to the end (the suite has no asyncio plugin)."""
    return async_support.run

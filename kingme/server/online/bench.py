"""``kingme bench online``: many concurrent games over WebSockets on loopback, timed.

Each game is a room with two connected players. The side to move waits its thinking time,
sends a random legal move and measures the round trip until the server's acknowledgement
(stored and broadcast by then); the opponent waits for the event, and so on. A finished game
is followed by Play again. Bounded: at most ``MAX_GAMES`` games for at most ``MAX_SECONDS``.

With ``processes=2`` two server processes share PostgreSQL (``KINGME_DATABASE_URL``, in a
schema of the run's own, dropped afterwards) and Redis (``KINGME_REDIS_URL``, under a key prefix
of the run's own), and each game's players sit on different processes. A game *stalls* when a
move acknowledged to its sender is not seen by the opponent within ``STALL_SECONDS``; the report
counts such games.

``load=N`` starts N busy processes beside the run (each spins on a core until the run ends), so
the stalls and the round trips can be measured on a machine that is not quiet, as a real server
rarely is; they are stopped when the run ends, however it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from websockets.exceptions import ConnectionClosed

from kingme.server.gc_tuning import tune_for_many_live_objects
from kingme.server.online.client import RoomClient, http_json
from kingme.server.online.wire import starts

MAX_GAMES = 5000
#: A move acknowledged but not seen by the opponent within this many seconds stalls its game.
STALL_SECONDS = 5.0
MAX_SECONDS = 600
#: Seconds a server process may take to start (generous: the machine may be busy).
START_SECONDS = 90
LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}
#: The most busy processes ``--load`` starts: enough to load any machine this runs on, bounded so
#: a typo cannot start thousands.
MAX_LOAD = 16
#: What each busy process runs: a loop that only ends when it is stopped.
BUSY_LOOP = "while True: pass"


@dataclass
class Figures:
    """What a run measured."""

    games: int
    seconds: float = 0.0
    round_trips: list[float] = field(default_factory=list)
    #: Moves refused (by their error code) and games that ended in an exception (by its type).
    errors: Counter[str] = field(default_factory=Counter)
    finished_games: int = 0
    #: CPU seconds the server process used while the games were played (when the bench started it).
    server_cpu: float | None = None
    #: CPU seconds this (client) process used meanwhile.
    client_cpu: float = 0.0
    #: Server processes the games were spread over, and the games that stalled at least once.
    processes: int = 1
    stalled_games: set[int] = field(default_factory=set)
    #: Busy processes that ran beside the games (``--load``).
    load: int = 0


def check_loopback(url: str) -> None:
    host = urlsplit(url).hostname or ""
    if host not in LOOPBACK:
        raise ValueError(f"the online benchmark runs on loopback only; {host!r} is not a loopback host")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class ServerProcess:
    """The online routes served by uvicorn in a child process (``python -m kingme.server.online.asgi``).

    ``env`` is the child's whole environment (its data directory, database and Redis URLs);
    ``output`` receives what it prints. The benchmark runs one on SQLite; the scale-out test runs
    two sharing PostgreSQL and Redis.
    """

    def __init__(self, env: dict[str, str], port: int | None = None, output: IO[str] | None = None) -> None:
        self.port = port or _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}"
        command = [sys.executable, "-m", "kingme.server.online.asgi", "--port", str(self.port)]
        stderr = subprocess.STDOUT if output else None
        self._process = subprocess.Popen(command, env=env, stdout=output, stderr=stderr)

    @property
    def pid(self) -> int:
        return self._process.pid

    def wait_ready(self) -> None:
        """Return once the server answers (an unknown room's 404), or raise ``OSError``."""
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise OSError(f"the server on port {self.port} exited at start-up")
            try:
                urllib.request.urlopen(f"{self.url}/api/rooms/{'x' * 22}", timeout=1)
            except urllib.error.HTTPError:
                return
            except OSError:
                time.sleep(0.1)
        raise OSError(f"the server on port {self.port} did not start within {START_SECONDS} s")

    def cpu_seconds(self) -> float | None:
        """User + system CPU time of the server so far (Linux ``/proc``; None elsewhere)."""
        try:
            stat = Path(f"/proc/{self._process.pid}/stat").read_text()
        except OSError:
            return None
        fields = stat.rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def memory_mb(self) -> float | None:
        """Resident memory of the server now, in MB (Linux ``/proc``; None elsewhere)."""
        try:
            status = Path(f"/proc/{self._process.pid}/status").read_text()
        except OSError:
            return None
        kilobytes = next((line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")), None)
        return int(kilobytes) / 1024 if kilobytes else None

    def kill(self) -> None:
        """Stop it at once, as a crash would."""
        self._process.kill()
        self._process.wait(timeout=10)

    def stop(self) -> None:
        """Stop it cleanly (killed if it does not exit within 10 s)."""
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


#: Connection options of a benchmark player: room for a long game's state, and no pings of its
#: own, as a browser sends none (the server pings every connection; 2,000 players' pings on
#: top, all in step because they connected in one burst, were load no real client makes).
PLAYER_OPTIONS: dict[str, Any] = {"max_size": 2**22, "ping_interval": None}


async def _seat(first: str, second: str, limit: asyncio.Semaphore) -> tuple[RoomClient, RoomClient]:
    """A room created (and Black seated) on the server at ``first``, joined by White at ``second``."""
    async with limit:
        status, created = await asyncio.to_thread(http_json, "POST", f"{first}/api/rooms", {"side": "black"})
        if status != 201:
            raise OSError(f"creating a room failed: {created.get('error', status)}")
        status, joined = await asyncio.to_thread(http_json, "POST", f"{second}/api/rooms/{created['room']}/join")
        if status != 201:
            raise OSError(f"joining a room failed: {joined.get('error', status)}")
        black = await RoomClient.open(_ws(first), created["room"], created["token"], **PLAYER_OPTIONS)
        white = await RoomClient.open(_ws(second), created["room"], joined["token"], **PLAYER_OPTIONS)
        return black, white


def _ws(url: str) -> str:
    return "ws" + url.removeprefix("http")


#: How the server's answers to a move begin: an ack or an error.
ANSWERS = (starts("ack"), starts("error"))
#: How the server's round-trip probes begin; the echo is the probe itself.
PROBE = starts("probe")


async def _answer(mover: RoomClient) -> dict[str, Any]:
    """The server's answer to a move: ack or error. The mover's own event (and presence) is
    skipped unparsed: the opponent's next event brings the state, and the bench should leave
    the CPU to the server. Probes are echoed, as pages do, so the bench pays for them too."""
    while True:
        text = await asyncio.wait_for(mover.connection.recv(), timeout=60)
        if isinstance(text, str) and text.startswith(ANSWERS):
            answer: dict[str, Any] = json.loads(text)
            return answer
        if isinstance(text, str) and text.startswith(PROBE):  # answered as a page does
            await mover.send(text)


async def _seen(client: RoomClient, number: int) -> None:
    """Wait until ``client`` has seen event ``number`` (in an event or a catch-up welcome)."""
    while client.last_event < number:
        await client.receive("event", "welcome", timeout=60)


async def _game(
    number: int,
    players: tuple[RoomClient, RoomClient],
    figures: Figures,
    deadline: float,
    think: float,
    chooser: random.Random,
) -> None:
    by_color = {client.color: client for client in players}
    latest = players[0]  # the client holding the newest state
    ply = 0
    while time.monotonic() < deadline:
        state = latest.state
        if state["game"]["result"] is not None:
            for client in players:
                await client.send({"type": "play_again"})
            for client in players:
                while client.state["game"]["result"] is not None:
                    await client.receive("event")
            figures.finished_games += 1
            by_color = {client.color: client for client in players}
            continue
        mover = by_color[state["game"]["turn"]]
        other = players[1] if mover is players[0] else players[0]
        await asyncio.sleep(think * (0.5 + chooser.random()))
        move = chooser.choice(state["game"]["moves"])["notation"]
        ply += 1
        started = time.perf_counter()
        await mover.send({"type": "move", "id": f"p{ply}", "move": move})
        answer = await _answer(mover)
        if answer["type"] == "error":
            figures.errors[answer["code"]] += 1
            await mover.send({"type": "sync"})
            await mover.receive("welcome")
            latest = mover
            continue
        figures.round_trips.append(time.perf_counter() - started)
        try:
            await asyncio.wait_for(_seen(other, answer["n"]), timeout=STALL_SECONDS)
        except TimeoutError:
            figures.stalled_games.add(number)
            await _seen(other, answer["n"])
        latest = other


async def run_bench(
    urls: list[str], games: int, seconds: float, think: float, servers: Sequence[ServerProcess] = (), seed: int = 1
) -> Figures:
    """Seat ``games`` games on the servers at ``urls`` (Black on the first, White on the last),
    then play them for ``seconds``."""
    for url in urls:
        check_loopback(url)
    limit = asyncio.Semaphore(16)
    tables = await asyncio.gather(*(_seat(urls[0], urls[-1], limit) for _ in range(games)))
    figures = Figures(games, processes=len(urls))
    cpu_before = _cpu(servers)
    client_before = time.process_time()
    started = time.monotonic()
    deadline = started + seconds
    results = await asyncio.gather(
        *(
            _game(number, table, figures, deadline, think, random.Random(seed * 100_003 + number))
            for number, table in enumerate(tables)
        ),
        return_exceptions=True,
    )
    figures.seconds = time.monotonic() - started
    figures.client_cpu = time.process_time() - client_before
    cpu_after = _cpu(servers)
    if cpu_before is not None and cpu_after is not None:
        figures.server_cpu = cpu_after - cpu_before
    figures.errors.update(_named(result) for result in results if isinstance(result, BaseException))
    await asyncio.gather(*(client.close() for table in tables for client in table), return_exceptions=True)
    return figures


def _named(error: BaseException) -> str:
    """An error as the report counts it: its type, and a closed connection's close code and reason."""
    if isinstance(error, ConnectionClosed):
        close = error.rcvd or error.sent
        return f"{type(error).__name__} {close.code} {close.reason}".rstrip() if close else type(error).__name__
    return type(error).__name__


def _cpu(servers: Sequence[ServerProcess]) -> float | None:
    """CPU seconds the servers used so far, together (None when not known)."""
    seconds = [server.cpu_seconds() for server in servers]
    return sum(s for s in seconds if s is not None) if servers and None not in seconds else None


def check_run(
    games: int, seconds: float, think: float, url: str | None = None, processes: int = 1, load: int = 0
) -> None:
    """Refuse a run that is unbounded or leaves loopback (``ValueError`` naming the problem)."""
    if not 1 <= games <= MAX_GAMES:
        raise ValueError(f"--games must be from 1 to {MAX_GAMES}")
    if not 0 < seconds <= MAX_SECONDS:
        raise ValueError(f"--seconds must be more than 0 and at most {MAX_SECONDS}")
    if not 0 <= think <= 60:
        raise ValueError("--think must be from 0 to 60 seconds")
    if processes not in (1, 2):
        raise ValueError("--processes must be 1 or 2")
    if not 0 <= load <= MAX_LOAD:
        raise ValueError(f"--load must be from 0 to {MAX_LOAD} busy processes")
    if processes == 2 and url is not None:
        raise ValueError("--processes 2 starts its own two servers; leave out --url")
    if processes == 2 and not (os.environ.get("KINGME_DATABASE_URL") and os.environ.get("KINGME_REDIS_URL")):
        raise ValueError("--processes 2 needs KINGME_DATABASE_URL (postgresql://…) and KINGME_REDIS_URL set")
    if url is not None:
        check_loopback(url)


@contextlib.contextmanager
def busy_processes(count: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``count`` processes that each keep a core busy until the block ends (however it ends)."""
    busy: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(count):
            busy.append(subprocess.Popen([sys.executable, "-c", BUSY_LOOP]))
        yield busy
    finally:
        for process in busy:
            process.kill()
            process.wait(timeout=10)


def bench_online(
    games: int, seconds: float, think: float, url: str | None = None, processes: int = 1, load: int = 0
) -> Figures:
    """Run the benchmark against ``url``, or against one or two servers of its own started for
    the run, with ``load`` busy processes beside it."""
    check_run(games, seconds, think, url, processes, load)
    tune_for_many_live_objects()  # this client holds the state of 2 × games connections
    with busy_processes(load):
        figures = _bench_online(games, seconds, think, url, processes)
    figures.load = load
    return figures


def _bench_online(games: int, seconds: float, think: float, url: str | None, processes: int) -> Figures:
    if url is not None:
        return asyncio.run(run_bench([url.rstrip("/")], games, seconds, think))
    with tempfile.TemporaryDirectory(prefix="kingme-bench-") as data_dir:
        env = dict(os.environ, KINGME_DATA_DIR=data_dir, KINGME_ROOMS_PER_HOUR="1000000")
        env["KINGME_CONNECTIONS_PER_ADDRESS"] = str(4 * games + 100)  # every client comes from loopback
        if processes == 1:
            env.pop("KINGME_DATABASE_URL", None)
            env.pop("KINGME_REDIS_URL", None)
            return _run_on(env, 1, games, seconds, think)
        # Keys of the run's own: its rooms from loopback count against no other server's limit.
        env["KINGME_REDIS_PREFIX"] = f"kingme-bench-{secrets.token_hex(6)}:"
        with _bench_schema(env["KINGME_DATABASE_URL"]) as database_url:
            env["KINGME_DATABASE_URL"] = database_url
            return _run_on(env, 2, games, seconds, think)


def _run_on(env: dict[str, str], processes: int, games: int, seconds: float, think: float) -> Figures:
    servers: list[ServerProcess] = []
    try:
        for _ in range(processes):
            servers.append(ServerProcess(env))
            servers[-1].wait_ready()  # one at a time: the first creates the schema
        return asyncio.run(run_bench([server.url for server in servers], games, seconds, think, servers))
    finally:
        for server in servers:
            server.stop()


@contextlib.contextmanager
def _bench_schema(url: str) -> Iterator[str]:
    """``url`` with its tables in a fresh schema of this run's own, dropped afterwards."""
    import psycopg

    name = f"kingme_bench_{secrets.token_hex(6)}"
    with psycopg.connect(url, autocommit=True, connect_timeout=10) as admin:
        admin.execute(f"CREATE SCHEMA {name}")
        try:
            yield f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{name}"
        finally:
            admin.execute(f"DROP SCHEMA {name} CASCADE")


#: Connections made and closed by a soak run, and the most minutes it may take.
SOAK_CONNECTS = 10_000
MAX_SOAK_MINUTES = 60


@dataclass(frozen=True)
class SoakFigures:
    """Server memory before and after many connects and disconnects."""

    connects: int
    seconds: float
    before_mb: float
    after_mb: float


async def _churn(url: str, connects: int, deadline: float) -> int:
    """Open and close spectator connections to one room, 16 at a time; returns how many were made."""
    status, created = await asyncio.to_thread(http_json, "POST", f"{url}/api/rooms", {"side": "black"})
    if status != 201:
        raise OSError(f"creating a room failed: {created.get('error', status)}")
    made = 0

    async def worker(count: int) -> None:
        nonlocal made
        for _ in range(count):
            if time.monotonic() > deadline:
                return
            client = await RoomClient.open(_ws(url), created["room"])
            await client.close()
            made += 1

    workers = 16
    await asyncio.gather(*(worker(connects // workers + (n < connects % workers)) for n in range(workers)))
    return made


def soak_online(minutes: float, connects: int = SOAK_CONNECTS) -> SoakFigures:
    """Server memory before and after ``connects`` connects/disconnects (at most ``minutes``)."""
    if not 0 < minutes <= MAX_SOAK_MINUTES:
        raise ValueError(f"--soak must be more than 0 and at most {MAX_SOAK_MINUTES} minutes")
    with tempfile.TemporaryDirectory(prefix="kingme-soak-") as data_dir:
        env = dict(os.environ, KINGME_DATA_DIR=data_dir, KINGME_ROOMS_PER_HOUR="1000")
        env.pop("KINGME_DATABASE_URL", None)
        env.pop("KINGME_REDIS_URL", None)
        server = ServerProcess(env)
        try:
            server.wait_ready()
            started = time.monotonic()
            deadline = started + minutes * 60
            asyncio.run(_churn(server.url, min(500, connects), deadline))  # warm up: imports, caches
            before = server.memory_mb()
            made = asyncio.run(_churn(server.url, connects, deadline))
            time.sleep(1)  # let the server finish closing
            after = server.memory_mb()
            if before is None or after is None:
                raise OSError("the server's memory cannot be read on this system (no /proc)")
            return SoakFigures(made, time.monotonic() - started, before, after)
        finally:
            server.stop()

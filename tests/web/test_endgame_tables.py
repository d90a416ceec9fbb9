"""``kingme serve`` builds the larger endgame tables in the background (issue 39): it starts when
the directory holds a smaller set than ``KINGME_EGDB_PIECES``, reports its progress on
``GET /api/egdb`` and in its log, never holds play up, refuses what the machine has no room for,
builds once among servers sharing a directory, stops with the server and resumes at the next
start. Builds the tests hold are stand-ins (``HeldBuild``); real ones build 3 pieces at most
to the end, never the 6-piece set."""

from __future__ import annotations

import asyncio
import functools
import logging
import queue
import shutil
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from async_support import run
from egdb_support import lock_held_by_another_process
from starlette.testclient import TestClient

from kingme.engine import analysis
from kingme.engine.analysis import TableShelf
from kingme.engine.egdb import build, build_lock, largest_built
from kingme.engine.egdb.background import Progress
from kingme.engine.egdb.index import materials
from kingme.engine.egdb.storage import read_table, set_path, table_path
from kingme.server import endgame_tables
from kingme.server.app import create_app
from kingme.server.endgame_tables import Machine, State, TableBuilder
from kingme.server.settings import EGDB_PIECES_CHOICES, Settings

#: Seconds a test waits for what it checks before it fails (never a measure of speed).
WAIT = 120
#: A machine with room for any build.
ROOMY = Machine(free_disk=10**12, available_memory=10**12)
FIRST_POSITION = "W:WK19,K23:B12,K28"


@dataclass(frozen=True)
class _End:
    error: str | None


class HeldBuild:
    """A build the test drives: it reports what the test sends and ends when the test says (or
    when stopped). ``launch`` is what the server is given instead of starting a process."""

    def __init__(self) -> None:
        self.launches: list[tuple[Path, int]] = []
        self.stopped = False
        self._sent: queue.Queue[Progress | _End] = queue.Queue()
        self._taken: queue.Queue[Progress] = queue.Queue()
        self._error: str | None = None

    async def launch(self, directory: Path, pieces: int, lock: int) -> HeldBuild:
        self.launches.append((directory, pieces))
        return self

    async def reports(self) -> AsyncIterator[Progress]:
        while True:
            item = await asyncio.to_thread(self._sent.get)
            if isinstance(item, _End):
                self._error = item.error
                return
            yield item
            self._taken.put(item)  # the server asks for the next one: it has taken this one in

    async def outcome(self) -> str | None:
        return self._error

    async def stop(self) -> None:
        self.stopped = True
        self._sent.put(_End("stopped"))

    def report(self, table: str, done: int, total: int) -> None:
        """Send a progress report, and wait until the server has taken it in (any thread)."""
        progress = Progress(table, done, total)
        self._sent.put(progress)
        assert self._taken.get(timeout=WAIT) == progress

    def end(self, error: str | None = None) -> None:
        self._sent.put(_End(error))


class NoEngine:
    """No engine at all: these tests play no move."""

    async def choose_move(self, record: dict[str, object], level: str) -> str:
        raise AssertionError("no move was asked for")

    async def hint(self, record: dict[str, object]) -> str:
        raise AssertionError("no hint was asked for")

    def close(self) -> None:
        """Nothing to stop."""


def never_launched(directory: Path, pieces: int, lock: int) -> HeldBuild:
    raise AssertionError(f"a build of {pieces} pieces was started")


async def until(condition: Callable[[], bool]) -> None:
    """Wait for ``condition`` (a state the server reaches by itself), failing after ``WAIT``."""
    async with asyncio.timeout(WAIT):
        while not condition():
            await asyncio.sleep(0.05)


@pytest.fixture
def four(tmp_path: Path) -> Path:
    """A tables' directory holding the 4-piece set (the suite's own, built on first use)."""
    assert analysis.endgame_tables() is not None
    source = analysis.egdb.default_directory()
    directory = tmp_path / "egdb"
    directory.mkdir()
    for material in materials(4):
        shutil.copy(table_path(source, material), directory)
    shutil.copy(set_path(source, 4), directory)
    return directory


@pytest.fixture
def two(tmp_path: Path) -> Path:
    directory = tmp_path / "egdb"
    build(directory, 2)
    return directory


@pytest.fixture
def egdb_log(caplog: pytest.LogCaptureFixture) -> Callable[[], list[str]]:
    caplog.set_level(logging.INFO, logger="kingme.egdb")
    return lambda: [record.getMessage() for record in caplog.records if record.name == "kingme.egdb"]


def serve(
    directory: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    launch: endgame_tables.Launch,
    machine: Machine = ROOMY,
) -> TestClient:
    """The whole app with one engine worker, asking for the 6-piece set in ``directory``."""
    monkeypatch.setenv("KINGME_EGDB_DIR", str(directory))
    settings = Settings(data_dir=tmp_path / "data", engine_workers=1, egdb_pieces=6)
    part = functools.partial(endgame_tables.extension, launch=launch, machine=lambda _: machine)
    return TestClient(create_app(settings, extensions=(part,)), raise_server_exceptions=False)


def first_position_move(client: TestClient) -> str:
    """The strong level's move in First Position: the tables' fastest conversion when it has them."""
    record = {"setup": {"fen": FIRST_POSITION}, "moves": []}
    response = client.post("/api/computer", json={"record": record, "level": "strong"})
    assert response.status_code == 200, response.text
    return str(response.json()["move"])


# -- the build runs beside play -----------------------------------------------------------------


def test_serve_builds_the_larger_set_in_the_background_reports_it_and_plays_meanwhile(
    four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, egdb_log: Callable[[], list[str]]
) -> None:
    held = HeldBuild()
    with serve(four, tmp_path, monkeypatch, held.launch) as client:
        assert held.launches == [(four, 6)]
        assert client.get("/api/egdb").json() == {
            "pieces": 4,
            "target": 6,
            "state": "building",
            "building": True,
            "fraction": None,
            "table": None,
            "error": None,
        }
        started = egdb_log()[0]
        for words in ("building the 6-piece set", "in the background", "CPU minutes", "GB of memory", "Play goes on"):
            assert words in started

        held.report("2K1M-2K1M", 1_000, 4_000)
        status = client.get("/api/egdb").json()
        assert (status["fraction"], status["table"], status["state"]) == (0.25, "2K1M-2K1M", "building")
        assert "25% of the 6-piece set built (table 2K1M-2K1M)" in egdb_log()[-1]

        assert first_position_move(client) == "23-27"  # answered by the worker from the 4-piece tables

        held.end()
        run(until(lambda: client.app.state.endgame_tables.state == State.COMPLETE))
        assert client.get("/api/egdb").json()["building"] is False
        assert "the 6-piece set is built" in egdb_log()[-1]
    assert not held.stopped


def test_an_unwritable_directory_is_reported_and_play_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, egdb_log: Callable[[], list[str]]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    directory = blocker / "egdb"
    with serve(directory, tmp_path, monkeypatch, never_launched) as client:
        status = client.get("/api/egdb").json()
        assert (status["state"], status["building"], status["pieces"]) == ("failed", False, 0)
        assert "cannot write in the tables' directory" in status["error"] and str(blocker) not in status["error"]
        assert "kingme egdb build --pieces 6" in egdb_log()[-1]
        first_position_move(client)  # the engine plays on, searching without tables


# -- what it refuses, and why -------------------------------------------------------------------


def _system(tmp_path: Path, cgroup: str, files: dict[str, str]) -> tuple[Path, Path]:
    """A fake ``/proc`` (MemAvailable 8 GiB, the process's ``cgroup`` lines) and cgroup tree."""
    proc, cgroups = tmp_path / "proc", tmp_path / "cgroup"
    (proc / "self").mkdir(parents=True)
    (proc / "meminfo").write_text("MemTotal:       16777216 kB\nMemAvailable:    8388608 kB\n")
    (proc / "self" / "cgroup").write_text(cgroup)
    for name, text in files.items():
        (cgroups / name).parent.mkdir(parents=True, exist_ok=True)
        (cgroups / name).write_text(text)
    return proc, cgroups


GIB = 1 << 30


@pytest.mark.parametrize(
    ("cgroup", "files", "available"),
    [
        # cgroup v2, the server's own group: a 3 GiB limit of which 1 GiB is used.
        (
            "0::/kingme.service\n",
            {"kingme.service/memory.max": "3221225472\n", "kingme.service/memory.current": str(GIB)},
            2 * GIB,
        ),
        # v2 inside a container, whose group is the mounted root: no limit.
        ("0::/\n", {"memory.max": "max\n", "memory.current": "5"}, 8 * GIB),
        # v1: the memory controller's group, limited; and v1's "no limit".
        (
            "4:memory:/box\n1:cpu:/\n",
            {"memory/box/memory.limit_in_bytes": str(4 * GIB), "memory/box/memory.usage_in_bytes": str(GIB)},
            3 * GIB,
        ),
        (
            "4:memory:/box\n",
            {"memory/box/memory.limit_in_bytes": "9223372036854771712", "memory/box/memory.usage_in_bytes": "1"},
            8 * GIB,
        ),
        # v1 inside a container: the named group is not mounted, the root holds its figures.
        (
            "4:memory:/elsewhere/1\n",
            {"memory/memory.limit_in_bytes": str(2 * GIB), "memory/memory.usage_in_bytes": "0"},
            2 * GIB,
        ),
        # A limit the group has already used up leaves nothing; no cgroup files leave MemAvailable.
        ("0::/\n", {"memory.max": str(GIB), "memory.current": str(2 * GIB)}, 0),
        ("0::/\n", {}, 8 * GIB),
        # A line that is not a cgroup line ends the reading; the root's figures still count.
        (
            "garbage\n4:memory:/box\n",
            {"memory/memory.limit_in_bytes": str(2 * GIB), "memory/memory.usage_in_bytes": "0"},
            2 * GIB,
        ),
    ],
)
def test_the_memory_a_build_may_use_is_the_least_of_the_machines_and_its_control_groups_room(
    tmp_path: Path, cgroup: str, files: dict[str, str], available: int
) -> None:
    assert endgame_tables.available_memory(*_system(tmp_path, cgroup, files)) == available


def test_memory_is_unknown_where_the_system_says_nothing(tmp_path: Path) -> None:
    assert endgame_tables.available_memory(tmp_path / "no-proc", tmp_path / "no-cgroup") is None


@pytest.mark.parametrize(
    ("machine", "lacking"),
    [
        (Machine(free_disk=2 * 10**9, available_memory=10**12), "free disk"),
        (Machine(free_disk=10**12, available_memory=3 * 10**9), "memory"),
    ],
)
def test_a_build_the_machine_has_no_room_for_is_not_started_and_says_what_is_lacking(
    four: Path, machine: Machine, lacking: str, egdb_log: Callable[[], list[str]]
) -> None:
    async def scenario() -> TableBuilder:
        builder = TableBuilder(four, 6, launch=never_launched, machine=lambda _: machine)
        await builder.start()
        await builder.close()
        return builder

    status = run(scenario()).status()
    assert (status["state"], status["pieces"], status["building"]) == ("refused", 4, False)
    assert lacking in status["error"]
    (line,) = egdb_log()
    assert "not building the 6-piece set" in line and lacking in line
    assert f"kingme egdb build --pieces 6 --dir {four}" in line and "KINGME_EGDB_PIECES=4" in line
    with build_lock(four):  # the lock was given back
        pass


def test_a_complete_set_is_not_built_again(two: Path) -> None:
    async def scenario() -> TableBuilder:
        builder = TableBuilder(two, 2, launch=never_launched, machine=lambda _: ROOMY)
        await builder.start()
        return builder

    assert run(scenario()).status()["state"] == "complete"


def test_a_target_of_4_or_0_builds_nothing_in_the_background(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for pieces in (0, 4):
        monkeypatch.setenv("KINGME_EGDB_DIR", str(tmp_path / "empty"))
        settings = Settings(data_dir=tmp_path / "data", engine_workers=1, egdb_pieces=pieces)
        part = functools.partial(endgame_tables.extension, launch=never_launched)
        app = create_app(settings, engine_factory=lambda workers: NoEngine(), extensions=(part,))
        with TestClient(app) as client:
            assert client.get("/api/egdb").json()["state"] == "off"


# -- one build per directory --------------------------------------------------------------------


def test_of_two_servers_sharing_a_directory_one_builds_and_the_other_says_another_process_does(
    four: Path, egdb_log: Callable[[], list[str]]
) -> None:
    first, second = HeldBuild(), HeldBuild()

    async def scenario() -> tuple[dict[str, object], dict[str, object]]:
        building = TableBuilder(four, 6, launch=first.launch, machine=lambda _: ROOMY)
        waiting = TableBuilder(four, 6, launch=second.launch, machine=lambda _: ROOMY)
        await building.start()
        await waiting.start()
        while_building = waiting.status()
        await building.close()  # its server stops: the build stops unfinished
        await waiting.start()  # what its watch does every WATCH_SECONDS
        after = waiting.status()
        await waiting.close()
        return while_building, after

    while_building, after = run(scenario())
    assert (while_building["state"], while_building["building"]) == ("elsewhere", True)
    assert any("being built in" in line and "by another process" in line for line in egdb_log())
    assert first.launches == [(four, 6)] and first.stopped
    assert after["state"] == "building" and second.launches == [(four, 6)]  # taken over


def test_a_build_lock_held_by_another_process_is_seen(four: Path) -> None:
    held = HeldBuild()

    async def scenario() -> str:
        builder = TableBuilder(four, 6, launch=held.launch, machine=lambda _: ROOMY)
        await builder.start()
        return builder.state

    with lock_held_by_another_process(four):
        assert run(scenario()) == State.ELSEWHERE
    assert held.launches == []


# -- real builds, of 3 pieces at most -----------------------------------------------------------


def test_a_real_build_reports_its_progress_and_the_engine_takes_the_set_up_when_complete(
    two: Path, egdb_log: Callable[[], list[str]]
) -> None:
    shelf = TableShelf(two, first_use=2)  # an engine worker playing with the 2-piece set
    assert shelf.tables().max_pieces == 2
    seen: list[float] = []

    async def scenario() -> TableBuilder:
        builder = TableBuilder(two, 3, machine=lambda _: ROOMY)
        await builder.start()
        assert builder.state == State.BUILDING and shelf.tables().max_pieces == 2

        def finished() -> bool:
            fraction = builder.status()["fraction"]
            if fraction is not None and fraction not in seen:
                seen.append(fraction)
            return builder.state != State.BUILDING

        await until(finished)
        return builder

    builder = run(scenario())
    assert builder.status() == {
        "pieces": 3,
        "target": 3,
        "state": "complete",
        "building": False,
        "fraction": None,
        "table": None,
        "error": None,
    }
    assert seen == sorted(seen)
    assert shelf.tables().max_pieces == 3
    assert "the 3-piece set is built" in egdb_log()[-1]


def test_stopping_the_server_stops_the_build_keeping_whole_files_and_the_next_start_resumes(two: Path) -> None:
    async def stopped_early() -> TableBuilder:
        builder = TableBuilder(two, 5, machine=lambda _: ROOMY)
        await builder.start()
        await until(lambda: builder.status()["fraction"] is not None)  # the process is building
        await builder.close()
        return builder

    builder = run(stopped_early())
    assert builder.state == State.STOPPED and builder.status()["building"] is False
    assert not list(two.glob("*.tmp"))
    kept = {path.name: path.stat().st_ino for path in two.glob("*.kmdb")}
    for material in materials(5):
        if table_path(two, material).exists():
            read_table(two, material, np.zeros(material.size, dtype=np.uint8))  # whole and sound
    with build_lock(two):  # given back
        pass

    async def resumed() -> TableBuilder:
        builder = TableBuilder(two, 3, machine=lambda _: ROOMY)
        await builder.start()
        await until(lambda: builder.state != State.BUILDING)
        return builder

    assert run(resumed()).state == State.COMPLETE and largest_built(two) >= 3
    assert all((two / name).stat().st_ino == inode for name, inode in kept.items())  # kept, not rebuilt


def test_a_build_that_fails_says_why_without_the_directory_and_the_set_in_use_stays(
    two: Path, egdb_log: Callable[[], list[str]]
) -> None:
    set_path(two, 3).with_name(set_path(two, 3).name + ".tmp").mkdir()  # where the set file is written
    shelf = TableShelf(two, first_use=2)  # an engine worker playing with the 2-piece set
    assert shelf.tables().max_pieces == 2

    async def scenario() -> TableBuilder:
        builder = TableBuilder(two, 3, machine=lambda _: ROOMY)
        await builder.start()
        await until(lambda: builder.state != State.BUILDING)
        return builder

    status = run(scenario()).status()
    assert (status["state"], status["pieces"], status["building"]) == ("failed", 3, False)
    assert "set-3.v2.kmraw.tmp" in status["error"] and str(two) not in status["error"]
    assert "the 3-piece set was not built" in egdb_log()[-1]
    assert shelf.tables().max_pieces == 2  # every table is there, but no set file: not complete


# -- the setting --------------------------------------------------------------------------------


def test_the_setting_defaults_to_6_for_kingme_serve_and_to_no_build_for_settings_made_in_code() -> None:
    assert Settings.from_env({}).egdb_pieces == 6
    assert Settings(data_dir=Path("data")).egdb_pieces == 0
    assert Settings.from_env().egdb_pieces == 0  # the suite's servers never build (tests/conftest.py)
    assert EGDB_PIECES_CHOICES == (0, analysis.SMALL_PIECES, 5, analysis.egdb.MAX_PIECES)


@pytest.mark.parametrize("value", ["7", "3", "six", "", "-1", "05"])
def test_a_bad_setting_is_refused_naming_the_variable(value: str) -> None:
    with pytest.raises(ValueError, match=f"KINGME_EGDB_PIECES must be one of 0, 4, 5, 6, not {value!r}"):
        Settings.from_env({"KINGME_EGDB_PIECES": value})

"""The endgame tables of ``kingme serve``: the larger set built in the background, ``GET /api/egdb``.

The engine plays better the more endings it knows exactly (docs/egdb.md), but the set of at most
6 pieces takes about 15 CPU minutes, 4.2 GB of memory and 3.4 GB of disk to build: too much to
ship, or to make a player wait for. So at start-up, when the tables' directory
(``egdb.default_directory()``) holds a smaller complete set than ``KINGME_EGDB_PIECES`` asks
(``Settings.egdb_pieces``: 6 by default; 0 or 4 builds nothing), the server builds that set in
a child process at the lowest priority (``egdb.background``), and play goes on meanwhile with
the set there is (the 4-piece one built on first use, as without any of this). Engine workers
take the new set up at their first search after it is complete
(``kingme.engine.analysis.TableShelf``); nothing here talks to them.

- Before it starts, it compares the free disk in the directory and the available memory
  (``/proc/meminfo``'s MemAvailable, or the room left in the server's control group where that
  is less: ``available_memory``) with ``background.build_needs``; short of either it builds
  nothing and logs one line saying what is missing and how to build the set by hand.
- One build per directory: the build holds the directory's lock (``egdb.take_build_lock``,
  handed to the child too), so of several servers sharing the directory one builds and the
  others say "building in another process", looking again every ``WATCH_SECONDS``: when the
  set is complete they say so, and when the build ended unfinished (its server stopped) one of
  them takes over where it stopped.
- It logs on ``kingme.egdb`` (``kingme serve`` prints those lines on stderr, ``show_log``) a line
  when it starts (what, why, what it costs), one every ``LOG_STEP`` of the set and one when it
  ends; ``GET /api/egdb`` answers its state at any time (``TableBuilder.status``).
- Stopping the server stops the build (``BuildRun.stop``: SIGTERM, then at most
  ``STOP_SECONDS``): it keeps only whole files, and the next start resumes at the table it was on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from kingme.engine import egdb
from kingme.engine.egdb import background
from kingme.engine.egdb.background import Progress
from kingme.engine.egdb.database import LOCK_NAME
from kingme.server.extension import Extension
from kingme.server.settings import Settings

log = logging.getLogger("kingme.egdb")

#: Seconds between looks at a build another process runs: one ``flock`` attempt and a ``stat``
#: per table each time; a set completed there is reported, and a build stopped there unfinished
#: is taken over, within this long.
WATCH_SECONDS = 30.0
#: Seconds a stopping server gives its build to stop before killing it. The build stops at its
#: next whole step, but the longest steps cannot be interrupted: compressing the largest table
#: (258 million positions) or writing the 3 GB set file, several seconds each on a busy machine.
#: Killed, it leaves at most a stray ``.tmp`` file, which the next build overwrites.
STOP_SECONDS = 20.0
#: The share of the set between two progress lines in the log: twenty lines for a whole build.
LOG_STEP = 0.05


class State:
    """What ``TableBuilder.status`` says the build is doing (its ``state``)."""

    OFF = "off"  # no background build (KINGME_EGDB_PIECES is 0 or 4: the target is 0)
    COMPLETE = "complete"  # the directory holds the target set (or a larger one)
    BUILDING = "building"  # this server's build is running
    ELSEWHERE = "elsewhere"  # another process holds the directory's build lock
    REFUSED = "refused"  # not started: not enough free disk or memory
    FAILED = "failed"  # could not start, or ended with an error
    STOPPED = "stopped"  # the server stopped it (it resumes at the next start)


class BuildRun(Protocol):
    """A build under way, as the server follows it: ``ChildBuild``, or a test's stand-in."""

    def reports(self) -> AsyncIterator[Progress]:
        """The build's progress, until it ends."""
        ...

    async def outcome(self) -> str | None:
        """Once ``reports`` has ended: ``None`` when the set was built, else why not."""
        ...

    async def stop(self) -> None:
        """Stop the build (whole files are kept) and wait until it has stopped."""
        ...


#: Starts a build: ``launch(directory, pieces, lock)``, ``lock`` the descriptor of the build lock.
Launch = Callable[[Path, int, int], Awaitable[BuildRun]]


class ChildBuild:
    """A ``python -m kingme.engine.egdb.background`` child building a set (``launch_child``)."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self._process = process
        self._error: str | None = None

    async def reports(self) -> AsyncIterator[Progress]:
        assert self._process.stdout is not None
        async for line in self._process.stdout:
            report = background.read_report(line)
            if isinstance(report, Progress):
                yield report
            elif report is not None:
                self._error = report

    async def outcome(self) -> str | None:
        status = await self._process.wait()
        if status == 0:
            return None
        return self._error or f"the build process ended with status {status}"

    async def stop(self) -> None:
        if self._process.returncode is None:
            self._process.terminate()
            try:
                await asyncio.wait_for(self._process.wait(), STOP_SECONDS)
            except TimeoutError:
                self._process.kill()
                await self._process.wait()


async def launch_child(directory: Path, pieces: int, lock: int) -> BuildRun:
    """The build as a child process holding a copy of the build lock, in a session of its own
    (a Ctrl+C at the server's terminal reaches the server, which stops it, not the child
    directly), its standard input a pipe whose end tells it the server has gone."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "kingme.engine.egdb.background",
        str(directory),
        str(pieces),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        pass_fds=(lock,),
        start_new_session=True,
    )
    return ChildBuild(process)


@dataclass(frozen=True)
class Machine:
    """What the machine offers a build: free bytes of disk in the tables' directory and
    available bytes of memory (``None`` where the system does not say; ``available_memory``)."""

    free_disk: int
    available_memory: int | None


def machine_figures(directory: Path) -> Machine:
    """``Machine`` for ``directory`` (which exists): ``shutil.disk_usage`` and ``available_memory``."""
    return Machine(shutil.disk_usage(directory).free, available_memory())


#: A control group's memory limit at least this large is no limit (cgroup v1 writes "no limit" as
#: the largest page-aligned 64-bit number, about 9.2e18).
NO_LIMIT = 1 << 62


def available_memory(proc: Path = Path("/proc"), cgroups: Path = Path("/sys/fs/cgroup")) -> int | None:
    """Bytes of memory a new process may use: MemAvailable of ``/proc/meminfo``, or less where the
    server's control group (a container's, a systemd unit's ``MemoryMax``) allows less — its limit
    less what the group already uses. A build beyond that limit would be killed part-way, which
    MemAvailable, counting the whole machine's memory, does not foresee. ``None`` where neither
    says. Both cgroup versions are read: v2's ``memory.max`` and ``memory.current``, v1's
    ``memory.limit_in_bytes`` and ``memory.usage_in_bytes``, in the group ``/proc/self/cgroup``
    names or, as inside a container whose own group is mounted as the root, at the root."""
    figures: list[int] = []
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in (proc / "meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                figures.append(int(line.split()[1]) * 1024)  # the file counts kB
    groups: list[tuple[Path, str, str]] = []
    with contextlib.suppress(OSError, ValueError):  # a line without two colons ends the list read
        for line in (proc / "self" / "cgroup").read_text().splitlines():
            _, controllers, group = line.split(":", 2)
            if controllers == "":
                groups.append((cgroups / group.lstrip("/"), "memory.max", "memory.current"))
            elif "memory" in controllers.split(","):
                groups.append(
                    (cgroups / "memory" / group.lstrip("/"), "memory.limit_in_bytes", "memory.usage_in_bytes")
                )
    groups += [
        (cgroups, "memory.max", "memory.current"),
        (cgroups / "memory", "memory.limit_in_bytes", "memory.usage_in_bytes"),
    ]
    for folder, limit_file, usage_file in groups:
        with contextlib.suppress(OSError, ValueError):
            limit_text = (folder / limit_file).read_text().strip()
            if limit_text != "max" and int(limit_text) < NO_LIMIT:
                figures.append(max(int(limit_text) - int((folder / usage_file).read_text()), 0))
            break  # the first group that answers is the server's
    return min(figures) if figures else None


def _size(count: int) -> str:
    """Bytes in GB or MB, as the docs give them: ``3.4 GB``, ``171 MB``."""
    return f"{count / 1e9:.1f} GB" if count >= 1e9 else f"{count / 1e6:.0f} MB"


def _cpu(seconds: int) -> str:
    return f"about {round(seconds / 60)} CPU minutes" if seconds >= 120 else f"about {seconds} CPU seconds"


def _set(pieces: int) -> str:
    return f"the {pieces}-piece set" if pieces else "no set yet (the 4-piece set is built on first use)"


class TableBuilder:
    """The background build of the set of at most ``target`` pieces in ``directory`` (none when
    ``target`` is 0): ``start`` decides and starts it, ``status`` reports it, ``close`` stops it.
    ``launch`` starts the build and ``machine`` measures the machine (tests pass stand-ins)."""

    def __init__(
        self,
        directory: Path,
        target: int,
        *,
        launch: Launch = launch_child,
        machine: Callable[[Path], Machine] = machine_figures,
    ) -> None:
        self.directory = directory
        self.target = target
        self._launch = launch
        self._machine = machine
        self.state = State.OFF
        self.error: str | None = None
        self._progress: Progress | None = None
        self._run: BuildRun | None = None
        self._following: asyncio.Task[None] | None = None
        self._watching: asyncio.Task[None] | None = None
        self._stopping = False

    def status(self) -> dict[str, Any]:
        """What ``GET /api/egdb`` answers: the set the engine plays with (``pieces``: the largest
        whose files are all there, 0 before the first use builds the small one), the target,
        the state (``State``), whether a build is running here or elsewhere, the share of the
        target's positions built (while building here), the table under way, and why a build
        did not start or failed (the directory's path left out: the answer is public)."""
        progress = self._progress if self.state == State.BUILDING else None
        error = self.error.replace(str(self.directory), "the tables' directory") if self.error else None
        return {
            "pieces": egdb.largest_built(self.directory),
            "target": self.target,
            "state": self.state,
            "building": self.state in (State.BUILDING, State.ELSEWHERE),
            "fraction": round(progress.done / progress.total, 4) if progress else None,
            "table": progress.table if progress else None,
            "error": error,
        }

    async def start(self) -> None:
        """Build the target set in the background if the directory lacks it and nobody else is
        building it there; otherwise say why not. Never waits for the build."""
        if not self.target:
            self.state = State.OFF
            return
        held = egdb.largest_built(self.directory)
        if held >= self.target:
            if self.state == State.ELSEWHERE:
                log.info("endgame tables: the %d-piece set in %s is complete", self.target, self.directory)
            self.state = State.COMPLETE
            return
        try:
            lock = egdb.take_build_lock(self.directory)
        except egdb.BuildBusy:
            self._building_elsewhere()
            return
        except OSError as error:
            self._fail(f"cannot write in {self.directory} ({error.strerror or error})", held)
            return
        try:
            self._run = await self._start_build(lock, held)
        except OSError as error:
            self._run = None
            self._fail(f"cannot start the build ({error.strerror or error})", held)
        if self._run is None:
            os.close(lock)
            return
        self.state, self.error, self._progress = State.BUILDING, None, None
        self._following = asyncio.create_task(self._follow(self._run, lock))

    async def close(self) -> None:
        """Stop watching, and stop this server's build if it runs (it resumes at the next start)."""
        self._stopping = True
        if self._watching is not None:
            self._watching.cancel()
        if self._run is not None and self._following is not None and not self._following.done():
            await self._run.stop()
            await self._following

    async def _start_build(self, lock: int, held: int) -> BuildRun | None:
        """The build started, or ``None`` when the machine lacks room for it (said and logged)."""
        shortage = self._shortage()
        if shortage is not None:
            self._refuse(shortage, held)
            return None
        self._announce(held)
        return await self._launch(self.directory, self.target, lock)

    def _shortage(self) -> str | None:
        """What the machine lacks for the build, in words, or ``None``."""
        needs = background.build_needs(self.target)
        machine = self._machine(self.directory)
        if machine.free_disk < needs.disk:
            return f"it needs about {_size(needs.disk)} of free disk and {_size(machine.free_disk)} is free"
        if machine.available_memory is not None and machine.available_memory < needs.memory:
            return f"it needs about {_size(needs.memory)} of memory and {_size(machine.available_memory)} is available"
        return None

    def _announce(self, held: int) -> None:
        needs = background.build_needs(self.target)
        log.info(
            "endgame tables: building the %d-piece set in %s in the background, as KINGME_EGDB_PIECES=%d asks and"
            " the directory holds %s: %s on one core at the lowest priority, up to %s of memory and %s of disk."
            " Play goes on with the tables there are; the engine takes the new set up when it is complete."
            " Progress: GET /api/egdb; KINGME_EGDB_PIECES=4 turns this off",
            self.target,
            self.directory,
            self.target,
            _set(held),
            _cpu(needs.cpu_seconds),
            _size(needs.memory),
            _size(needs.disk),
        )

    def _by_hand(self) -> str:
        return f"`kingme egdb build --pieces {self.target} --dir {self.directory}`"

    def _refuse(self, shortage: str, held: int) -> None:
        self.state, self.error = State.REFUSED, f"not building the {self.target}-piece set: {shortage}"
        log.warning(
            "endgame tables: not building the %d-piece set in %s: %s. Play goes on with %s; build it by hand"
            " once there is room with %s, or set KINGME_EGDB_PIECES=4 to stop this check",
            self.target,
            self.directory,
            shortage,
            _set(held),
            self._by_hand(),
        )

    def _fail(self, why: str, held: int) -> None:
        self.state, self.error = State.FAILED, why
        log.warning(
            "endgame tables: the %d-piece set was not built: %s. Play goes on with %s; %s builds it by hand"
            " (resuming at the table it stopped on)",
            self.target,
            why,
            _set(held),
            self._by_hand(),
        )

    def _building_elsewhere(self) -> None:
        if self.state != State.ELSEWHERE:
            log.info(
                "endgame tables: the %d-piece set is being built in %s by another process (it holds %s there);"
                " this server looks again every %.0f s",
                self.target,
                self.directory,
                LOCK_NAME,
                WATCH_SECONDS,
            )
        self.state = State.ELSEWHERE
        if self._watching is None:
            self._watching = asyncio.create_task(self._watch())

    async def _watch(self) -> None:
        """While another process builds, look again now and then (``start``): report the set
        when it is complete, or take the build over if it stopped unfinished."""
        while self.state == State.ELSEWHERE:
            await asyncio.sleep(WATCH_SECONDS)
            await self.start()
        self._watching = None

    async def _follow(self, run: BuildRun, lock: int) -> None:
        """Record and log the build's progress until it ends, then its outcome; the lock is
        released (this server's copy) when it ends."""
        logged = 0
        try:
            async for report in run.reports():
                self._progress = report
                step = int(report.done / report.total / LOG_STEP)
                if step > logged:
                    logged = step
                    log.info(
                        "endgame tables: %d%% of the %d-piece set built (table %s)",
                        round(100 * report.done / report.total),
                        self.target,
                        report.table,
                    )
            error = await run.outcome()
        finally:
            os.close(lock)
        held = egdb.largest_built(self.directory)
        if self._stopping:
            self.state = State.STOPPED
            log.info("endgame tables: the build stopped with the server; the next start resumes it")
        elif error is not None:
            self._fail(error, held)
        else:
            self.state = State.COMPLETE
            log.info(
                "endgame tables: the %d-piece set is built in %s; the engine workers take it up at their next search",
                self.target,
                self.directory,
            )


async def egdb_status(request: Request) -> JSONResponse:
    """``GET /api/egdb``: the endgame tables and their background build (``TableBuilder.status``)."""
    builder: TableBuilder = request.app.state.endgame_tables
    return JSONResponse(builder.status())


ROUTES = [Route("/api/egdb", egdb_status, methods=["GET"])]


def extension(
    settings: Settings, *, launch: Launch = launch_child, machine: Callable[[Path], Machine] = machine_figures
) -> Extension:
    """The endgame tables as a part of the app (``kingme.server.app.EXTENSIONS``): the build
    starts with the server and stops with it."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # The small set needs no background build: the engine builds it on first use anyway.
        target = settings.egdb_pieces if settings.egdb_pieces > egdb.SMALL_PIECES else 0
        builder = TableBuilder(egdb.default_directory(), target, launch=launch, machine=machine)
        app.state.endgame_tables = builder
        await builder.start()
        try:
            yield
        finally:
            await builder.close()

    return Extension("endgame tables", ROUTES, lifespan)


def show_log() -> None:
    """Print the build's log lines on stderr, each after ``kingme:``, whatever uvicorn's log level
    (``kingme serve``): a handful of lines over a build, and an operator wants to see them."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("kingme: %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False

"""EnginePool: the same moves as choose_move, computed in other processes, cancellable."""

from __future__ import annotations

import asyncio
import errno
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from async_support import run
from waiting import WAIT_SECONDS, until, wait_until

from kingme.engine import choose_move, hint
from kingme.engine.pool import EnginePool
from kingme.game import Game, Setup
from kingme.rules import KingmeError


@pytest.fixture(scope="module")
def pool():
    engine_pool = EnginePool(workers=1)
    yield engine_pool
    engine_pool.close()


def test_the_pool_returns_the_same_move_as_choose_move(pool: EnginePool) -> None:
    game = Game(Setup(seed="pool"), ["11-15", "23-19", "8-11"])

    async def ask() -> list[str]:
        return [await pool.choose_move(game.record(), level) for level in ("random", "club", "strong")]

    assert run(ask()) == [str(choose_move(game, level)) for level in ("random", "club", "strong")]


def test_the_pool_hint_is_the_full_route(pool: EnginePool) -> None:
    game = Game(Setup.named("double-jump"))
    assert run(pool.hint(game.record())) == str(hint(game)) == "9x18x27"


def test_bad_records_and_levels_are_refused_with_a_clear_error(pool: EnginePool) -> None:
    with pytest.raises(KingmeError, match="unknown level"):
        run(pool.choose_move(Game().record(), "wizard"))
    with pytest.raises(KingmeError, match="move 1"):
        run(pool.choose_move({"setup": {}, "moves": ["1-2"]}, "club"))
    finished = Game(Setup.named("double-jump"), ["9x18x27"]).record()
    with pytest.raises(KingmeError, match="over"):
        run(pool.choose_move(finished, "club"))


def test_cancelling_work_returns_while_the_work_still_runs_and_the_worker_then_serves_again(
    pool: EnginePool, tmp_path: Path
) -> None:
    # The work reads a pipe that nothing writes to: it never ends by itself, so a cancellation
    # that waited for it would never return. The pool's one worker runs it to its end once the
    # pipe is closed (a search is never stopped halfway, the module says why), then serves again.
    record = Game(Setup(seed="cancel")).record()
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)

    async def cancel_then_ask() -> str:
        await pool.choose_move(record, "random")  # the worker is warm: it takes the work at once
        work = asyncio.create_task(pool.run(Path.read_text, pipe))
        writer = await opened_by_a_reader(pipe)  # the worker is inside the work
        try:
            work.cancel()
            with pytest.raises(asyncio.CancelledError):
                async with asyncio.timeout(WAIT_SECONDS):  # a bound only: a pool that waited would wait for ever
                    await work
        finally:
            os.close(writer)  # the work reads the pipe's end and returns; its result is thrown away
        return await pool.choose_move(record, "random")

    assert run(cancel_then_ask()) == str(choose_move(Game(Setup(seed="cancel")), "random"))


async def opened_by_a_reader(pipe: Path) -> int:
    """A descriptor that writes to the named ``pipe``, opened once a reader has opened it."""
    opened: list[int] = []

    def reader_there() -> bool:
        try:
            opened.append(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        except OSError as error:
            if error.errno != errno.ENXIO:  # ENXIO: nobody reads it yet
                raise
        return bool(opened)

    await until(reader_there, "the worker began reading the pipe")
    return opened[0]


def test_the_workers_leave_when_the_process_that_owns_the_pool_is_killed(tmp_path) -> None:
    code = (
        "import asyncio, os, time\n"
        "from kingme.engine.pool import EnginePool\n"
        "from kingme.game import Game\n"
        "pool = EnginePool(workers=1)\n"
        "asyncio.run(pool.choose_move(Game().record(), 'random'))\n"
        "print(' '.join(str(p.pid) for p in pool._executor._processes.values()), flush=True)\n"
        "time.sleep(60)\n"
    )
    owner = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        workers = [int(pid) for pid in owner.stdout.readline().split()]  # type: ignore[union-attr]
        assert workers
        os.kill(owner.pid, signal.SIGKILL)
        owner.wait()
        # Each worker looks for its parent every second (``_watch_parent``).
        wait_until(lambda: not any(_alive(pid) for pid in workers), "the workers left")
    finally:
        owner.kill()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True

"""EnginePool: the same moves as choose_move, computed in other processes, cancellable."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time

import pytest
from async_support import run

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


def test_cancelling_a_search_returns_at_once_and_the_pool_keeps_working(pool: EnginePool) -> None:
    record = Game(Setup(seed="cancel")).record()

    async def cancel_then_ask() -> tuple[float, str]:
        task = asyncio.create_task(pool.choose_move(record, "master"))
        await asyncio.sleep(0.05)
        started = time.perf_counter()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        waited = time.perf_counter() - started
        return waited, await pool.choose_move(record, "random")

    waited, move = run(cancel_then_ask())
    assert waited < 0.5
    assert move == str(choose_move(Game(Setup(seed="cancel")), "random"))


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
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(_alive(pid) for pid in workers):
            time.sleep(0.2)
        assert not any(_alive(pid) for pid in workers)
    finally:
        owner.kill()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True

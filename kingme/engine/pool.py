"""``EnginePool``: engine work for the server, off the event loop, in worker processes.

A search takes up to a couple of seconds of CPU; run in the server's process it would freeze
every other game and page. The pool runs ``choose_move`` in separate processes started with the
``spawn`` method (never ``fork``: the server has threads and an event loop), each compiling or
loading the numba core once when it starts (``warm_up``), so no player waits for compilation.

Cancelling: when the awaiting task is cancelled (undo, resign, game closed), the await returns at
once and the event loop is never blocked. A search still waiting in the queue is dropped; one
already running finishes inside its worker (it is bounded by its node budget, at most about two
seconds at the master level) and its result is thrown away. Workers exit by themselves within a
second or so if the server process dies without closing the pool.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

from kingme.engine.levels import check_level
from kingme.engine.player import choose_move, hint, warm_up
from kingme.game import Game

T = TypeVar("T")


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def _start_worker(parent: int) -> None:
    """Worker start-up: ignore Ctrl-C, warm the engine, and leave as soon as the server process is
    gone — a server killed outright would otherwise leave its workers waiting on their queue
    forever. A terminal's Ctrl-C reaches every process of the command: the server stops and
    closes the pool, which ends the workers, so the operator sees the server's one line rather
    than a traceback from each worker (as a match's workers do, ``kingme.engine.match``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    warm_up()


def _choose_from_record(record: dict[str, Any], level: str) -> str:
    return str(choose_move(Game.from_record(record), level))


def _hint_from_record(record: dict[str, Any]) -> str:
    return str(hint(Game.from_record(record)))


class EnginePool:
    """A pool of ``workers`` engine processes; await ``choose_move`` / ``hint`` from asyncio code."""

    def __init__(self, workers: int = 2) -> None:
        if not isinstance(workers, int) or workers < 1:
            raise ValueError("an engine pool needs at least one worker")
        self.workers = workers
        context = multiprocessing.get_context("spawn")
        self._executor = ProcessPoolExecutor(
            max_workers=workers, mp_context=context, initializer=_start_worker, initargs=(os.getpid(),)
        )

    async def choose_move(self, record: dict[str, Any], level: str) -> str:
        """The computer's move (full path, e.g. ``9x18x27``) in the game ``record`` at ``level``.

        Raises ``KingmeError`` for a bad record, an unknown level or a finished game.
        """
        check_level(level)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, _choose_from_record, record, level)

    async def hint(self, record: dict[str, Any]) -> str:
        """A suggested move for the side to move in ``record`` (full path)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, _hint_from_record, record)

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in a worker: any engine work of a layer above (a review's
        positions, the analysis board's lines). ``function`` must be a module-level function and
        its arguments and result picklable; it runs beside the moves of other games, so a caller
        that queues many calls limits how many it keeps in flight (``workers`` says how many run
        at once)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, function, *args)

    def close(self) -> None:
        """Stop the workers; queued searches are cancelled, a running one is not waited for."""
        self._executor.shutdown(wait=False, cancel_futures=True)

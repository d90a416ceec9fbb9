"""``kingme bench review``: figures for game review (and the analysis board), printed, never asserted.

Every part runs against a real ``EnginePool`` with the server's default number of workers,
warmed up first (each worker compiles or loads the engine and the endgame tables once, as the
server's do at start-up), through the server's own scheduling (``searched_in_order``, at most
max(1, workers − 1) positions in flight). The game is ``BENCH_MOVES``, 60 plies (``--plies``
reviews fewer).

Each part is one entry of ``PARTS``: a function of the pool and the number of workers that prints
its own lines; the analysis board's figures are one more entry.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from kingme.cli.arguments import plural, whole_number
from kingme.game import Game, Setup
from kingme.review.budgets import BUDGETS, DEFAULT_BUDGET, Budget
from kingme.server.settings import Settings

if TYPE_CHECKING:
    from kingme.engine.pool import EnginePool

#: 60 plies of the club level against itself (seed ``review-bench``): mistakes on both sides,
#: captures forced and free, a king by the end — the kind of game a review is asked for.
BENCH_MOVES = (
    "11-15 22-18 15x22 25x18 10-15 18x11 8x15 29-25 6-10 25-22 4-8 23-19 8-11 26-23 1-6 23-18 9-14 18x9 5x14 22-17 "
    "3-8 31-26 6-9 17-13 15-18 13x6 2x9 24-20 9-13 27-23 18x27 32x23 11-15 19-16 12x19 23x16 8-12 16-11 7x16 20x11 "
    "15-18 11-7 18-22 26x17 13x22 7-3 12-16 3-7 16-19 21-17 14x21 7x14 22-25 14-17 19-23 17-22 25-29 22-18 23-27 28-24"
)

#: An ending the 4-piece tables hold: searching it loads the engine and the tables, and nothing else.
WARM_UP_FEN = "B:WK18:B10,K1"


def _say(text: str) -> None:
    print(text, flush=True)


def _game(plies: int) -> Game:
    return Game(Setup(seed="review-bench"), BENCH_MOVES.split()[:plies])


async def _timed_review(pool: EnginePool, budget: Budget, slots: int, plies: int) -> tuple[float, float]:
    """Wall seconds to the first judged move and to the whole review of ``BENCH_MOVES``' first ``plies``."""
    from kingme.review.review import Reviewer
    from kingme.server.review import searched_in_order

    reviewer = Reviewer(_game(plies))
    started = time.perf_counter()
    first = 0.0
    async for search in searched_in_order(pool, reviewer.positions, budget, asyncio.Semaphore(slots)):
        if reviewer.add(search) is not None and not first:
            first = time.perf_counter() - started
    return first, time.perf_counter() - started


def _review_walls(pool: EnginePool, workers: int, plies: int) -> None:
    from kingme.server.review import review_slots

    slots = review_slots(workers)
    for name, budget in BUDGETS.items():
        default = " (the default)" if name == DEFAULT_BUDGET else ""
        _say(f"{name} review{default}, {budget.nodes:,} nodes a position, {plural(slots, 'worker')} of {workers}…")
        first, whole = asyncio.run(_timed_review(pool, budget, slots, plies))
        _say(f"  first verdict after {first:.2f} s, the game's {plural(plies, 'ply', 'plies')} in {whole:.1f} s (wall)")


def _reviews_per_core(pool: EnginePool, workers: int, plies: int) -> None:
    """A review's CPU time in this process (one core, no pool): what a core serves, however busy
    the machine is."""
    from kingme.review.review import review_game

    budget = BUDGETS[DEFAULT_BUDGET]
    _say(f"{DEFAULT_BUDGET} review in this process, for the CPU time of one review…")
    for _ in review_game(Game(Setup(fen=WARM_UP_FEN), ["1-5"]), budget):  # the engine and tables loaded first
        pass
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in review_game(_game(plies), budget):
        pass
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    game = plural(plies, "ply", "plies")
    _say(f"  {cpu:.1f} CPU s ({wall:.1f} s wall): a core serves {1 / cpu:.2f} reviews of {game} a second")


#: The analysis board's positions: the bench game's start, and after 20 and 40 of its plies (a
#: middle game, and an ending of kings).
ANALYSIS_PLIES = (0, 20, 40)
#: Seconds of analysis after which the depth reached is shown.
ANALYSIS_MARKS = (1.0, 2.0, 3.0)


async def _analysed(pool: EnginePool, fen: str) -> tuple[float, list[int]]:
    """Seconds to the analysis board's first lines of ``fen`` and the depth completed at each of
    ``ANALYSIS_MARKS``, streamed as the server streams them (one pool call a depth)."""
    import json

    from kingme.review.lines import MAX_LINES
    from kingme.server.analysis import Ticket, stream_lines

    started = time.perf_counter()
    reached: list[tuple[float, int]] = []

    async def gone() -> bool:  # the page stops it after the last mark
        return time.perf_counter() - started >= ANALYSIS_MARKS[-1]

    async for text in stream_lines(pool, Ticket("bench"), fen, MAX_LINES, gone):
        reached.append((time.perf_counter() - started, json.loads(text)["depth"]))
    depths = [max((depth for when, depth in reached if when <= mark), default=0) for mark in ANALYSIS_MARKS]
    return (reached[0][0] if reached else 0.0), depths


def _analysis_board(pool: EnginePool, workers: int, plies: int) -> None:
    """The analysis board's three lines: the first lines' wall time and the depth after 1, 2, 3 s."""
    del workers, plies  # one stream, whatever the review's game
    for ply in ANALYSIS_PLIES:
        game = _game(ply)
        first, depths = asyncio.run(_analysed(pool, game.board.fen()))
        marks = ", ".join(f"{depth} after {mark:g} s" for mark, depth in zip(ANALYSIS_MARKS, depths, strict=True))
        _say(f"analysis board after {plural(ply, 'ply', 'plies')}: first lines after {first:.2f} s; depth {marks}")


#: The parts of the bench, in order: each takes the warmed pool, its number of workers and the plies
#: of ``BENCH_MOVES`` to review.
PARTS: tuple[Callable[[EnginePool, int, int], None], ...] = (_review_walls, _reviews_per_core, _analysis_board)


def _warm(pool: EnginePool, workers: int) -> None:
    """Start every worker and load its engine and tables, as the server does at start-up."""
    from kingme.review.review import positions, search_position

    ending = positions(Setup(fen=WARM_UP_FEN), [])[0]
    budget = BUDGETS[DEFAULT_BUDGET]

    async def warm() -> None:
        await asyncio.gather(*(pool.run(search_position, ending, budget) for _ in range(workers)))

    asyncio.run(warm())


def _run(args: argparse.Namespace) -> int:
    from kingme.engine.pool import EnginePool

    workers = Settings.from_env().engine_workers
    _say(f"starting {plural(workers, 'engine worker')} (the server's default) and warming them up…")
    pool = EnginePool(workers)
    try:
        _warm(pool, workers)
        for part in PARTS:
            part(pool, workers, args.plies)
    finally:
        pool.close()
    return 0


def bench_review_options(parser: argparse.ArgumentParser) -> None:
    plies = len(BENCH_MOVES.split())
    parser.add_argument(
        "--plies",
        type=whole_number(1, plies, f"the bench game has {plies}"),
        default=plies,
        help=f"review only the bench game's first plies (default all {plies})",
    )
    parser.set_defaults(run=_run)

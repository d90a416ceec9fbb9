"""``kingme bench engine``: figures for the engine's speed, printed, never asserted.

Without ``--levels`` it measures everything on fixed positions — the start position for perft,
the positions after the first N three-move ballots for the rest: the compiled move generator's
perft speed, the search's nodes per second and depth under the master budget, each level's
median and 95th-percentile time per move, and how much of the tactics suite strong and master
solve. With ``--levels`` it runs only what concerns those levels (their time per move, and the
tactics suite for those that are strong or master), and warms the compiled core up only when
one of them searches. Each part says what it is doing before it starts, since the whole takes
minutes.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from kingme.cli.arguments import plural, whole_number
from kingme.cli.engine_commands import level
from kingme.engine import LEVELS
from kingme.engine.levels import PLANS
from kingme.game import Game

#: Perft from the start to this depth: about a second of work for the compiled generator, long
#: enough to time, short enough for a benchmark that runs every part.
PERFT_DEPTH = 11
#: The levels the tactics suite is meant for: the weaker ones miss tactics on purpose.
TACTICS_LEVELS = ("strong", "master")


@dataclass
class _Seconds:
    """CPU and wall seconds: on a shared machine the CPU time is what the engine would take on
    an idle core, the wall time what a player waited."""

    cpu: float = 0.0
    wall: float = 0.0


@contextmanager
def _timed() -> Iterator[_Seconds]:
    """The seconds the block took, filled in when it ends."""
    seconds = _Seconds()
    wall, cpu = time.perf_counter(), time.process_time()
    yield seconds
    seconds.cpu, seconds.wall = time.process_time() - cpu, time.perf_counter() - wall


def _say(text: str) -> None:
    print(text, flush=True)


def _perft() -> None:
    from kingme.engine import movegen
    from kingme.rules import Board

    board, buffer = Board(), movegen.work_array()
    _say(f"engine perft 1..{PERFT_DEPTH} from the start…")
    with _timed() as took:
        total = sum(
            movegen.perft(board.black, board.white, 0, True, d, True, buffer, 0) for d in range(1, PERFT_DEPTH + 1)
        )
    _say(
        f"  {plural(total, 'position')}, {total / took.cpu / 1e6:.1f} M per CPU second "
        f"({total / took.wall / 1e6:.1f} M per wall second)"
    )


def _search(games: list[Game]) -> None:
    from kingme.engine.analysis import analyse

    master = PLANS["master"]
    _say(f"search under the master budget on {plural(len(games), 'ballot position')}…")
    nodes, depths = 0, []
    with _timed() as took:
        for game in games:
            result = analyse(game, master.depth, master.nodes, table_bits=master.table_bits)
            nodes += result.nodes
            depths.append(result.depth)
    _say(
        f"  {nodes / took.cpu / 1e6:.2f} M nodes per CPU second ({nodes / took.wall / 1e6:.2f} M per wall second), "
        f"depth reached median {statistics.median(depths):g} (min {min(depths)}, max {max(depths)})"
    )


def _p95(values: list[float]) -> float:
    return sorted(values)[min(len(values) - 1, round(0.95 * (len(values) - 1)))]


def _time_per_move(games: list[Game], levels: list[str]) -> None:
    from kingme.engine import choose_move
    from kingme.engine.player import think

    _say(f"time per move on {plural(len(games), 'ballot position')}, s:  CPU median   CPU p95   wall median  wall p95")
    for name in levels:
        cpu: list[float] = []
        wall: list[float] = []
        for game in games:
            with _timed() as took:
                # The positions after the ballots are the opening book's: time the search instead.
                choose_move(game, name) if name == "random" else think(game, name, book=False)
            cpu.append(took.cpu)
            wall.append(took.wall)
        _say(
            f"  {name:18} {statistics.median(cpu):10.3f} {_p95(cpu):9.3f} "
            f"{statistics.median(wall):13.3f} {_p95(wall):9.3f}"
        )


def _tactics(levels: list[str]) -> None:
    from kingme.engine.tactics import load_tactics, solves

    tactics = load_tactics()
    for name in levels:
        _say(f"tactics suite, {name}…")
        with _timed() as took:
            solved = sum(solves(tactic, name) for tactic in tactics)
        _say(f"  {solved}/{len(tactics)} solved in {took.cpu:.1f} CPU s ({took.wall:.1f} wall s)")


def _run(args: argparse.Namespace) -> int:
    from kingme.engine.ballots import ballot_positions
    from kingme.engine.player import warm_up

    everything = args.levels is None
    levels: list[str] = list(LEVELS) if everything else list(dict.fromkeys(args.levels))
    if everything or any(name in PLANS for name in levels):
        _say("warming up (loading or compiling the numba core; a fresh compile takes 15-20 s)…")
        with _timed() as took:
            warm_up()
        _say(f"  {took.wall:.2f} s")
    games = ballot_positions(args.positions)
    if everything:
        _perft()
        _search(games)
    _time_per_move(games, levels)
    _tactics([name for name in levels if name in TACTICS_LEVELS])
    _say("(CPU seconds are the engine's own work; wall seconds grow when the machine is shared)")
    return 0


def bench_engine_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--positions", type=whole_number(1), default=20, help="test positions per level (default 20)")
    parser.add_argument(
        "--levels",
        nargs="+",
        type=level,
        metavar="LEVEL",
        help="only these levels: their time per move (and the tactics suite for strong and master); "
        "default: every figure, every level",
    )
    parser.set_defaults(run=_run)

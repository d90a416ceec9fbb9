"""``kingme bench engine``: figures for the engine's speed, printed, never asserted.

On fixed positions — the start position for perft, and the positions after the first N
three-move ballots for searches — it prints the compiled move generator's perft speed, the
search's nodes per second and depth reached under the master budget, each level's median
and 95th-percentile time per move, and how much of the tactics suite strong and master solve.
"""

from __future__ import annotations

import statistics
import time

from kingme.engine import movegen
from kingme.engine.analysis import analyse
from kingme.engine.levels import PLANS
from kingme.engine.match import ballot_openings
from kingme.engine.player import choose_move, warm_up
from kingme.engine.tactics import load_tactics, solves
from kingme.game import Game
from kingme.rules import Board

PERFT_DEPTH = 11


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def bench_positions(count: int) -> list[Game]:
    """The positions after the first ``count`` ballots (White to move)."""
    return [Game(moves=moves) for _, moves in ballot_openings()[:count]]


class _Clock:
    """Wall-clock and CPU seconds of a block: on a shared machine the CPU time is what the
    engine would take on an idle core, the wall time what a player waited."""

    def __enter__(self) -> _Clock:
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *_: object) -> None:
        self.wall = time.perf_counter() - self._wall
        self.cpu = time.process_time() - self._cpu


def run_bench(positions: int, levels: list[str]) -> int:
    with _Clock() as clock:
        warm_up()
    print(f"warm-up (load or compile the numba core): {clock.wall:.2f} s")

    board = Board()
    buffer = movegen.work_array()
    with _Clock() as clock:
        total = sum(
            movegen.perft(board.black, board.white, 0, True, d, True, buffer, 0) for d in range(1, PERFT_DEPTH + 1)
        )
    print(
        f"engine perft 1..{PERFT_DEPTH} from the start: {total:,} positions, "
        f"{total / clock.cpu / 1e6:.1f} M positions per CPU second ({total / clock.wall / 1e6:.1f} M per wall second)"
    )

    games = bench_positions(positions)
    master = PLANS["master"]
    nodes, cpu, wall, depths = 0, 0.0, 0.0, []
    for game in games:
        with _Clock() as clock:
            result = analyse(game, master.depth, master.nodes, table_bits=master.table_bits)
        cpu, wall = cpu + clock.cpu, wall + clock.wall
        nodes += result.nodes
        depths.append(result.depth)
    print(
        f"search ({len(games)} ballot positions, master budget): {nodes / cpu / 1e6:.2f} M nodes per CPU second "
        f"({nodes / wall / 1e6:.2f} M per wall second), depth reached median {statistics.median(depths):.0f} "
        f"(min {min(depths)}, max {max(depths)})"
    )

    print("time per move, s:      CPU median   CPU p95   wall median  wall p95")
    for level in levels:
        cpu_times, wall_times = [], []
        for game in games:
            with _Clock() as clock:
                choose_move(game, level)
            cpu_times.append(clock.cpu)
            wall_times.append(clock.wall)
        print(
            f"  {level:18} {statistics.median(cpu_times):10.3f} {_percentile(cpu_times, 0.95):9.3f} "
            f"{statistics.median(wall_times):13.3f} {_percentile(wall_times, 0.95):9.3f}"
        )
    tactics = load_tactics()
    for level in ("strong", "master"):
        with _Clock() as clock:
            solved = sum(solves(tactic, level) for tactic in tactics)
        print(
            f"tactics suite, {level}: {solved}/{len(tactics)} solved in {clock.cpu:.1f} CPU s ({clock.wall:.1f} wall s)"
        )
    print("(CPU seconds are the engine's own work; wall seconds grow when the machine is shared)")
    return 0

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


def run_bench(positions: int, levels: list[str]) -> int:
    started = time.perf_counter()
    warm_up()
    print(f"warm-up (load or compile the numba core): {time.perf_counter() - started:.2f} s")

    board = Board()
    buffer = movegen.work_array()
    started = time.perf_counter()
    total = sum(movegen.perft(board.black, board.white, 0, True, d, True, buffer, 0) for d in range(1, PERFT_DEPTH + 1))
    elapsed = time.perf_counter() - started
    print(
        f"engine perft 1..{PERFT_DEPTH} from the start: {total:,} positions, {total / elapsed / 1e6:.1f} M positions/s"
    )

    games = bench_positions(positions)
    master = PLANS["master"]
    nodes, seconds, depths = 0, 0.0, []
    for game in games:
        started = time.perf_counter()
        result = analyse(game, master.depth, master.nodes, table_bits=master.table_bits)
        seconds += time.perf_counter() - started
        nodes += result.nodes
        depths.append(result.depth)
    print(
        f"search ({len(games)} ballot positions, master budget): {nodes / seconds / 1e6:.2f} M nodes/s, "
        f"depth reached median {statistics.median(depths):.0f} (min {min(depths)}, max {max(depths)})"
    )

    print("time per move (s):")
    print(f"{'level':10} {'median':>8} {'p95':>8} {'max':>8}")
    for level in levels:
        times = []
        for game in games:
            started = time.perf_counter()
            choose_move(game, level)
            times.append(time.perf_counter() - started)
        print(f"{level:10} {statistics.median(times):8.3f} {_percentile(times, 0.95):8.3f} {max(times):8.3f}")
    tactics = load_tactics()
    for level in ("strong", "master"):
        started = time.perf_counter()
        solved = sum(solves(tactic, level) for tactic in tactics)
        elapsed = time.perf_counter() - started
        print(f"tactics suite, {level}: {solved}/{len(tactics)} solved in {elapsed:.1f} s")
    print("(the machine is shared: figures vary from run to run)")
    return 0

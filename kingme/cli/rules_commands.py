"""Commands of the rules and game layers: ``perft``, ``moves``, ``pdn`` and ``bench movegen``.

None of them needs the engine, so this module imports nothing of it (they start without numba).
"""

from __future__ import annotations

import argparse
import sys
import time

from kingme.cli.arguments import add_position, add_variant, plural, printable, whole_number
from kingme.rules import Board, bitboard

#: The deepest perft: the counts grow about fivefold a ply, and depth 15 already takes hours.
MAX_PERFT_DEPTH = 15
_perft_depth = whole_number(1, MAX_PERFT_DEPTH, "deeper counts take days in pure Python")


def perft(board: Board, depth: int) -> int:
    """Leaf positions ``depth`` plies ahead of ``board``, every capture route counted."""
    own, opp = board.sides()
    return bitboard.perft(own, opp, board.kings, board.black_to_move, depth, board.variant.captures_compulsory)


def _run_perft(args: argparse.Namespace) -> int:
    board = Board(args.fen, args.variant)
    total, started = 0, time.perf_counter()
    for depth in range(1, args.depth + 1):
        count = perft(board, depth)
        total += count
        print(f"depth {depth}: {count}", flush=True)
    elapsed = time.perf_counter() - started
    print(f"{total / elapsed:,.0f} positions/s ({plural(total, 'position')} in {elapsed:.2f} s)")
    return 0


def _run_moves(args: argparse.Namespace) -> int:
    board = Board(args.fen, args.variant)
    moves = board.legal_moves()
    for move in moves:
        print(move)
    if not moves:
        print(f"{board.turn} has no legal move")
    return 0


def _run_pdn(args: argparse.Namespace) -> int:
    """One line per game: players, moves, result and ``OK`` or the first problem; status 2 if
    any game fails. A file that cannot be read at all raises, and ``main`` prints one line."""
    from kingme.game.pdn import game_from_pdn, read_pdn_file
    from kingme.rules.errors import PdnError
    from kingme.rules.pdn import read_pdn

    games = read_pdn(read_pdn_file(args.file))
    failed = 0
    for pdn in games:
        players = f"{printable(pdn.tags.get('Black', '?'))} - {printable(pdn.tags.get('White', '?'))}"
        summary = f"game {pdn.number}: {players}, {plural(len(pdn.moves), 'move')}, {pdn.result}"
        try:
            game_from_pdn(pdn)
        except PdnError as error:
            failed += 1
            print(f"{summary}, FAILED: {error}")
        else:
            print(f"{summary}, OK")
    if failed:
        print(f"kingme: error: {failed} of {plural(len(games), 'game')} in {args.file} failed", file=sys.stderr)
        return 2
    return 0


def _run_bench_movegen(args: argparse.Namespace) -> int:
    board = Board(variant=args.variant)
    runs = plural(args.repeat, "run")
    print(f"perft({args.depth}) from the start position, pure-Python rules core, best of {runs}", flush=True)
    best = float("inf")
    count = 0
    for _ in range(args.repeat):
        started = time.perf_counter()
        count = perft(board, args.depth)
        best = min(best, time.perf_counter() - started)
    print(f"positions: {count:,}")
    print(f"time: {best:.2f} s")
    print(f"positions/s: {count / best:,.0f}")
    return 0


def perft_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "depth", type=_perft_depth, metavar="DEPTH", help=f"plies to look ahead (1 to {MAX_PERFT_DEPTH})"
    )
    add_position(parser)
    parser.set_defaults(run=_run_perft)


def moves_options(parser: argparse.ArgumentParser) -> None:
    add_position(parser)
    parser.set_defaults(run=_run_moves)


def pdn_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE")
    parser.set_defaults(run=_run_pdn)


def bench_movegen_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--depth", type=_perft_depth, default=9, help="plies to count (default 9)")
    parser.add_argument("--repeat", type=whole_number(1), default=3, help="runs to take the best of (default 3)")
    add_variant(parser)
    parser.set_defaults(run=_run_bench_movegen)

"""Subcommands of the rules layer: ``perft``, ``moves``, ``pdn`` and ``bench movegen``."""

from __future__ import annotations

import argparse
import time

from kingme.rules import Board, bitboard
from kingme.rules.fen import START_FEN

MAX_PERFT_DEPTH = 15


def _depth(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= MAX_PERFT_DEPTH:
        raise argparse.ArgumentTypeError(f"depth must be a whole number from 1 to {MAX_PERFT_DEPTH}, not {text!r}")
    return int(text)


def perft(board: Board, depth: int) -> int:
    """Leaf positions ``depth`` plies ahead of ``board``, every capture route counted."""
    own, opp = (board.black, board.white) if board.black_to_move else (board.white, board.black)
    return bitboard.perft(own, opp, board.kings, board.black_to_move, depth, board.variant.captures_compulsory)


def _run_perft(args: argparse.Namespace) -> int:
    board = Board(args.fen, args.variant)
    total, started = 0, time.perf_counter()
    for depth in range(1, args.depth + 1):
        count = perft(board, depth)
        total += count
        print(f"depth {depth}: {count}", flush=True)
    elapsed = time.perf_counter() - started
    print(f"{total / elapsed:,.0f} positions/s ({total:,} positions in {elapsed:.2f} s)")
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
    # Replaying needs the game layer (results, the end of the game), hence kingme.game.pdn.
    from kingme.game.pdn import check_file

    return check_file(args.file)


def _run_bench_movegen(args: argparse.Namespace) -> int:
    board = Board(variant=args.variant)
    print(f"perft({args.depth}) from the start position, pure-Python rules core, best of {args.repeat}")
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


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("perft", help="count positions DEPTH plies ahead (move generator check)")
    p.add_argument("depth", type=_depth, metavar="DEPTH")
    p.add_argument("--fen", default=START_FEN, help="start position in PDN FEN (default: the standard start)")
    p.add_argument("--variant", default="american", help="american (default) or casual")
    p.set_defaults(run=_run_perft)

    p = commands.add_parser("moves", help="list the legal moves of a position")
    p.add_argument("--fen", default=START_FEN, help="position in PDN FEN")
    p.add_argument("--variant", default="american", help="american (default) or casual")
    p.set_defaults(run=_run_moves)

    p = commands.add_parser("pdn", help="check a PDN file and replay its games")
    p.add_argument("file", metavar="FILE")
    p.set_defaults(run=_run_pdn)


def register_bench(targets: argparse._SubParsersAction) -> None:
    p = targets.add_parser("movegen", help="perft positions per second of the pure-Python rules core")
    p.add_argument("--depth", type=_depth, default=9)
    p.add_argument("--repeat", type=_depth, default=3)
    p.add_argument("--variant", default="american")
    p.set_defaults(run=_run_bench_movegen)

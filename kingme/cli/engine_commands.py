"""Subcommands of the engine layer: ``bestmove``, ``endgame``, ``match`` and ``bench engine``."""

from __future__ import annotations

import argparse
import time

from kingme.engine import LEVELS, choose_move
from kingme.game import DEFAULT_SEED, Game, Setup
from kingme.rules.fen import START_FEN


def _level(text: str) -> str:
    if text not in LEVELS:
        raise argparse.ArgumentTypeError(f"unknown level {text!r}; choose one of: {', '.join(LEVELS)}")
    return text


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, not {text!r}")
    return int(text)


def _run_bestmove(args: argparse.Namespace) -> int:
    from kingme.engine.player import think

    game = Game(Setup(args.variant, args.fen, args.seed))
    if not args.verbose or args.level == "random":
        print(choose_move(game, args.level))
        return 0
    result = think(game, args.level)
    print(f"move: {result.move}")
    print(f"depth: {result.depth}")
    print(f"score: {result.score:+d} (hundredths of a man, for {game.turn})")
    print(f"nodes: {result.nodes:,}")
    print(f"pv: {' '.join(str(move) for move in result.pv)}")
    return 0


def _run_endgame(args: argparse.Namespace) -> int:
    from kingme.engine.endgame import solve
    from kingme.rules import Board

    board = Board(args.fen, args.variant)
    started = time.perf_counter()
    table = solve(board)
    seconds = time.perf_counter() - started
    value = table.value(board)
    print(f"{board.fen()}: {_describe(value.outcome, value.plies, board.turn)}")
    for move in board.legal_moves():
        after = table.after(board, move)
        print(f"  {move!s:<12} {_describe(after.outcome, after.plies, board.turn)}")
    print(f"{len(table):,} positions solved in {seconds:.1f} s ({len(table) / max(seconds, 1e-9):,.0f} a second)")
    return 0


def _describe(outcome: str, plies: int, side: str) -> str:
    return "draw" if outcome == "draw" else f"{side} {'wins' if outcome == 'win' else 'loses'} in {plies} plies"


def _run_match(args: argparse.Namespace) -> int:
    from kingme.engine.match import ballot_openings, run_match

    openings = min(args.openings, len(ballot_openings()))
    print(
        f"{args.a} vs {args.b}: {openings} three-move ballots, each played with both colours ({args.variant})",
        flush=True,
    )
    started = time.perf_counter()
    result = run_match(args.a, args.b, openings, args.workers, args.variant, lambda line: print(line, flush=True))
    print(f"games: {result.games}  {args.a} wins: {result.wins}  draws: {result.draws}  losses: {result.losses}")
    print(f"score of {args.a}: {100 * result.score:.1f}%")
    print(f"Elo difference: {result.describe_elo()}")
    print(f"time: {time.perf_counter() - started:.0f} s")
    return 0


def _run_bench_engine(args: argparse.Namespace) -> int:
    from kingme.engine.bench import run_bench

    return run_bench(args.positions, args.levels)


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``bestmove``, ``endgame`` and ``match``."""
    p = commands.add_parser("bestmove", help="the computer's move in a position")
    p.add_argument("--fen", default=START_FEN, help="position in PDN FEN (default: the standard start)")
    p.add_argument("--level", type=_level, default="master", help=f"one of {', '.join(LEVELS)} (default master)")
    p.add_argument("--seed", default=DEFAULT_SEED, help=f"replay seed (default {DEFAULT_SEED})")
    p.add_argument("--variant", default="american", help="american (default) or casual")
    p.add_argument("--verbose", action="store_true", help="also print depth, score, nodes and principal variation")
    p.set_defaults(run=_run_bestmove)

    p = commands.add_parser("endgame", help="the exact value of an ending of at most 6 pieces, and of each move")
    p.add_argument("--fen", required=True, help="position in PDN FEN")
    p.add_argument("--variant", default="american", help="american (default) or casual")
    p.set_defaults(run=_run_endgame)

    p = commands.add_parser("match", help="play two levels against each other over the 3-move ballots")
    p.add_argument("a", type=_level, metavar="LEVEL_A")
    p.add_argument("b", type=_level, metavar="LEVEL_B")
    p.add_argument("--openings", type=_positive, default=157, help="how many ballots (default all 157)")
    p.add_argument("--workers", type=_positive, default=2, help="processes to play in (default 2)")
    p.add_argument("--variant", default="american", help="american (default) or casual")
    p.set_defaults(run=_run_match)


def register_bench(targets: argparse._SubParsersAction) -> None:
    """Add ``bench engine``."""
    p = targets.add_parser("engine", help="engine perft, search speed and time per move of each level")
    p.add_argument("--positions", type=_positive, default=20, help="test positions per level (default 20)")
    p.add_argument("--levels", nargs="*", type=_level, default=list(LEVELS), help="levels to time (default all)")
    p.set_defaults(run=_run_bench_engine)

"""Subcommands of the engine layer: ``bestmove``, ``endgame``, ``match`` and ``bench engine``."""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

from kingme.engine import LEVELS, choose_move
from kingme.engine.match import ENGINE_PREFIX, Contestant
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


def _contestant(text: str) -> Contestant:
    """``LEVEL``, ``LEVEL@DIR`` (a level of the frozen copy of kingme in DIR) or ``engine:CMD``
    (a program speaking the kingme engine protocol); the node budget is set later."""
    if text.startswith(ENGINE_PREFIX):
        return Contestant.external(text.removeprefix(ENGINE_PREFIX))
    level, _, frozen = text.partition("@")
    return Contestant(_level(level), frozen=frozen or None)


def _sides(args: argparse.Namespace) -> tuple[Contestant, Contestant]:
    """The two contestants of ``kingme match``, B being ``--engine CMD`` when given, each with
    the match's node budget."""
    if (args.b is None) == (args.engine is None):
        raise ValueError("name the second contestant as LEVEL_B or as --engine CMD (one of them)")
    b = args.b or Contestant.external(args.engine)
    return replace(args.a, nodes=args.nodes), replace(b, nodes=args.nodes)


def _run_match(args: argparse.Namespace) -> int:
    from kingme.engine.match import ballot_openings, run_match

    a, b = _sides(args)
    openings = min(args.openings, len(ballot_openings()))
    budget = f", {args.nodes:,} nodes a move" if args.nodes else ""
    print(
        f"{a} vs {b}: {openings} three-move ballots, each played with both colours ({args.variant}{budget})",
        flush=True,
    )
    started = time.perf_counter()
    result = run_match(a, b, openings, args.workers, args.variant, lambda line: print(line, flush=True))
    print(f"games: {result.games}  {a} wins: {result.wins}  draws: {result.draws}  losses: {result.losses}")
    print(f"score of {a}: {100 * result.score:.1f}%")
    print(f"Elo difference: {result.describe_elo()}")
    print(f"time: {time.perf_counter() - started:.0f} s")
    return 0


def _selfplay_worker(job: tuple[str, int, int, int, int]) -> int:
    from kingme.engine.selfplay import generate

    directory, games, nodes, worker, workers = job
    return generate(Path(directory) / f"games-{worker}.txt", games, nodes, worker=worker, workers=workers)


def _run_tune_selfplay(args: argparse.Namespace) -> int:
    import multiprocessing

    Path(args.dir).mkdir(parents=True, exist_ok=True)
    print(f"playing {args.games:,} games at {args.nodes:,} nodes a move into {args.dir} (resumes where it stopped)")
    jobs = [(args.dir, args.games, args.nodes, worker, args.workers) for worker in range(args.workers)]
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        batches = sum(pool.map(_selfplay_worker, jobs))
    print(f"{batches} new batches of games written")
    return 0


def _run_tune_fit(args: argparse.Namespace) -> int:
    from kingme.engine import tuning

    paths = sorted(Path(args.dir).glob("games-*.txt"))
    if not paths:
        raise ValueError(f"no games in {args.dir}: run 'kingme tune selfplay --dir {args.dir}' first")
    train, held_out = tuning.build(paths)
    print(f"{len(train):,} training and {len(held_out):,} held-out quiet positions", flush=True)
    print(f"loss of always guessing the average: {tuning.baseline_loss(held_out):.5f}", flush=True)
    theta, _, held = tuning.fit(train, held_out, args.epochs, lambda line: print(line, flush=True))
    note = f"fitted by kingme tune fit on {len(train):,} positions; held-out loss {held:.5f}"
    output = Path(args.output or Path(tuning.__file__).parent / tuning.ev.WEIGHTS_FILE)
    tuning.write_weights(tuning.to_hundredths(theta), output, note)
    print(f"weights written to {output}")
    return 0


def _run_engine(args: argparse.Namespace) -> int:
    import sys

    from kingme.engine.protocol import serve

    sys.stdin.reconfigure(errors="replace")  # type: ignore[union-attr]  # bad bytes become an error reply
    serve(sys.stdin, sys.stdout)
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
    frozen = "; LEVEL@DIR is that level of the frozen copy of kingme in DIR; engine:CMD a protocol engine"
    p.add_argument("a", type=_contestant, metavar="LEVEL_A", help=f"a level{frozen}")
    p.add_argument("b", type=_contestant, metavar="LEVEL_B", nargs="?", help=f"a level{frozen}")
    p.add_argument("--engine", metavar="CMD", help="play A against this engine command (docs/engine-protocol.md)")
    p.add_argument("--nodes", type=_positive, help="nodes a move for both sides instead of the levels' budgets")
    p.add_argument("--openings", type=_positive, default=157, help="how many ballots (default all 157)")
    p.add_argument("--workers", type=_positive, default=2, help="processes to play in (default 2)")
    p.add_argument("--variant", default="american", help="american (default) or casual")
    p.set_defaults(run=_run_match)

    p = commands.add_parser("engine", help="speak the kingme engine protocol on stdin/stdout (docs/engine-protocol.md)")
    p.set_defaults(run=_run_engine)

    _register_tune(commands)


def _register_tune(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("tune", help="refit the evaluation to the results of engine games")
    steps = p.add_subparsers(dest="step", metavar="STEP", parser_class=type(p))
    steps.required = True
    s = steps.add_parser("selfplay", help="play engine games and record their positions (resumable)")
    s.add_argument("--games", type=_positive, default=20_000, help="games in all (default 20,000)")
    s.add_argument("--nodes", type=_positive, default=20_000, help="nodes a move (default 20,000)")
    s.add_argument("--dir", default="tune-data", help="where the games go (default ./tune-data)")
    s.add_argument("--workers", type=_positive, default=2, help="processes to play in (default 2)")
    s.set_defaults(run=_run_tune_selfplay)
    s = steps.add_parser("fit", help="fit the evaluation's weights to the recorded games")
    s.add_argument("--dir", default="tune-data", help="where the games are (default ./tune-data)")
    s.add_argument("--epochs", type=_positive, default=400, help="passes over the data (default 400)")
    s.add_argument("--output", help="weights file to write (default: the package's own, which the engine loads)")
    s.set_defaults(run=_run_tune_fit)


def register_bench(targets: argparse._SubParsersAction) -> None:
    """Add ``bench engine``."""
    p = targets.add_parser("engine", help="engine perft, search speed and time per move of each level")
    p.add_argument("--positions", type=_positive, default=20, help="test positions per level (default 20)")
    p.add_argument("--levels", nargs="*", type=_level, default=list(LEVELS), help="levels to time (default all)")
    p.set_defaults(run=_run_bench_engine)

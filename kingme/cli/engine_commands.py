"""Commands of the engine layer: ``bestmove``, ``endgame``, ``match``, ``engine`` and ``tune``.

The options are declared and checked with the engine's light modules (levels, ballots, the match's
contestants); the compiled search and its numba are imported by the command once it runs, so
``--help`` and a mistyped option answer at once (a test holds ``kingme match --help`` to that).
"""

from __future__ import annotations

import argparse
import functools
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from kingme.cli.arguments import (
    add_position,
    add_variant,
    check_output,
    fraction,
    number,
    plural,
    whole_number,
    write_whole,
)
from kingme.engine import LEVELS
from kingme.engine.ballots import ballot_openings
from kingme.engine.levels import check_level
from kingme.engine.match import ENGINE_PREFIX, Contestant
from kingme.game import DEFAULT_SEED, Game, Setup
from kingme.rules import KingmeError

if TYPE_CHECKING:
    from kingme.engine.egdb import Tables
    from kingme.engine.selfplay import Recipe

_positive = whole_number(1)
#: The arguments of one worker process of a ``tune`` command.
Job = TypeVar("Job")


def level(text: str) -> str:
    """An option type for a computer level, with the engine's own message for an unknown one."""
    try:
        return check_level(text)
    except KingmeError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _run_bestmove(args: argparse.Namespace) -> int:
    game = Game(Setup(args.variant, args.fen, args.seed))  # a bad position is refused before the engine loads
    from kingme.engine.player import choose_move, think

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
    from kingme.cli.progress import ProgressBar
    from kingme.rules import Board

    board = Board(args.fen, args.variant)  # a bad position is refused before the engine loads
    from kingme.engine.endgame import MAX_PIECES, Phase, solve

    pieces = board.piece_count()
    if pieces <= MAX_PIECES:
        print(
            f"solving every position reachable from {board.fen()} ({plural(pieces, 'piece')}; "
            "six pieces take about 8 minutes and 5 GB)…",
            file=sys.stderr,
            flush=True,
        )
    bars = {
        "listed": ProgressBar("positions listed"),
        "indexed": ProgressBar("positions indexed"),
        "solved": ProgressBar("positions solved"),
    }

    def progress(phase: Phase, done: int, total: int) -> None:
        bars[phase](done, total)

    started = time.perf_counter()
    table = solve(board, progress=progress)
    seconds = time.perf_counter() - started
    value = table.value(board)
    print(f"{board.fen()}: {_describe(value.outcome, value.plies, board.turn)}")
    for move in board.legal_moves():
        after = table.after(board, move)
        print(f"  {move!s:<12} {_describe(after.outcome, after.plies, board.turn)}")
    rate = len(table) / max(seconds, 1e-9)
    print(f"{plural(len(table), 'position')} solved in {seconds:.1f} s ({rate:,.0f} a second)")
    return 0


def _describe(outcome: str, plies: int, side: str) -> str:
    verb = "wins" if outcome == "win" else "loses"
    return "draw" if outcome == "draw" else f"{side} {verb} in {plural(plies, 'ply', 'plies')}"


def _contestant(text: str) -> Contestant:
    """``LEVEL``, ``LEVEL@DIR`` (a level of the frozen copy of kingme in DIR) or ``engine:CMD``
    (a program speaking the kingme engine protocol); the node budget is set later."""
    if text.startswith(ENGINE_PREFIX):
        return Contestant.external(text.removeprefix(ENGINE_PREFIX))
    name, _, frozen = text.partition("@")
    return Contestant(level(name), frozen=frozen or None)


def _sides(args: argparse.Namespace) -> tuple[Contestant, Contestant]:
    """The two contestants of ``kingme match``, B being ``--engine CMD`` when given, each with
    the match's node budget; with ``--equal-time``, B is given time instead."""
    if (args.b is None) == (args.engine is None):
        raise ValueError("name the second contestant as LEVEL_B or as --engine CMD (one of them)")
    b = args.b or Contestant.external(args.engine)
    for side in (args.a, b):
        side.check()  # before the command prints the match's first line, which names them
    if args.equal_time:
        if b.engine is None:
            raise ValueError(f"--equal-time gives time to an external engine (--engine CMD); {b} plays by nodes")
        return replace(args.a, nodes=args.nodes), replace(b, equal_time=True)
    return replace(args.a, nodes=args.nodes), replace(b, nodes=args.nodes)


def _stop_as_ctrl_c_does(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def stop_on_sigterm_as_on_ctrl_c() -> None:
    """Make SIGTERM (``kill``) stop a command with a process pool the way Ctrl-C does: the pool
    ends with it (a match's workers ending their child engines first) and the command prints one
    line. Without this a killed command's workers would play on, orphaned, each writing its file."""
    signal.signal(signal.SIGTERM, _stop_as_ctrl_c_does)


def _run_match(args: argparse.Namespace) -> int:
    from kingme.engine.match import run_match

    stop_on_sigterm_as_on_ctrl_c()
    a, b = _sides(args)
    openings = args.openings
    budget = f", {plural(args.nodes, 'node')} a move" if args.nodes else ""
    if args.equal_time:
        budget += f"; {b} given the CPU time {a} used on its last searched move"
    print(
        f"{a} vs {b}: {plural(openings, 'three-move ballot')}, each played with both colours ({args.variant}{budget})",
        flush=True,
    )
    started = time.perf_counter()
    report = functools.partial(print, flush=True)
    result = run_match(a, b, openings, args.workers, args.variant, report, args.record, args.pdn)
    print(f"games: {result.games}  {a} wins: {result.wins}  draws: {result.draws}  losses: {result.losses}")
    print(f"score of {a}: {100 * result.score:.1f}%")
    print(f"Elo difference: {result.describe_elo()}")
    if result.times:
        print(result.times.summary(str(a), str(b)))
        print(f"reference time of {a} (given before it has searched in a game): {result.reference:,} CPU ms a move")
    print(f"time: {time.perf_counter() - started:.0f} s")
    return 0


def _in_workers(work: Callable[[Job], int], jobs: list[Job], directory: str) -> int:
    """The sum of ``work`` over ``jobs``, one process each; stopped by Ctrl-C or SIGTERM, the
    workers end with the pool and the message says that their complete batches are kept."""
    import multiprocessing

    stop_on_sigterm_as_on_ctrl_c()
    try:
        with multiprocessing.get_context("spawn").Pool(len(jobs)) as pool:
            return sum(pool.map(work, jobs))
    except KeyboardInterrupt:
        raise KeyboardInterrupt(f"every complete batch is kept in {directory}; the same command goes on") from None


def _selfplay_worker(job: tuple[str, int, Recipe, int, int]) -> int:
    from kingme.engine.selfplay import generate

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the main process, which ends the pool
    directory, games, recipe, worker, workers = job
    path = Path(directory) / f"games-{worker}.txt"
    return generate(path, games, recipe, worker=worker, workers=workers)


def _run_tune_selfplay(args: argparse.Namespace) -> int:
    from kingme.engine.selfplay import Recipe

    if Path(args.dir).exists() and not Path(args.dir).is_dir():
        raise ValueError(f"{args.dir} is a file; --dir names the folder the games go to")
    Path(args.dir).mkdir(parents=True, exist_ok=True)
    print(
        f"playing {plural(args.games, 'game')} at {plural(args.nodes, 'node')} a move into {args.dir} "
        "(resumes where it stopped)"
    )
    recipe = Recipe(
        nodes=args.nodes, noise=args.noise, noisy_plies=args.noisy_plies, network=args.evaluation == "network"
    )
    jobs = [(args.dir, args.games, recipe, worker, args.workers) for worker in range(args.workers)]
    batches = _in_workers(_selfplay_worker, jobs, args.dir)
    print(f"{plural(batches, 'new batch', 'new batches')} of games written")
    return 0


def _relabel_worker(job: tuple[str, int, int, int, str | None, int]) -> int:
    from kingme.engine import egdb
    from kingme.engine.relabel import relabel

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the main process, which ends the pool
    directory, nodes, worker, workers, tables_dir, pieces = job
    tables = None if tables_dir is None else egdb.load(Path(tables_dir), pieces)
    return relabel(Path(directory), nodes, worker, workers, functools.partial(print, flush=True), tables)


def _run_tune_relabel(args: argparse.Namespace) -> int:
    _games_in(args.dir)
    # Checked here, before the workers start; each worker loads the set itself.
    pieces = 0 if args.tables is None else _tables_built(args.tables)
    which = "without kings"
    if pieces:
        which += f", and with kings and more than {pieces} pieces (searched with the tables in {args.tables}),"
    print(f"searching the positions {which} of the games in {args.dir} at {plural(args.nodes, 'node')} (resumes)")
    jobs = [(args.dir, args.nodes, worker, args.workers, args.tables, pieces) for worker in range(args.workers)]
    searched = _in_workers(_relabel_worker, jobs, args.dir)
    print(f"{plural(searched, 'position')} searched")
    return 0


def _games_in(directory: str) -> list[Path]:
    """The self-play files in ``directory``, refused with what to run when there are none."""
    paths = sorted(Path(directory).glob("games-*.txt"))
    if not paths:
        raise ValueError(f"no games in {directory}: run 'kingme tune selfplay --dir {directory}' first")
    return paths


def _run_tune_net(args: argparse.Namespace) -> int:
    from kingme.engine import network, network_training, relabel

    paths = _games_in(args.dir)
    output = Path(args.output or Path(network.__file__).parent / network.NETWORK_FILE)
    check_output(output, "the network file")
    start, hidden, second = None, args.hidden, args.second
    if args.start:
        start = network_training.Weights.of_network(network.read_network(Path(args.start).read_text(), args.start))
        hidden, second = start.first.shape[1], start.second.shape[1]
    network.check_widths(hidden, second)
    tables = _training_tables(args.tables)
    deep = None
    if args.deep:
        deep = relabel.read_scores(Path(args.dir).glob(relabel.file_name(args.deep, "*")))
        if not deep:
            raise ValueError(
                f"no deep scores at {args.deep:,} nodes in {args.dir}: "
                f"run 'kingme tune relabel --dir {args.dir} --nodes {args.deep}' first"
            )
    print(f"reading the positions of {plural(len(paths), 'games file')} in {args.dir}…", flush=True)
    train, held_out, scale, deep_scale = network_training.read_examples(paths, args.td, tables, deep, args.deep_weight)
    print(f"{len(train):,} training and {len(held_out):,} held-out quiet positions", flush=True)
    floor = network_training.cross_entropy(held_out.labels, held_out.labels)
    print(f"labels: TD({args.td:g}) returns, scores at {scale:.0f} a logit; held-out entropy (the floor) {floor:.5f}")
    if deep is not None:
        print(
            f"{len(deep):,} positions labelled {args.deep_weight:g} by their {args.deep:,}-node score "
            f"(at {deep_scale:.0f} a logit)",
            flush=True,
        )
    output_scale = args.scale or scale
    print(f"the network's scores: {output_scale:.1f} hundredths of a man a logit", flush=True)
    if start is not None:
        before = network_training.cross_entropy(start.predict(held_out.inputs), held_out.labels)
        print(f"starting from {args.start} (layers of {hidden} and {second}): held-out loss {before:.5f}")
    weights, held = network_training.train(
        train,
        held_out,
        args.epochs,
        lambda line: print(line, flush=True),
        hidden=hidden,
        second=second,
        start=start,
    )
    made = f", endings of at most {tables.max_pieces} pieces labelled by the tables" if tables else ""
    made += f", deep-labelled positions {args.deep_weight:g} by {args.deep:,}-node scores" if args.deep else ""
    made += f", from {Path(args.start).name}" if args.start else ""
    note = (
        f"trained by kingme tune net on {len(train):,} positions, TD({args.td:g}) labels{made}, "
        f"layers of {hidden} and {second}; held-out loss {held:.5f}"
    )
    contents = network_training.quantised(weights, output_scale, note)
    write_whole(output, network_training.network_text(contents, str(output)))
    print(f"network written to {output}")
    return 0


def _tables_built(directory: str) -> int:
    """The most pieces of a complete set of endgame tables in ``directory`` (``--tables``); refused
    when it holds none."""
    from kingme.engine import egdb

    pieces = egdb.largest_built(Path(directory))
    if pieces == 0:
        raise ValueError(f"--tables {directory}: no complete set of endgame tables there (kingme egdb build --dir)")
    return pieces


def _training_tables(directory: str | None) -> Tables | None:
    """The largest complete set of endgame tables in ``directory`` (``--tables``), loaded."""
    from kingme.engine import egdb

    if directory is None:
        return None
    pieces = _tables_built(directory)
    print(f"endings of at most {pieces} pieces labelled by the tables in {directory}", flush=True)
    return egdb.load(Path(directory), pieces)


def _run_engine(args: argparse.Namespace) -> int:
    from kingme.engine.protocol import serve

    sys.stdin.reconfigure(errors="replace")  # type: ignore[union-attr]  # bad bytes become an error reply
    serve(sys.stdin, sys.stdout)
    return 0


def bestmove_options(parser: argparse.ArgumentParser) -> None:
    add_position(parser)
    parser.add_argument("--level", type=level, default="master", help=f"one of {', '.join(LEVELS)} (default master)")
    parser.add_argument("--seed", default=DEFAULT_SEED, help=f"replay seed (default {DEFAULT_SEED})")
    parser.add_argument("--verbose", action="store_true", help="also print depth, score, nodes and principal variation")
    parser.set_defaults(run=_run_bestmove)


def endgame_options(parser: argparse.ArgumentParser) -> None:
    add_position(parser, required=True)
    parser.set_defaults(run=_run_endgame)


def add_ballot_count(parser: argparse.ArgumentParser, option: str, help: str) -> None:
    """``option``: how many of the 3-move ballots, the first N, from 1 to all of them (the
    default); ``kingme match`` and ``kingme book build`` both take one."""
    ballots = len(ballot_openings())
    parser.add_argument(
        option,
        type=whole_number(1, ballots, f"there are {ballots} standard 3-move ballots"),
        default=ballots,
        help=f"{help} (default all {ballots})",
    )


def match_options(parser: argparse.ArgumentParser) -> None:
    frozen = "; LEVEL@DIR is that level of the frozen copy of kingme in DIR; engine:CMD a protocol engine"
    parser.add_argument("a", type=_contestant, metavar="LEVEL_A", help=f"a level{frozen}")
    parser.add_argument("b", type=_contestant, metavar="LEVEL_B", nargs="?", help=f"a level{frozen}")
    parser.add_argument("--engine", metavar="CMD", help="play A against this engine command (docs/engine-protocol.md)")
    parser.add_argument("--nodes", type=_positive, help="nodes a move for both sides instead of the levels' budgets")
    parser.add_argument(
        "--equal-time",
        action="store_true",
        help="give the engine B, for each move, the CPU time A used on its last searched move (go movetime MS), "
        "before A has searched in a game A's reference time; A plays by nodes (docs/engine-protocol.md)",
    )
    add_ballot_count(parser, "--openings", "how many ballots")
    parser.add_argument("--workers", type=_positive, default=2, help="processes to play in (default 2)")
    parser.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="write each finished game to FILE; run again with the same FILE to go on where a stopped match ended",
    )
    parser.add_argument("--pdn", type=Path, metavar="FILE", help="append each game to FILE as PDN, moves included")
    add_variant(parser)
    parser.set_defaults(run=_run_match)


def engine_options(parser: argparse.ArgumentParser) -> None:
    parser.set_defaults(run=_run_engine)


def selfplay_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=_positive, default=16_000, help="games in all (default 16,000)")
    parser.add_argument("--nodes", type=_positive, default=20_000, help="nodes a move (default 20,000)")
    parser.add_argument("--dir", default="tune-data", help="where the games go (default ./tune-data)")
    parser.add_argument("--workers", type=_positive, default=2, help="processes to play in (default 2)")
    # The defaults are selfplay's NOISE and NOISY_PLIES (the engine is not imported to build the parser).
    parser.add_argument(
        "--noise",
        type=whole_number(0, 1000),
        default=15,
        help="root noise in hundredths of a man, up to 1,000 (default 15): a game is a function of its index, "
        "the engine, --noise, --noisy-plies and --evaluation; keep them for a folder's whole run",
    )
    parser.add_argument(
        "--noisy-plies",
        type=whole_number(0),
        default=16,
        help="plies with root noise at the start of a game (default 16)",
    )
    parser.add_argument(
        "--evaluation",
        choices=("network", "table"),
        default="network",
        help="what the players' search evaluates with: the network (club to master) or the linear table of "
        "material and squares (beginner, casual), whose games the first network was trained on (default network)",
    )
    parser.set_defaults(run=_run_tune_selfplay)


def net_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dir", default="tune-data", help="where the games are (default ./tune-data)")
    parser.add_argument("--epochs", type=_positive, default=12, help="passes over the data (default 12)")
    parser.add_argument(
        "--td",
        type=fraction,
        default=0.9,
        help="the labels' TD(lambda): 0 is each position's own search score, 1 its game's result (default 0.9)",
    )
    # The defaults are network_training's HIDDEN and SECOND, the bounds network.read_network's
    # (checked before training starts); the engine modules are not imported to build the parser.
    parser.add_argument("--hidden", type=_positive, default=128, help="neurons of the first layer (default 128)")
    parser.add_argument("--second", type=_positive, default=32, help="neurons of the second layer (default 32)")
    parser.add_argument(
        "--start",
        metavar="FILE",
        help="a network file to start from, refining what it knows (its widths replace --hidden and --second)",
    )
    parser.add_argument(
        "--scale",
        type=number(1, 10_000),
        help="hundredths of a man a logit in the network's scores (default: the one that fits the games' scores to "
        "their results, which keeps the scores in the units of the engine that played the games)",
    )
    parser.add_argument(
        "--tables",
        metavar="DIR",
        help="endgame tables (kingme egdb build --dir DIR): label the positions they hold by their exact result",
    )
    parser.add_argument(
        "--deep",
        type=_positive,
        metavar="NODES",
        help="label the positions relabelled by their scores of kingme tune relabel --nodes NODES, blended",
    )
    # The default is network_training's DEEP_WEIGHT.
    parser.add_argument(
        "--deep-weight",
        type=fraction,
        default=0.5,
        help="with --deep, how much of such a label is the deep score's expected result, the rest its TD return "
        "(default 0.5)",
    )
    parser.add_argument("--output", help="network file to write (default: the package's own, which the engine loads)")
    parser.set_defaults(run=_run_tune_net)


def relabel_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dir", default="tune-data", help="where the games are (default ./tune-data)")
    parser.add_argument("--nodes", type=_positive, default=250_000, help="nodes a search (default 250,000)")
    parser.add_argument("--workers", type=_positive, default=2, help="processes to search in (default 2)")
    parser.add_argument(
        "--tables",
        metavar="DIR",
        help="also search the positions with kings and more pieces than the endgame tables in DIR hold, "
        "with those tables (each worker loads them)",
    )
    parser.set_defaults(run=_run_tune_relabel)

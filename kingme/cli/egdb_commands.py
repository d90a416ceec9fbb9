"""``kingme egdb build``, ``probe`` and ``verify``, and ``kingme bench egdb``.

Builds are long, so they draw the progress bar of ``puzzle_commands`` on stderr and print one
line per material on stdout. A missing, truncated or altered table file, a bad FEN or too many
pieces is one line on stderr and exit status 2 (``kingme.cli.main``), never a value.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path
from typing import TYPE_CHECKING

from kingme.cli.arguments import plural, whole_number
from kingme.cli.engine_commands import level
from kingme.cli.progress import ProgressBar
from kingme.engine.egdb import (
    MAX_PIECES,
    MAX_PLIES,
    BuildCount,
    DatabaseError,
    Material,
    Tables,
    TooManyPieces,
    build,
    build_lock,
    default_directory,
    estimate_build,
    is_loss,
    is_win,
    largest_built,
    load,
    plies,
    probe,
    verify_tables,
)
from kingme.engine.egdb.index import materials
from kingme.engine.egdb.moves import move_value, value
from kingme.rules import Board

if TYPE_CHECKING:
    from kingme.engine.egdb.playout import Playout

_pieces = whole_number(2, MAX_PIECES, f"the database format indexes endings of at most {MAX_PIECES} pieces")


def _directory(args: argparse.Namespace) -> Path:
    return Path(args.dir) if args.dir else default_directory()


class _BuildProgress:
    """One bar over the positions of every material, fed slice counts material by material."""

    def __init__(self, max_pieces: int) -> None:
        self._count = BuildCount(max_pieces)
        self._bar = ProgressBar("positions")

    def __call__(self, material: Material, done: int, total: int) -> None:
        self._bar(self._count.positions(material, done, total), self._count.total)


def _run_build(args: argparse.Namespace) -> int:
    directory = _directory(args)
    with build_lock(directory):  # not beside a server's background build, nor another command's
        print(f"building every ending of at most {args.pieces} pieces into {directory}", flush=True)
        started = time.perf_counter()
        reports = build(directory, args.pieces, _BuildProgress(args.pieces))
    for report in reports:
        how = "kept" if report.reused else f"{report.seconds:6.1f} s"
        print(
            f"  {report.material.name}  {report.wins:>12,} won {report.draws:>12,} drawn {report.losses:>12,} lost"
            f"  longest {report.longest:3d} plies  {report.file_bytes:>11,} bytes  {how}"
            + (f"  ({report.capped:,} drawn by the 80-ply rule)" if report.capped else "")
        )
    longest = max(report.longest for report in reports)
    capped = sum(report.capped or 0 for report in reports)
    size = sum(report.file_bytes for report in reports)
    positions = sum(report.wins + report.draws + report.losses for report in reports)
    print(f"{plural(positions, 'position')}, {plural(size, 'byte')} on disk, in {time.perf_counter() - started:.1f} s")
    print(
        f"longest distance to conversion: {plural(longest, 'ply', 'plies')}; wins and losses beyond"
        f" {MAX_PLIES} plies, stored as draws (the 80-ply rule): {capped:,} in the tables built now"
    )
    return 0


def _to_conversion(distance: int) -> str:
    """A table's distance said for what it counts: ``17 plies to the next capture or man's move``
    (not to the game's end; see docs/egdb.md)."""
    return f"{plural(distance, 'ply', 'plies')} to the next capture or man's move"


def _describe(result: int, side: str) -> str:
    if is_win(result):
        return f"{side} wins, {_to_conversion(plies(result))}"
    if is_loss(result):
        return f"{side} loses, {_to_conversion(plies(result))}"
    return "draw" if result == 0 else "unknown (the game is over)"


def _run_probe(args: argparse.Namespace) -> int:
    board = Board(args.fen)
    pieces = board.piece_count()
    if pieces > MAX_PIECES:
        raise TooManyPieces(f"{plural(pieces, 'piece')}: the endgame database holds at most {MAX_PIECES}")
    tables = load(_directory(args), max(pieces, 2))
    print(f"{board.fen()}: {_describe(value(tables, board), board.turn)}")
    for move in board.legal_moves():
        print(f"  {move!s:<12} {_describe(move_value(tables, board, move), board.turn)}")
    return 0


def _run_estimate(args: argparse.Namespace) -> int:
    bar = ProgressBar("tables")
    estimates = estimate_build(_directory(args), args.pieces, args.per_mille, lambda _, done, total: bar(done, total))
    for estimate in estimates:
        print(
            f"  {estimate.material.name}  {estimate.sampled:>7,} of {estimate.slices:>9,} slices"
            f" {estimate.seconds:7.2f} s  ->  {estimate.estimated:7.1f} CPU s"
        )
    total = sum(estimate.estimated for estimate in estimates)
    print(
        f"the {plural(len(estimates), 'table')} of {args.pieces} pieces: about {total:,.0f} CPU s"
        f" ({total / 60:.1f} min) to solve on one core, from {args.per_mille} slices per thousand"
    )
    return 0


def _run_verify(args: argparse.Namespace) -> int:
    directory = _directory(args)
    pieces = args.pieces or largest_built(directory)
    if not pieces:
        raise DatabaseError(f"{directory}: no complete endgame database (build one with `kingme egdb build`)")
    names = {material.name: material for material in materials(pieces)}
    unknown = sorted(set(args.table or ()) - set(names))
    if unknown:
        raise DatabaseError(f"no table {unknown[0]} in a set of at most {pieces} pieces (names such as 3K0M-2K1M)")
    started = time.perf_counter()
    tables = load(directory, pieces)
    bar = ProgressBar("slices")
    only = [names[name] for name in args.table or ()]
    wrong = verify_tables(tables, lambda material, done, total: bar(done, total), only=only)
    bad = {material: count for material, count in wrong.items() if count}
    for material, count in bad.items():
        print(f"  {material.name}: {plural(count, 'position')} disagree with their successors")
    seconds = time.perf_counter() - started
    verdict = "FAILED" if bad else "sound"
    print(f"{plural(len(wrong), 'table')} of at most {pieces} pieces in {directory}: {verdict} ({seconds:.1f} s)")
    return 1 if bad else 0


def _run_bench_egdb(args: argparse.Namespace) -> int:
    """Probes a second on random positions: in a compiled loop (what the search sees) and from Python."""
    from kingme.engine.egdb.bench import probe_all, random_positions

    tables = load(_directory(args), args.pieces)
    positions = random_positions(random.Random(1), args.pieces, args.probes)
    probe_all(tables.offsets, tables.values, positions[:1])  # compiled before timing
    started = time.perf_counter()
    probe_all(tables.offsets, tables.values, positions)
    compiled = len(positions) / (time.perf_counter() - started)
    started = time.perf_counter()
    for black, white, kings, black_to_move in positions[:10_000].tolist():
        probe(tables.offsets, tables.values, black, white, kings, bool(black_to_move))
    python = min(len(positions), 10_000) / (time.perf_counter() - started)
    print(f"{plural(len(positions), f'random {args.pieces}-piece position')} (tables of at most {args.pieces} pieces)")
    print(f"probes a second: {compiled:,.0f} compiled, {python:,.0f} called from Python")
    return 0


def engine_tables(pieces: int) -> Tables:
    """The engine's own tables (``analysis.endgame_tables``, as it plays), when they hold
    ``pieces`` pieces; else a ``DatabaseError`` saying what to build."""
    from kingme.engine.analysis import endgame_tables

    tables = endgame_tables()
    if tables is None or tables.max_pieces < pieces:
        held = f"hold at most {tables.max_pieces} pieces" if tables else "cannot be loaded or built"
        raise DatabaseError(
            f"the engine's tables in {default_directory()} {held}: "
            f"build them first with `kingme egdb build --pieces {pieces}`"
        )
    return tables


def _run_bench_endings(args: argparse.Namespace) -> int:
    """The computer plays random won and drawn endings out against the tables (see ``playout``)."""
    from kingme.engine.egdb import playout

    tables = engine_tables(args.pieces)
    started = time.perf_counter()
    summaries = playout.run(tables, args.pieces, args.positions, args.seed, args.level)
    print(
        f"{args.level} against the tables of at most {tables.max_pieces} pieces, from {args.positions:,} won and"
        f" {plural(args.positions, f'drawn {args.pieces}-piece position')} (seed {args.seed};"
        " every second one can crown a man)"
    )
    for summary in summaries:
        verb = "won" if summary.outcome == "won" else "not lost"
        endings = ", ".join(f"{count} {reason}" for reason, count in sorted(summary.reasons().items()))
        print(
            f"  {summary.outcome}: {summary.kept} of {len(summary.playouts)} {verb} ({endings});"
            f" longest game {plural(max(p.plies for p in summary.playouts), 'ply', 'plies')},"
            f" longest quiet stretch {plural(max(p.longest_quiet for p in summary.playouts), 'ply', 'plies')}"
        )
        for failure in summary.failures:
            print(f"    FAILED {_playout_line(failure)}")
    print(f"{time.perf_counter() - started:.1f} s")
    return 0 if all(not summary.failures for summary in summaries) else 1


def _playout_line(playout: Playout) -> str:
    """Where a played-out ending started and how it ended, e.g. ``won W:WK3:B1,K30, the computer
    white: black won by no-pieces in 1 ply``."""
    ending = f"{playout.winner} won" if playout.winner else "drawn"
    return (
        f"{playout.outcome} {playout.fen}, the computer {playout.computer}:"
        f" {ending} by {playout.reason} in {plural(playout.plies, 'ply', 'plies')}"
    )


def _directory_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dir", help=f"database directory (default $KINGME_EGDB_DIR or {default_directory()})")


def build_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pieces", type=_pieces, required=True, help=f"at most this many pieces (2 to {MAX_PIECES})")
    _directory_option(parser)
    parser.set_defaults(run=_run_build)


def probe_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--fen", required=True, help="position in PDN FEN (American rules)")
    _directory_option(parser)
    parser.set_defaults(run=_run_probe)


def estimate_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pieces", type=_pieces, required=True, help="the tables of this many pieces (2 to 6)")
    parser.add_argument(
        "--per-mille", type=whole_number(1, 1000), default=10, help="slices solved per thousand (default 10)"
    )
    _directory_option(parser)
    parser.set_defaults(run=_run_estimate)


def verify_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pieces", type=_pieces, help="tables to check (default: the largest complete set)")
    parser.add_argument(
        "--table", action="append", help="check only this material's table, e.g. 3K0M-2K1M (repeatable)"
    )
    _directory_option(parser)
    parser.set_defaults(run=_run_verify)


def bench_egdb_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pieces", type=_pieces, default=4, help="position size, tables of at most this (default 4)")
    parser.add_argument("--probes", type=whole_number(1), default=200_000, help="how many probes (default 200,000)")
    _directory_option(parser)
    parser.set_defaults(run=_run_bench_egdb)


def bench_endings_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pieces", type=_pieces, default=5, help="pieces in each position (default 5)")
    parser.add_argument("--positions", type=whole_number(1), default=100, help="won and drawn ones each (default 100)")
    parser.add_argument("--seed", type=whole_number(0), default=1, help="which positions (default 1)")
    parser.add_argument("--level", type=level, default="master", help="the computer's level (default master)")
    parser.set_defaults(run=_run_bench_endings)

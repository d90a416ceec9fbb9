"""Subcommands of online play: ``kingme bench online``."""

from __future__ import annotations

import argparse
import statistics
from typing import TYPE_CHECKING

from kingme.cli.arguments import number, plural, whole_number

if TYPE_CHECKING:
    from kingme.server.online.bench import Figures, SoakFigures


def _bench(args: argparse.Namespace) -> int:
    from kingme.server.online.bench import SOAK_CONNECTS, bench_online, check_run, soak_online

    if args.soak is not None:
        print(f"online: soaking the server with {SOAK_CONNECTS} connects and disconnects…", flush=True)
        print(soak_report(soak_online(args.soak)))
        return 0

    check_run(args.games, args.seconds, args.think, args.url, args.processes, args.load)
    print(f"online: seating {plural(args.games, 'game')} ({2 * args.games} WebSocket connections)…", flush=True)
    print(report(bench_online(args.games, args.seconds, args.think, args.url, args.processes, args.load)))
    return 0


def soak_report(figures: SoakFigures) -> str:
    """What ``kingme bench online --soak`` prints: the connects made and the server's memory."""
    growth = figures.after_mb - figures.before_mb
    return (
        f"soak: {figures.connects:,} WebSocket connects and disconnects in {figures.seconds:.0f} s\n"
        f"server memory: {figures.before_mb:.1f} MB before, {figures.after_mb:.1f} MB after (growth {growth:+.1f} MB)"
    )


def report(figures: Figures) -> str:
    """What ``kingme bench online`` prints of a run: load, moves, stalls, round-trip times, CPU."""
    from kingme.server.online.bench import STALL_SECONDS

    moves = len(figures.round_trips)
    errors = sum(figures.errors.values())
    kinds = ", ".join(f"{kind} {count}" for kind, count in figures.errors.most_common())
    errors_text = f"{errors:,}" + (f" ({kinds})" if kinds else "")
    games = plural(figures.games, "game")
    if not moves:
        return f"online: {games}: no move completed (errors: {errors_text})"
    ordered = sorted(figures.round_trips)
    p50 = statistics.median(ordered) * 1000
    p99 = ordered[min(moves - 1, int(moves * 0.99))] * 1000
    load = f", {plural(figures.load, 'busy process', 'busy processes')} beside them" if figures.load else ""
    lines = [
        f"online: {games} ({plural(2 * figures.games, 'connection')}) on "
        f"{plural(figures.processes, 'server process', 'server processes')} for {figures.seconds:.1f} s{load}",
        f"moves: {moves:,} ({moves / figures.seconds:.0f} moves/s), games finished: {figures.finished_games:,}, "
        f"errors: {errors_text}",
        f"stalled games (a move acknowledged, not seen by the opponent within {STALL_SECONDS:.0f} s): "
        f"{len(figures.stalled_games):,}",
        f"move round-trip: p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {ordered[-1] * 1000:.1f} ms",
    ]
    if figures.server_cpu:
        lines.append(
            f"server CPU (all processes): {figures.server_cpu / moves * 1000:.2f} ms per move "
            f"(about {moves / figures.server_cpu:.0f} moves/s per free core)"
        )
    lines.append(f"bench client CPU: {figures.client_cpu / moves * 1000:.2f} ms per move")
    return "\n".join(lines)


def _loopback_url(text: str) -> str:
    """``--url``: a server on this machine only, so the benchmark's load never leaves it."""
    from kingme.server.online.bench import check_loopback

    try:
        check_loopback(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def bench_online_options(bench: argparse.ArgumentParser) -> None:
    """``kingme bench online --games N``: concurrent games over WebSockets on loopback."""
    from kingme.server.online.bench import MAX_GAMES, MAX_LOAD, MAX_SECONDS, MAX_SOAK_MINUTES

    bounded = "so that a run cannot take over the machine"
    bench.add_argument(
        "--games",
        type=whole_number(1, MAX_GAMES, bounded),
        default=100,
        help=f"concurrent games, two connections each (default 100, at most {MAX_GAMES:,})",
    )
    bench.add_argument(
        "--seconds",
        type=number(0, MAX_SECONDS, bounded, above=True),
        default=20.0,
        help=f"how long to play once seated (default 20, at most {MAX_SECONDS})",
    )
    bench.add_argument(
        "--think",
        type=number(0, 60, "a player who waits longer sends too few moves to measure"),
        default=2.0,
        help="mean seconds a player waits before each move (default 2; 0: as fast as the server answers)",
    )
    bench.add_argument(
        "--url", type=_loopback_url, help="a running server on loopback (default: start one on SQLite for the run)"
    )
    bench.add_argument(
        "--processes",
        type=whole_number(1, 2, "one server, or two sharing PostgreSQL and Redis"),
        default=1,
        help="2: two servers on KINGME_DATABASE_URL (PostgreSQL) and KINGME_REDIS_URL, "
        "each game's players on different ones; reports stalled games",
    )
    bench.add_argument(
        "--load",
        type=whole_number(0, MAX_LOAD, bounded),
        default=0,
        metavar="N",
        help=f"start N busy processes (one core each) beside the run and stop them at its end, "
        f"to measure on a loaded machine (default 0, at most {MAX_LOAD})",
    )
    bench.add_argument(
        "--soak",
        type=number(0, MAX_SOAK_MINUTES, bounded, above=True),
        metavar="MINUTES",
        help="instead of games: 10,000 WebSocket connects and disconnects (at most MINUTES), "
        "and the server's memory before and after",
    )
    bench.set_defaults(run=_bench)

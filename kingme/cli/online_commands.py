"""Subcommands of online play: ``kingme bench online``."""

from __future__ import annotations

import argparse

from kingme.cli.arguments import plural


def _bench(args: argparse.Namespace) -> int:
    from kingme.server.online.bench import SOAK_CONNECTS, bench_online, check_run, soak_online

    if args.soak is not None:
        print(f"online: soaking the server with {SOAK_CONNECTS} connects and disconnects…", flush=True)
        print(soak_online(args.soak).report())
        return 0

    check_run(args.games, args.seconds, args.think, args.url, args.processes)
    print(f"online: seating {plural(args.games, 'game')} ({2 * args.games} WebSocket connections)…", flush=True)
    print(bench_online(args.games, args.seconds, args.think, args.url, args.processes).report())
    return 0


def bench_online_options(bench: argparse.ArgumentParser) -> None:
    """``kingme bench online --games N``: concurrent games over WebSockets on loopback."""
    bench.add_argument("--games", type=int, default=100, help="concurrent games, two connections each (max 5000)")
    bench.add_argument("--seconds", type=float, default=20.0, help="how long to play once seated (max 600)")
    bench.add_argument(
        "--think",
        type=float,
        default=2.0,
        help="mean seconds a player waits before each move (0: as fast as the server answers)",
    )
    bench.add_argument("--url", help="a running server on loopback (default: start one on SQLite for the run)")
    bench.add_argument(
        "--processes",
        type=int,
        default=1,
        help="2: two servers on KINGME_DATABASE_URL (PostgreSQL) and KINGME_REDIS_URL, "
        "each game's players on different ones; reports stalled games",
    )
    bench.add_argument(
        "--soak",
        type=float,
        metavar="MINUTES",
        help="instead of games: 10,000 WebSocket connects and disconnects (at most MINUTES), "
        "and the server's memory before and after",
    )
    bench.set_defaults(run=_bench)

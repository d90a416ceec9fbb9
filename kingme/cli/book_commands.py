"""``kingme book build``: grow the opening book (``kingme.engine.book``) by deep searches."""

from __future__ import annotations

import argparse
from pathlib import Path

from kingme.cli.arguments import plural, whole_number
from kingme.cli.engine_commands import add_ballot_count, stop_on_sigterm_as_on_ctrl_c
from kingme.cli.progress import ProgressBar


def _run_build(args: argparse.Namespace) -> int:
    from kingme.engine.book import build

    print(
        f"growing {args.file} over the main lines of the first {plural(args.ballots, 'ballot')}, "
        f"{plural(args.plies, 'ply', 'plies')} each, {plural(args.nodes, 'node')} a search, "
        f"in {plural(args.workers, 'process', 'processes')}; stop it any time and run it again to go on",
        flush=True,
    )
    stop_on_sigterm_as_on_ctrl_c()
    added = build(args.file, args.ballots, args.plies, args.nodes, ProgressBar("main-line plies"), args.workers)
    print(f"{plural(added, 'position')} added")
    return 0


def build_options(parser: argparse.ArgumentParser) -> None:
    from kingme.engine.book import BOOK_NODES, BOOK_PLIES, stored_path

    add_ballot_count(parser, "--ballots", "cover the first N ballots")
    parser.add_argument(
        "--plies", type=whole_number(1), default=BOOK_PLIES, help=f"plies of each main line (default {BOOK_PLIES})"
    )
    parser.add_argument(
        "--nodes", type=whole_number(1), default=BOOK_NODES, help=f"nodes a search (default {BOOK_NODES:,})"
    )
    parser.add_argument(
        "--workers",
        type=whole_number(1),
        default=1,
        help="processes searching ballots' lines side by side (default 1); a stopped build then loses "
        "the lines in progress",
    )
    parser.add_argument(
        "--file", type=Path, default=stored_path(), help="book file to grow (default: the package's, read in play)"
    )
    parser.set_defaults(run=_run_build)

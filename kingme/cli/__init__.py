"""The ``kingme`` command.

Each module in this package registers the subcommands of one layer (``register``) and the
targets of ``kingme bench`` for that layer (``register_bench``). Bad input never shows a
traceback: it prints one line to stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from kingme.cli import (
    egdb_commands,
    engine_commands,
    online_commands,
    puzzle_commands,
    rules_commands,
    server_commands,
)

LAYERS = (rules_commands, engine_commands, server_commands, online_commands, puzzle_commands, egdb_commands)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="kingme", description="kingme: American checkers — play, analyse, serve.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    bench = commands.add_parser("bench", help="benchmarks that print speed figures")
    targets = bench.add_subparsers(dest="target", metavar="TARGET", parser_class=_Parser)
    targets.required = True
    for layer in LAYERS:
        layer.register(commands)
        layer.register_bench(targets)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except (ValueError, OSError) as error:
        # KingmeError is a ValueError: bad FEN, PDN, move, variant or depth.
        print(f"kingme: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())

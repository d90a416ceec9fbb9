"""The ``kingme`` command.

``COMMANDS`` is the whole command list, with one line of help each; it is what ``kingme`` alone
prints. A command's options are declared by a function in one of this package's modules, named
in the list and imported only when that command is the one being run, so that a command that
does not need the engine (``kingme perft 1``, ``kingme pdn FILE``, ``kingme puzzles calendar``)
never imports numba and starts in about a tenth of a second (``kingme bench startup`` measures it).

Bad input never shows a traceback: it prints one line to stderr and exits with status 2. A
reader that stops reading (``kingme perft 12 | head -3``) ends the command quietly, and Ctrl-C
with one line that says what the command kept (status 130).
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, NoReturn

from kingme import __version__

#: Exit status when the reader of standard output went away: 128 + SIGPIPE, what a shell
#: reports for any Unix filter stopped that way (``set -o pipefail`` sees the same as for ``cat``).
BROKEN_PIPE_STATUS = 141
#: Exit status when Ctrl-C (SIGINT) stopped the command: 128 + SIGINT, as a shell reports it.
INTERRUPTED_STATUS = 130


class Command(NamedTuple):
    """One command of the list: its words (``"puzzles calendar"``), one line of help, and the
    function that declares its options (``"module:function"`` in this package). A named tuple
    rather than a dataclass: importing ``dataclasses`` (and ``inspect``) costs 5-12 ms, which
    ``kingme --version`` need not pay."""

    words: str
    summary: str
    declare: str


#: Groups of commands: the first word of several commands, with its help.
GROUPS = {
    "puzzles": "make, check and schedule the daily puzzles",
    "egdb": "endgame databases: build, probe and verify",
    "tune": "train the evaluation network on engine games",
    "book": "the opening book of the strong and master levels",
    "bench": "benchmarks that print speed figures",
}

COMMANDS = (
    Command("perft", "count positions DEPTH plies ahead (move generator check)", "rules_commands:perft_options"),
    Command("moves", "list the legal moves of a position", "rules_commands:moves_options"),
    Command("pdn", "check a PDN file and replay its games", "rules_commands:pdn_options"),
    Command("serve", "serve the web app (default http://127.0.0.1:8000)", "server_commands:serve_options"),
    Command("bestmove", "the computer's move in a position", "engine_commands:bestmove_options"),
    Command(
        "endgame",
        "the exact value of an ending of at most 6 pieces, and of each move",
        "engine_commands:endgame_options",
    ),
    Command("match", "play two levels against each other over the 3-move ballots", "engine_commands:match_options"),
    Command("engine", "speak the kingme engine protocol on stdin/stdout", "engine_commands:engine_options"),
    Command("annotate", "judge every move of PDN games with an engine", "annotate_commands:annotate_options"),
    Command(
        "review",
        "a game's moves judged, its win-chance graph and accuracy, as the web review",
        "review_commands:review_options",
    ),
    Command("puzzles generate", "find puzzles in engine games and add them", "puzzle_commands:generate_options"),
    Command(
        "puzzles endings",
        "endgame puzzles from the endgame tables, into a new collection",
        "puzzle_commands:endings_options",
    ),
    Command("puzzles verify", "solve every stored puzzle again", "puzzle_commands:verify_options"),
    Command(
        "puzzles calendar", "print the puzzle of each day; --extend appends weeks", "puzzle_commands:calendar_options"
    ),
    Command(
        "puzzles withdraw",
        "take out a puzzle found unsound; its day still to come shows another",
        "puzzle_commands:withdraw_options",
    ),
    Command("egdb build", "solve every position of at most N pieces (resumable)", "egdb_commands:build_options"),
    Command("egdb probe", "the database's value of a position and of each move", "egdb_commands:probe_options"),
    Command("egdb verify", "check that every position agrees with its successors", "egdb_commands:verify_options"),
    Command(
        "egdb estimate",
        "CPU time of building the N-piece tables, from solving a sample of their slices",
        "egdb_commands:estimate_options",
    ),
    Command(
        "tune selfplay", "play engine games and record their positions (resumable)", "engine_commands:selfplay_options"
    ),
    Command(
        "tune relabel",
        "search the recorded positions without kings deeper, for training (resumable)",
        "engine_commands:relabel_options",
    ),
    Command("tune net", "train the evaluation network on the recorded games", "engine_commands:net_options"),
    Command("book build", "grow the opening book by deep searches (resumable)", "book_commands:build_options"),
    Command(
        "bench startup", "start-up time of the commands that do not need the engine", "startup:bench_startup_options"
    ),
    Command(
        "bench movegen",
        "perft positions per second of the pure-Python rules core",
        "rules_commands:bench_movegen_options",
    ),
    Command(
        "bench engine",
        "engine perft, search speed and time per move of each level",
        "engine_bench:bench_engine_options",
    ),
    Command(
        "bench review",
        "a 60-ply game reviewed through the engine pool: wall times, first verdict, reviews a second",
        "review_bench:bench_review_options",
    ),
    Command("bench egdb", "endgame database probes a second", "egdb_commands:bench_egdb_options"),
    Command(
        "bench endings",
        "the computer plays won and drawn endings out against the tables' defence",
        "egdb_commands:bench_endings_options",
    ),
    Command(
        "bench online",
        "concurrent online games over WebSockets: moves/s and round trips",
        "online_commands:bench_online_options",
    ),
)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit status 2, and whose
    options are declared only when it parses (so only the chosen command's module is imported)."""

    def __init__(self, *args: Any, declare: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._declare = declare

    def declare_options(self) -> None:
        """Import the module that declares this command's options, and declare them (once)."""
        if self._declare:
            module, _, function = self._declare.partition(":")
            declare: Callable[[argparse.ArgumentParser], None] = getattr(
                importlib.import_module(f"kingme.cli.{module}"), function
            )
            self._declare = None
            declare(self)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        self.declare_options()
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def command_parser(words: str) -> argparse.ArgumentParser:
    """The parser of one command (``"puzzles calendar"``), its options declared."""
    command = next(command for command in COMMANDS if command.words == words)
    parser = _Parser(prog=f"kingme {words}", declare=command.declare)
    parser.declare_options()
    return parser


def command_list() -> str:
    """Every command with its line of help, as ``kingme`` alone prints it."""
    width = max(len(command.words) for command in COMMANDS)
    lines = [f"  kingme {command.words:<{width}}  {command.summary}" for command in COMMANDS]
    return "commands (kingme COMMAND --help shows a command's options):\n" + "\n".join(lines)


def _show_help(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    """What a command line without a command does: print the choices and succeed, since asking
    ``kingme`` or ``kingme bench`` what it offers is not a mistake."""

    def run(_: argparse.Namespace) -> int:
        parser.print_help()
        return 0

    return run


def build_parser() -> argparse.ArgumentParser:
    """The parser of the whole command line; each command's options are declared when it runs."""
    parser = _Parser(
        prog="kingme",
        description="kingme: American checkers — play, analyse, serve.",
        usage="kingme [--version] COMMAND [OPTIONS]",
        epilog=command_list(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"kingme {__version__}")
    parser.set_defaults(run=_show_help(parser))
    top = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser, help=argparse.SUPPRESS)
    groups: dict[str, argparse._SubParsersAction[_Parser]] = {}
    for name, summary in GROUPS.items():
        group = top.add_parser(name, prog=f"kingme {name}", help=summary, description=summary)
        group.set_defaults(run=_show_help(group))
        groups[name] = group.add_subparsers(dest="action", metavar="ACTION", parser_class=_Parser)
    for command in COMMANDS:
        first, _, rest = command.words.partition(" ")
        where = groups[first] if rest else top
        where.add_parser(
            rest or first,
            prog=f"kingme {command.words}",
            help=command.summary,
            description=command.summary,
            declare=command.declare,
        )
    return parser


def describe_os_error(error: OSError) -> str:
    """An operating-system error as a sentence that names the file, not ``[Errno 2] ...``."""
    reason = os.strerror(error.errno).lower() if error.errno else str(error)
    if error.errno == errno.ENOSPC:
        reason = "no space left on the device"
    files = [str(name) for name in (error.filename, error.filename2) if name is not None]
    return f"{' → '.join(files)}: {reason}" if files else reason


def _stop_writing_to_stdout() -> None:
    """Point standard output at /dev/null, so that Python's own flush at exit finds no closed
    pipe to complain about."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        status = int(args.run(args) or 0)
        sys.stdout.flush()  # inside the try: a reader that went away is noticed here, not at exit
        return status
    except BrokenPipeError:
        _stop_writing_to_stdout()
        return BROKEN_PIPE_STATUS
    except OSError as error:
        print(f"kingme: error: {describe_os_error(error)}", file=sys.stderr)
        return 2
    except ValueError as error:
        # KingmeError is a ValueError: bad FEN, PDN, move, variant or depth.
        print(f"kingme: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:
        # Ctrl-C: one line instead of a traceback, on a line of its own after a progress bar's.
        fresh_line = "\n" if sys.stderr.isatty() else ""
        print(f"{fresh_line}kingme: stopped{f': {stop}' if str(stop) else ''}", file=sys.stderr)
        return INTERRUPTED_STATUS


if __name__ == "__main__":
    sys.exit(main())

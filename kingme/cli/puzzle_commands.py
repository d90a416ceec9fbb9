"""``kingme puzzles generate``, ``verify`` and ``calendar``: make, check and schedule the puzzles.

``generate`` and ``verify`` are long runs, so they draw a plain-text progress bar on stderr
(standard output stays for the results). ``verify`` exits with status 1 and names every puzzle
that fails. ``calendar`` prints which puzzle each day shows, appends whole weeks to the calendar
(``--extend``) and warns when it is about to run out.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import date, timedelta
from pathlib import Path
from typing import TextIO

from kingme.daily.daily_game import DayError, parse_day, utc_today
from kingme.daily.puzzles.analysis import VERIFY_DEPTH
from kingme.daily.puzzles.calendar import WARNING_DAYS
from kingme.daily.puzzles.collection import Collection, calendar_path, stored_path
from kingme.daily.puzzles.model import Puzzle, PuzzleError

_BAR_WIDTH = 30
#: The most days ``kingme puzzles calendar`` prints at once (ten years).
_MAX_SPAN = 3660


class ProgressBar:
    """``[#####.....] 12/365 what  41 s`` redrawn in place on a terminal, else a line per 5%."""

    def __init__(self, what: str, stream: TextIO | None = None) -> None:
        self.what = what
        self.stream = stream or sys.stderr
        self.started = time.monotonic()
        self._last_step = -1
        self._live = self.stream.isatty()

    def __call__(self, done: int, total: int) -> None:
        total = max(total, 1)
        step = 20 * done // total
        if not self._live and step == self._last_step and done < total:
            return
        self._last_step = step
        filled = _BAR_WIDTH * done // total
        line = f"[{'#' * filled}{'.' * (_BAR_WIDTH - filled)}] {done}/{total} {self.what}"
        line += f"  {time.monotonic() - self.started:.0f} s"
        self.stream.write(f"\r{line}" if self._live else f"{line}\n")
        if self._live and done >= total:
            self.stream.write("\n")
        self.stream.flush()


def _file(text: str) -> Path:
    return Path(text)


def _day(text: str) -> date:
    try:
        return parse_day(text)
    except DayError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _whole(text: str, least: int = 0) -> int:
    if not text.isdigit() or int(text) < least:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least {least}, not {text[:20]!r}")
    return int(text)


def _positive(text: str) -> int:
    return _whole(text, 1)


def _run_generate(args: argparse.Namespace) -> int:
    from kingme.daily.puzzles.classics import verified_classics
    from kingme.daily.puzzles.generator import GeneratorBudget, generate

    path: Path = args.output
    if args.fresh and calendar_path(path).exists():
        raise PuzzleError(
            f"{calendar_path(path)} gives days their puzzles; a fresh {path.name} would take them away "
            "(write the new collection elsewhere with --output)"
        )
    stored = Collection.from_path(path) if path.exists() and not args.fresh else None
    existing = stored.puzzles if stored else ()
    classics: tuple[Puzzle, ...] = ()
    if not args.no_classics:
        classics, rejected = verified_classics(progress=ProgressBar("classic positions"))
        for classic_id, reason in rejected:
            print(f"classic {classic_id} left out: {reason}", file=sys.stderr)
    first_game = args.first_game if args.first_game is not None else stored.next_game if stored else 0
    budget = GeneratorBudget(games=args.games, first_game=first_game)
    known_ids = {p.id for p in existing}
    added = [p for p in classics if p.id not in known_ids]
    calendar = stored.calendar if stored else None
    next_game = first_game + args.games
    generated = 0
    print(f"engine games from puzzles-{first_game} on", file=sys.stderr)
    for game, puzzle in generate(args.count, budget, known=existing + classics, progress=ProgressBar("puzzles")):
        added.append(puzzle)
        generated += 1
        # Saved at once, so a run that is stopped resumes after the game of its last find.
        _save(path, Collection(existing + tuple(added), calendar, game + 1))
        if generated == args.count:
            next_game = game + 1
    if not existing and not added:
        print(f"no puzzle found in {args.games} games; {path} is unchanged", file=sys.stderr)
        return 1
    collection = _save(path, Collection(existing + tuple(added), calendar, next_game))
    print(f"{len(added)} puzzles added ({generated} generated), {len(collection)} in {path}")
    print(f"the next run starts at engine game puzzles-{next_game}", file=sys.stderr)
    return 0


def _save(path: Path, collection: Collection) -> Collection:
    """Write the collection (also along the way, so a long run that is stopped keeps its finds)."""
    _write(path, collection.to_json())
    return collection


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)  # readers never see a half-written file


def _run_verify(args: argparse.Namespace) -> int:
    from kingme.daily.puzzles.verifier import verify

    collection = Collection.from_path(args.file)
    puzzles = collection.puzzles
    if args.unscheduled:
        scheduled = set(collection.schedule.ids)
        puzzles = tuple(p for p in puzzles if p.id not in scheduled)
    puzzles = puzzles[: args.limit] if args.limit else puzzles
    failures = verify(puzzles, progress=ProgressBar("puzzles verified"), depth=args.depth)
    for puzzle_id, reason in failures:
        print(f"REJECTED {puzzle_id}: {reason}")
    print(f"{len(puzzles) - len(failures)} of {len(puzzles)} puzzles verified")
    return 1 if failures else 0


def _run_calendar(args: argparse.Namespace) -> int:
    collection = Collection.from_path(args.file)
    today: date = args.today or utc_today()
    start: date = args.start or today
    end: date = args.end or start + timedelta(6)
    if (end - start).days >= _MAX_SPAN:
        raise PuzzleError(f"the calendar prints at most {_MAX_SPAN} days at a time")
    calendar = collection.schedule
    if args.extend:
        calendar = calendar.extended(collection.puzzles, today)
        _write(calendar_path(args.file), calendar.to_text())
        added = len(calendar) - len(collection.schedule)
        print(
            f"{added} days added; the calendar covers {len(calendar)} days, through {calendar.last_day}",
            file=sys.stderr,
        )
    lines = calendar.lines(start, end)
    print("\n".join(lines))
    left = (calendar.last_day - today).days
    if left < WARNING_DAYS:
        when = f"in {left} days" if left >= 0 else f"{-left} days ago"
        print(
            f"warning: the calendar runs out on {calendar.last_day} ({when}); after it the days repeat its "
            "puzzles from the start. Grow it: kingme puzzles generate, kingme puzzles verify, "
            "kingme puzzles calendar --extend",
            file=sys.stderr,
        )
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``kingme puzzles generate``, ``verify`` and ``calendar``."""
    puzzles = commands.add_parser("puzzles", help="make and check the puzzle collection")
    actions = puzzles.add_subparsers(dest="action", metavar="ACTION", parser_class=type(puzzles))
    actions.required = True

    p = actions.add_parser("generate", help="find puzzles in engine games and add them (with the classics)")
    p.add_argument("--count", type=_positive, default=365, help="puzzles to generate (default 365)")
    p.add_argument("--games", type=_positive, default=4000, help="most engine games to search (default 4000)")
    p.add_argument(
        "--first-game", type=_whole, help="number of the first game (its seed; default: where the last run stopped)"
    )
    p.add_argument("--output", type=_file, default=stored_path(), help="collection file (default: the package's)")
    p.add_argument("--fresh", action="store_true", help="start a new file instead of appending")
    p.add_argument("--no-classics", action="store_true", help="leave out the classic positions")
    p.set_defaults(run=_run_generate)

    p = actions.add_parser("verify", help="solve every stored puzzle again; reject any with a second solution")
    p.add_argument("--file", type=_file, default=stored_path(), help="collection file (default: the package's)")
    p.add_argument("--limit", type=_positive, default=0, help="verify only the first N puzzles")
    p.add_argument(
        "--unscheduled", action="store_true", help="verify only the puzzles no day has yet (before calendar --extend)"
    )
    p.add_argument("--depth", type=_positive, default=VERIFY_DEPTH, help=f"search depth (default {VERIFY_DEPTH})")
    p.set_defaults(run=_run_verify)

    p = actions.add_parser("calendar", help="print the puzzle of each day; --extend appends whole weeks")
    p.add_argument("--from", dest="start", type=_day, help="first day to print, YYYY-MM-DD (default: today)")
    p.add_argument("--to", dest="end", type=_day, help="last day to print (default: six days after --from)")
    p.add_argument("--extend", action="store_true", help="first append whole weeks of unused puzzles (verify first)")
    p.add_argument("--file", type=_file, default=stored_path(), help="collection file (default: the package's)")
    p.add_argument("--today", type=_day, help="count from this day instead of today (UTC)")
    p.set_defaults(run=_run_calendar)


def register_bench(targets: argparse._SubParsersAction) -> None:
    """No benchmark: ``kingme puzzles verify`` prints its own timing."""

"""``kingme puzzles generate``, ``endings``, ``verify``, ``calendar`` and ``withdraw``: make, check
and schedule the puzzles.

``generate`` and ``verify`` are long runs, so they draw a plain-text progress bar on stderr
(standard output stays for the results). ``verify`` exits with status 1 and names every puzzle
that fails. ``calendar`` prints which puzzle each day shows, appends whole weeks to the calendar
(``--extend``) and warns when it is about to run out; ``withdraw`` takes out a puzzle found
unsound before its day.
"""

from __future__ import annotations

import argparse
import sys
from datetime import date, timedelta
from pathlib import Path

from kingme.cli.arguments import check_output, plural, whole_number, write_whole
from kingme.cli.progress import ProgressBar
from kingme.daily.daily_game import DayError, parse_day, utc_today
from kingme.daily.puzzles.calendar import WARNING_DAYS, Calendar
from kingme.daily.puzzles.collection import Collection, calendar_path, stored_path
from kingme.daily.puzzles.model import Puzzle, PuzzleError

#: The most days ``kingme puzzles calendar`` prints at once (ten years).
_MAX_SPAN = 3660


def _day(text: str) -> date:
    try:
        return parse_day(text)
    except DayError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


_positive = whole_number(1)


def _run_generate(args: argparse.Namespace) -> int:
    path: Path = args.output
    if args.fresh and calendar_path(path).exists():
        raise PuzzleError(
            f"{calendar_path(path)} gives days their puzzles; a fresh {path.name} would take them away "
            "(write the new collection elsewhere with --output)"
        )
    check_output(path, "the collection file")
    stored = Collection.from_path(path) if path.exists() and not args.fresh else None
    found: list[Puzzle] = []
    try:
        return _generate_into(path, stored, args, found)
    except KeyboardInterrupt:
        raise KeyboardInterrupt(_kept(path, len(found))) from None


def _generate_into(path: Path, stored: Collection | None, args: argparse.Namespace, found: list[Puzzle]) -> int:
    """Add the classics and ``args.count`` generated puzzles to ``stored``, saving ``path`` after
    each find (appended to ``found`` as it is saved, for the message of a stopped run)."""
    from kingme.daily.puzzles.classics import verified_classics
    from kingme.daily.puzzles.generator import GeneratorBudget, generate

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
    print(f"engine games from puzzles-{first_game} on", file=sys.stderr)
    for game, puzzle in generate(args.count, budget, known=existing + classics, progress=ProgressBar("puzzles")):
        added.append(puzzle)
        # Saved at once, so a run that is stopped resumes after the game of its last find.
        _save(path, Collection(existing + tuple(added), calendar, game + 1))
        found.append(puzzle)
        if len(found) == args.count:
            next_game = game + 1
    if not existing and not added:
        print(f"no puzzle found in {plural(args.games, 'game')}; {path} is unchanged", file=sys.stderr)
        return 1
    collection = _save(path, Collection(existing + tuple(added), calendar, next_game))
    print(f"{plural(len(added), 'puzzle')} added ({len(found)} generated), {len(collection)} in {path}")
    print(f"the next run starts at engine game puzzles-{next_game}", file=sys.stderr)
    return 0


def _kept(path: Path, found: int) -> str:
    """What a stopped ``generate`` kept: every find is saved as it is made."""
    if not found:
        return f"no puzzle found by this run; {path} is unchanged"
    return (
        f"{plural(found, 'puzzle')} found by this run saved in {path}; "
        "the same command without --first-game goes on from there"
    )


def _save(path: Path, collection: Collection) -> Collection:
    """Write the collection (also along the way, so a long run that is stopped keeps its finds)."""
    write_whole(path, collection.to_json())
    return collection


def _run_endings(args: argparse.Namespace) -> int:
    """A new collection of endgame puzzles from the endgame tables (``kingme.daily.puzzles.endings``)."""
    import itertools

    from kingme.cli.egdb_commands import engine_tables
    from kingme.daily.puzzles.endings import ending_puzzles

    path: Path = args.output
    if path.exists():
        raise PuzzleError(f"{path} exists; endings writes a new collection (add its puzzles to another by hand)")
    check_output(path, "the collection file")
    tables = engine_tables(args.pieces)
    bar = ProgressBar("puzzles")
    found: list[Puzzle] = []
    for puzzle in itertools.islice(ending_puzzles(tables, args.pieces, args.seed, args.solver_moves), args.count):
        found.append(puzzle)
        bar(len(found), args.count)
        print(f"{puzzle.id}  {puzzle.fen}  {' '.join(puzzle.solution)}  ({puzzle.difficulty})")
    _save(path, Collection(tuple(found)))
    print(f"{plural(len(found), 'puzzle')} of {args.pieces} pieces in {path}")
    return 0


def _run_verify(args: argparse.Namespace) -> int:
    from kingme.daily.puzzles.verifier import verify

    collection = Collection.from_path(args.file)
    puzzles = collection.puzzles
    if args.unscheduled:
        scheduled = set(collection.schedule.ids)
        puzzles = tuple(p for p in puzzles if p.id not in scheduled)
    puzzles = puzzles[: args.limit] if args.limit else puzzles
    try:
        failures = verify(puzzles, progress=ProgressBar("puzzles verified"), depth=args.depth)
    except KeyboardInterrupt:
        raise KeyboardInterrupt("verify writes nothing, so nothing is lost") from None
    for puzzle_id, reason in failures:
        print(f"REJECTED {puzzle_id}: {reason}")
    print(f"{len(puzzles) - len(failures)} of {plural(len(puzzles), 'puzzle')} verified")
    return 1 if failures else 0


def _run_calendar(args: argparse.Namespace) -> int:
    today: date = args.today or utc_today()
    start: date = args.start or today
    end: date = args.end or start + timedelta(6)
    if (end - start).days >= _MAX_SPAN:
        raise PuzzleError(f"the calendar prints at most {_MAX_SPAN} days at a time")
    calendar = _extend(args.file, today) if args.extend else _read_calendar(args.file)
    lines = calendar.lines(start, end)
    print("\n".join(lines))
    left = (calendar.last_day - today).days
    if left < WARNING_DAYS:
        when = f"in {plural(left, 'day')}" if left >= 0 else f"{plural(-left, 'day')} ago"
        print(
            f"warning: the calendar runs out on {calendar.last_day} ({when}); after it the days repeat its "
            "puzzles from the start. Grow it: kingme puzzles generate, kingme puzzles verify, "
            "kingme puzzles calendar --extend",
            file=sys.stderr,
        )
    return 0


def _run_withdraw(args: argparse.Namespace) -> int:
    """Take a puzzle found unsound out of the collection, its day (if still to come) to a stand-in."""
    path: Path = args.file
    if not calendar_path(path).exists():
        raise PuzzleError(f"{path} has no calendar beside it ({calendar_path(path).name}); withdraw keeps one true")
    today: date = args.today or utc_today()
    collection = Collection.from_path(path)
    day = collection.schedule.day_of(args.id)
    kept = collection.withdrawn(args.id, today)
    # The calendar first: if the second write never happens, the withdrawn puzzle is merely
    # unscheduled, and both files still load together.
    write_whole(calendar_path(path), kept.schedule.to_text())
    _save(path, kept)
    if day is None:
        print(f"{args.id} withdrawn; no day had it")
    else:
        print(f"{args.id} withdrawn; {day.isoformat()} now shows {kept.schedule.puzzle_id(day)}")
    return 0


def _read_calendar(file: Path) -> Calendar:
    """The days of the collection ``file``: its calendar file alone when it has one, so that
    printing a week does not read and check every puzzle of the collection (the collection
    and its calendar are checked against each other wherever both are loaded: the server,
    ``--extend``, the tests)."""
    days = calendar_path(file)
    if days.exists():
        return Calendar.from_text(days.read_text(encoding="utf-8"))
    return Collection.from_path(file).schedule


def _extend(file: Path, today: date) -> Calendar:
    """Append whole weeks of the collection's unused puzzles to its calendar, and write it."""
    collection = Collection.from_path(file)
    calendar = collection.schedule.extended(collection.puzzles, today)
    write_whole(calendar_path(file), calendar.to_text())
    added = len(calendar) - len(collection.schedule)
    print(
        f"{plural(added, 'day')} added; the calendar covers {plural(len(calendar), 'day')}, "
        f"through {calendar.last_day}",
        file=sys.stderr,
    )
    return calendar


def generate_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--count", type=_positive, default=365, help="puzzles to generate (default 365)")
    parser.add_argument("--games", type=_positive, default=4000, help="most engine games to search (default 4000)")
    parser.add_argument(
        "--first-game",
        type=whole_number(0),
        help="number of the first game (its seed; default: where the last run stopped)",
    )
    parser.add_argument("--output", type=Path, default=stored_path(), help="collection file (default: the package's)")
    parser.add_argument("--fresh", action="store_true", help="start a new file instead of appending")
    parser.add_argument("--no-classics", action="store_true", help="leave out the classic positions")
    parser.set_defaults(run=_run_generate)


def endings_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pieces", type=whole_number(2, 6), required=True, help="pieces in each ending (2 to 6)")
    parser.add_argument("--count", type=_positive, default=20, help="puzzles to find (default 20)")
    parser.add_argument("--seed", type=whole_number(0), default=1, help="which random positions (default 1)")
    parser.add_argument("--solver-moves", type=_positive, default=3, help="longest line, in solver's moves (default 3)")
    parser.add_argument("--output", type=Path, required=True, help="the new collection file to write")
    parser.set_defaults(run=_run_endings)


def verify_options(parser: argparse.ArgumentParser) -> None:
    from kingme.daily.puzzles.analysis import VERIFY_DEPTH  # imports the engine, which verify needs anyway

    _collection_file(parser)
    parser.add_argument("--limit", type=_positive, default=0, help="verify only the first N puzzles")
    parser.add_argument(
        "--unscheduled", action="store_true", help="verify only the puzzles no day has yet (before calendar --extend)"
    )
    parser.add_argument("--depth", type=_positive, default=VERIFY_DEPTH, help=f"search depth (default {VERIFY_DEPTH})")
    parser.set_defaults(run=_run_verify)


def calendar_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--from", dest="start", type=_day, help="first day to print, YYYY-MM-DD (default: today)")
    parser.add_argument("--to", dest="end", type=_day, help="last day to print (default: six days after --from)")
    parser.add_argument(
        "--extend", action="store_true", help="first append whole weeks of unused puzzles (verify first)"
    )
    _collection_file(parser)
    parser.add_argument("--today", type=_day, help="count from this day instead of today (UTC)")
    parser.set_defaults(run=_run_calendar)


def withdraw_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", help="the puzzle found unsound (kingme puzzles verify names it)")
    _collection_file(parser)
    parser.add_argument("--today", type=_day, help="count from this day instead of today (UTC)")
    parser.set_defaults(run=_run_withdraw)


def _collection_file(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--file", type=Path, default=stored_path(), help="collection file (default: the package's)")

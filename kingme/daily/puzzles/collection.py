"""The stored puzzle collection, the puzzle of the day and the archive of past days.

The collection is ``data/puzzles.json`` in this package: a JSON object ``{"puzzles": [...]}``
in a fixed order, only ever appended to, with ``next_game``, the engine game a resumed
``kingme puzzles generate`` plays first. Which puzzle a day shows is not the collection's
order but the calendar next to it, ``data/calendar.txt`` (see ``calendar``). A collection read
without a calendar (a test's, a file given to ``verify``) shows its puzzles in order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import cache
from importlib import resources
from pathlib import Path

from kingme.daily.puzzles.calendar import FIRST_DAY, Calendar
from kingme.daily.puzzles.model import Puzzle, PuzzleError

__all__ = ["FIRST_DAY", "MAX_ARCHIVE_DAYS", "Collection", "calendar_path", "stored_collection", "stored_path"]

#: The most days the archive lists in one answer.
MAX_ARCHIVE_DAYS = 366


@dataclass(frozen=True)
class Collection:
    """Puzzles in the order they were added, reachable by id, with the calendar of their days
    (by default the puzzles in order) and the engine game ``generate`` resumes from."""

    puzzles: tuple[Puzzle, ...]
    calendar: Calendar | None = None
    next_game: int = 0
    _by_id: dict[str, Puzzle] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.puzzles:
            raise PuzzleError("the puzzle collection is empty")
        for puzzle in self.puzzles:
            if puzzle.id in self._by_id:
                raise PuzzleError(f"puzzle id {puzzle.id!r} appears twice in the collection")
            self._by_id[puzzle.id] = puzzle
        if self.calendar is None:
            object.__setattr__(self, "calendar", Calendar(tuple(self._by_id)))
        missing = next((i for i in self.schedule.ids if i not in self._by_id), None)
        if missing is not None:
            raise PuzzleError(f"the calendar names puzzle {missing!r}, which is not in the collection")
        if not isinstance(self.next_game, int) or isinstance(self.next_game, bool) or self.next_game < 0:
            raise PuzzleError(f"next_game must be a whole number of at least 0, not {str(self.next_game)[:20]!r}")

    @property
    def schedule(self) -> Calendar:
        """The calendar of the days (never ``None`` once built)."""
        assert self.calendar is not None
        return self.calendar

    def __len__(self) -> int:
        return len(self.puzzles)

    def get(self, puzzle_id: object) -> Puzzle:
        """The puzzle called ``puzzle_id``; ``PuzzleError`` if there is none."""
        if isinstance(puzzle_id, str) and puzzle_id in self._by_id:
            return self._by_id[puzzle_id]
        raise PuzzleError(f"there is no puzzle with id {str(puzzle_id)[:60]!r}")

    def of_the_day(self, day: date) -> Puzzle:
        """The puzzle of ``day`` from the calendar; days before ``FIRST_DAY`` have none."""
        return self._by_id[self.schedule.puzzle_id(day)]

    def archive(self, until: date, days: int = 30) -> list[tuple[date, Puzzle]]:
        """The puzzles of the ``days`` days up to and including ``until``, newest first."""
        if not 1 <= days <= MAX_ARCHIVE_DAYS:
            raise PuzzleError(f"the archive lists 1 to {MAX_ARCHIVE_DAYS} days at a time, not {days}")
        span = min(days, (until - FIRST_DAY).days + 1)
        return [(until - timedelta(n), self.of_the_day(until - timedelta(n))) for n in range(max(span, 0))]

    def withdrawn(self, puzzle_id: str, today: date) -> Collection:
        """This collection without the puzzle ``puzzle_id``, found unsound before its day, whose
        day (if it has one) shows a stand-in instead (``Calendar.without``: a day that has come
        keeps its puzzle, so withdrawing that day's puzzle is refused)."""
        puzzle = self.get(puzzle_id)
        calendar = self.schedule.without(puzzle, self.puzzles, today)
        return Collection(tuple(p for p in self.puzzles if p is not puzzle), calendar, self.next_game)

    def to_json(self) -> str:
        """The collection file (the calendar is written on its own, ``Calendar.to_text``)."""
        data = {"next_game": self.next_game, "puzzles": [p.to_dict() for p in self.puzzles]}
        return json.dumps(data, indent=1, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str, calendar: Calendar | None = None) -> Collection:
        """Read a collection file, checking every puzzle (``PuzzleError`` names the bad one)."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise PuzzleError(f"the puzzle file is not valid JSON: {error}") from None
        if not isinstance(data, dict) or not isinstance(data.get("puzzles"), list):
            raise PuzzleError("the puzzle file must be an object with a list 'puzzles'")
        unknown = set(data) - {"puzzles", "next_game"}
        if unknown:
            raise PuzzleError(f"unknown field(s) in the puzzle file: {', '.join(sorted(unknown))[:200]}")
        return cls(tuple(Puzzle.from_dict(item) for item in data["puzzles"]), calendar, data.get("next_game", 0))

    @classmethod
    def from_path(cls, path: Path) -> Collection:
        """Read a collection file and, when there is one beside it, its calendar."""
        days = calendar_path(path)
        calendar = Calendar.from_text(days.read_text(encoding="utf-8")) if days.exists() else None
        return cls.from_json(path.read_text(encoding="utf-8"), calendar)


def stored_path() -> Path:
    """Where the package keeps its collection (written by ``kingme puzzles generate``)."""
    return Path(str(resources.files("kingme.daily.puzzles").joinpath("data", "puzzles.json")))


def calendar_path(collection: Path) -> Path:
    """The calendar of the collection file ``collection``: ``calendar.txt`` beside it."""
    return collection.with_name("calendar.txt")


@cache
def stored_collection() -> Collection:
    """The package's collection with its calendar, read once per process."""
    data = resources.files("kingme.daily.puzzles").joinpath("data")
    calendar = Calendar.from_text(data.joinpath("calendar.txt").read_text(encoding="utf-8"))
    return Collection.from_json(data.joinpath("puzzles.json").read_text(encoding="utf-8"), calendar)

"""The stored puzzle collection, the puzzle of the day and the archive of past days.

The collection is ``data/puzzles.json`` in this package: a JSON object ``{"puzzles": [...]}``
in a fixed order. Day ``n`` after ``FIRST_DAY`` gets puzzle ``n mod len(collection)``, so the
mapping is a pure function of the date and the file. New puzzles are appended at the end, which
leaves every day before ``FIRST_DAY + len(collection)`` unchanged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache
from importlib import resources
from pathlib import Path

from kingme.engine.puzzles.model import Puzzle, PuzzleError

#: The first day with a puzzle of the day; the archive starts here.
FIRST_DAY = date(2026, 1, 1)
#: The most days the archive lists in one answer.
MAX_ARCHIVE_DAYS = 366


@dataclass(frozen=True)
class Collection:
    """Puzzles in their daily order, also reachable by id."""

    puzzles: tuple[Puzzle, ...]

    def __post_init__(self) -> None:
        if not self.puzzles:
            raise PuzzleError("the puzzle collection is empty")
        seen: set[str] = set()
        for puzzle in self.puzzles:
            if puzzle.id in seen:
                raise PuzzleError(f"puzzle id {puzzle.id!r} appears twice in the collection")
            seen.add(puzzle.id)

    def __len__(self) -> int:
        return len(self.puzzles)

    def get(self, puzzle_id: object) -> Puzzle:
        """The puzzle called ``puzzle_id``; ``PuzzleError`` if there is none."""
        for puzzle in self.puzzles:
            if puzzle.id == puzzle_id:
                return puzzle
        raise PuzzleError(f"there is no puzzle with id {str(puzzle_id)[:60]!r}")

    def of_the_day(self, day: date) -> Puzzle:
        """The puzzle of ``day``; days before ``FIRST_DAY`` have none."""
        if day < FIRST_DAY:
            raise PuzzleError(f"daily puzzles start on {FIRST_DAY.isoformat()}; there is none for {day.isoformat()}")
        return self.puzzles[(day - FIRST_DAY).days % len(self.puzzles)]

    def archive(self, until: date, days: int = 30) -> list[tuple[date, Puzzle]]:
        """The puzzles of the ``days`` days up to and including ``until``, newest first."""
        if not 1 <= days <= MAX_ARCHIVE_DAYS:
            raise PuzzleError(f"the archive lists 1 to {MAX_ARCHIVE_DAYS} days at a time, not {days}")
        span = min(days, (until - FIRST_DAY).days + 1)
        return [(until - timedelta(n), self.of_the_day(until - timedelta(n))) for n in range(max(span, 0))]

    def to_json(self) -> str:
        return json.dumps({"puzzles": [p.to_dict() for p in self.puzzles]}, indent=1, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Collection:
        """Read a collection file, checking every puzzle (``PuzzleError`` names the bad one)."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise PuzzleError(f"the puzzle file is not valid JSON: {error}") from None
        if not isinstance(data, dict) or not isinstance(data.get("puzzles"), list):
            raise PuzzleError("the puzzle file must be an object with a list 'puzzles'")
        return cls(tuple(Puzzle.from_dict(item) for item in data["puzzles"]))

    @classmethod
    def from_path(cls, path: Path) -> Collection:
        return cls.from_json(path.read_text(encoding="utf-8"))


def stored_path() -> Path:
    """Where the package keeps its collection (written by ``kingme puzzles generate``)."""
    return Path(str(resources.files("kingme.engine.puzzles").joinpath("data", "puzzles.json")))


@cache
def stored_collection() -> Collection:
    """The package's collection, read once per process."""
    return Collection.from_json(resources.files("kingme.engine.puzzles").joinpath("data", "puzzles.json").read_text())

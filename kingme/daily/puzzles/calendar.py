"""The calendar of daily puzzles: the puzzle of every day, written down once and never changed.

Why a stored calendar rather than a rule over the collection. The first rule, day *n* gets
puzzle *n* mod the collection's size, reassigns past days as soon as the collection grows after
it wraps; any rule that picks a day's puzzle from the whole collection (by difficulty, theme or
hash) would do the same, and so would any later change to the rule's own code. A day's puzzle is
therefore stored: ``data/calendar.txt`` holds one line ``YYYY-MM-DD PUZZLE_ID`` per day from
``FIRST_DAY``, without gaps, and is only ever appended to (``extended``). What a day showed
is read back, not recomputed, so neither a grown collection nor a better way of choosing the
next weeks can change it; a test pins the whole past. The one change to a day still to come:
a puzzle found unsound before its day (a later engine finds a defence to it) is withdrawn,
``kingme puzzles withdraw``, and its day shows a stand-in (``without``), so no player is ever
served a puzzle known to be wrong and no day that has come changes. Its first 335 lines are the days of the
first rule up to 2026-12-01 (the day the calendar was introduced), which is what they showed.

After the last day it covers, the calendar starts over from its first day: day *n* shows the
puzzle of day *n* mod the number of covered days, so the site always has a puzzle. When the
calendar is extended after it has run out, the days that have already come keep that repeated
puzzle: they are written down first, as they were shown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from kingme.daily.puzzles.model import Puzzle, PuzzleError
from kingme.daily.puzzles.weekly import pick_week, stand_in

#: The first day with a puzzle of the day; the archive starts here.
FIRST_DAY = date(2026, 1, 1)
#: ``kingme puzzles calendar`` warns when the calendar runs out within this many days.
WARNING_DAYS = 60
_LINE = re.compile(r"(\d{4}-\d{2}-\d{2}) ([a-z0-9][a-z0-9-]{0,47})")


@dataclass(frozen=True)
class Calendar:
    """``ids[n]`` is the puzzle of day ``FIRST_DAY + n``; the days covered end at ``last_day``."""

    ids: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.ids:
            raise PuzzleError("the puzzle calendar is empty")

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def last_day(self) -> date:
        """The last day the calendar covers; later days repeat it from its start."""
        return FIRST_DAY + timedelta(len(self.ids) - 1)

    def covers(self, day: date) -> bool:
        return FIRST_DAY <= day <= self.last_day

    def puzzle_id(self, day: date) -> str:
        """The id of ``day``'s puzzle; after ``last_day``, that of day *n* mod the covered days."""
        if day < FIRST_DAY:
            raise PuzzleError(f"daily puzzles start on {FIRST_DAY.isoformat()}; there is none for {day.isoformat()}")
        return self.ids[(day - FIRST_DAY).days % len(self.ids)]

    def day_of(self, puzzle_id: str) -> date | None:
        """The day the calendar gives ``puzzle_id`` (no puzzle has two), or None if no day has it."""
        return FIRST_DAY + timedelta(self.ids.index(puzzle_id)) if puzzle_id in self.ids else None

    def extended(self, puzzles: Iterable[Puzzle], today: date) -> Calendar:
        """This calendar with whole weeks appended from the ``puzzles`` no day has had yet.

        The days up to ``today`` that it did not cover are written down first with the puzzle
        they were shown (a repeat, see the module), so that no day that has come changes. Then
        each week (Monday to Sunday; the first one may start mid-week) takes its puzzles from
        ``kingme.daily.puzzles.weekly.pick_week``; a week is only added when it can be filled.
        """
        ids = list(self.ids)
        ids += [self.puzzle_id(FIRST_DAY + timedelta(n)) for n in range(len(ids), (today - FIRST_DAY).days + 1)]
        used = set(ids)
        unused = [p for p in puzzles if p.id not in used]
        while True:
            day = FIRST_DAY + timedelta(len(ids))
            week = pick_week(unused, 7 - day.weekday())
            if week is None:
                return Calendar(tuple(ids))
            ids += [p.id for p in week]
            chosen = {p.id for p in week}
            unused = [p for p in unused if p.id not in chosen]

    def without(self, withdrawn: Puzzle, puzzles: Sequence[Puzzle], today: date) -> Calendar:
        """This calendar with the day of ``withdrawn`` (a puzzle found unsound before its day)
        given to the stand-in ``kingme.daily.puzzles.weekly.stand_in`` picks from the
        ``puzzles`` no day has; unchanged when ``withdrawn`` has no day.

        A day that has come keeps its puzzle, so ``PuzzleError`` when ``withdrawn``'s day is
        ``today`` or earlier, and when no unused puzzle fits its place in the week.
        """
        day = self.day_of(withdrawn.id)
        if day is None:
            return self
        n = (day - FIRST_DAY).days
        if day <= today:
            raise PuzzleError(f"{withdrawn.id} was the puzzle of {day.isoformat()}, a day that has come; it keeps it")
        by_id = {p.id: p for p in puzzles}
        before = by_id[self.ids[n - 1]] if day.weekday() > 0 and n > 0 else None
        after = by_id[self.ids[n + 1]] if day.weekday() < 6 and n + 1 < len(self.ids) else None
        used = set(self.ids)
        pick = stand_in(withdrawn, before, after, [p for p in puzzles if p.id not in used])
        if pick is None:
            raise PuzzleError(
                f"no unused puzzle fits {day.isoformat()}'s place in its week; generate and verify more first"
            )
        return Calendar((*self.ids[:n], pick.id, *self.ids[n + 1 :]))

    def lines(self, start: date, end: date) -> list[str]:
        """``YYYY-MM-DD PUZZLE_ID`` for each day from ``start`` to ``end``; a day after the
        calendar's end says which covered day it repeats."""
        if start > end:
            raise PuzzleError(f"the range starts ({start.isoformat()}) after it ends ({end.isoformat()})")
        out = []
        for n in range((end - start).days + 1):
            day = start + timedelta(n)
            line = f"{day.isoformat()} {self.puzzle_id(day)}"
            if not self.covers(day):
                line += f"  (repeats {(FIRST_DAY + timedelta((day - FIRST_DAY).days % len(self))).isoformat()})"
            out.append(line)
        return out

    def to_text(self) -> str:
        return "\n".join(self.lines(FIRST_DAY, self.last_day)) + "\n"

    @classmethod
    def from_text(cls, text: str) -> Calendar:
        """Read a calendar file: one ``YYYY-MM-DD PUZZLE_ID`` line per day from ``FIRST_DAY``, in
        order, without gaps (``PuzzleError`` names the first bad line)."""
        ids: list[str] = []
        for number, line in enumerate(text.splitlines(), start=1):
            match = _LINE.fullmatch(line)
            expected = FIRST_DAY + timedelta(len(ids))
            if not match:
                raise PuzzleError(f"calendar line {number} is not 'YYYY-MM-DD PUZZLE_ID': {line[:60]!r}")
            if match[1] != expected.isoformat():
                raise PuzzleError(f"calendar line {number} is for {match[1]}, expected {expected.isoformat()}")
            ids.append(match[2])
        return cls(tuple(ids))

"""The daily game: one setup per UTC day, the same for everybody.

Everyone who plays on a given UTC day meets the ``club`` level ('Beat Club') under American
rules from the standard position, with the same colour and the same replay seed. The computer's
move is a pure function of (setup, moves, level), so the seed ``daily-YYYY-MM-DD`` makes it
answer the same moves the same way for every player, and a different day plays differently.

The player's colour alternates by the Unix day number (days since 1970-01-01): Red (Black, who
moves first) on even days, White on odd days.

>>> daily_game(date(2026, 11, 29)).player, daily_game(date(2026, 11, 30)).player
('black', 'white')
>>> daily_game(date(2026, 11, 29)).setup.seed
'daily-2026-11-29'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from kingme.game import Setup
from kingme.rules import Color, KingmeError, opponent
from kingme.rules.fen import START_FEN

#: The daily opponent ('Beat Club').
DAILY_LEVEL = "club"
DAILY_VARIANT = "american"
_UNIX_EPOCH = date(1970, 1, 1)
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


class DayError(KingmeError):
    """A date from outside that is not a valid ``YYYY-MM-DD`` day."""


class DailyRulesError(KingmeError):
    """An action the daily game does not allow: a takeback, a hint, another level."""


def utc_today(now: datetime | None = None) -> date:
    """The current UTC day (``now`` is for tests; a naive ``now`` is taken as UTC)."""
    moment = now or datetime.now(UTC)
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.date()


def parse_day(text: object) -> date:
    """A day written ``YYYY-MM-DD``; anything else raises ``DayError`` naming the problem.

    >>> parse_day("2026-02-28")
    datetime.date(2026, 2, 28)
    """
    if not isinstance(text, str) or not _ISO_DAY.fullmatch(text):
        raise DayError(f"a day must be written YYYY-MM-DD, not {str(text)[:40]!r}")
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise DayError(f"{text!r} is not a day of the calendar") from None


def player_color(day: date) -> Color:
    """The colour everybody plays on ``day``: Black (shown as Red) on even Unix days, else White."""
    return "black" if (day - _UNIX_EPOCH).days % 2 == 0 else "white"


def daily_seed(day: date) -> str:
    """The replay seed of the day's game, so the computer's replies are the same for everyone."""
    return f"daily-{day.isoformat()}"


@dataclass(frozen=True)
class DailyGame:
    """The day's game: its date, the player's colour, the computer's level and the setup."""

    day: date
    player: Color
    level: str
    setup: Setup

    @property
    def computer(self) -> Color:
        return opponent(self.player)

    def to_dict(self) -> dict[str, Any]:
        return {
            "date": self.day.isoformat(),
            "player": self.player,
            "computer": self.computer,
            "level": self.level,
            "setup": self.setup.to_dict(),
            "undo": False,
            "hint": False,
        }


def daily_game(day: date) -> DailyGame:
    """The daily game of ``day`` (a pure function of the date)."""
    return DailyGame(day, player_color(day), DAILY_LEVEL, Setup(DAILY_VARIANT, START_FEN, daily_seed(day)))


def is_daily_setup(setup: Setup) -> bool:
    """True when ``setup`` is some day's daily game (its seed is ``daily-YYYY-MM-DD``).

    The server uses this to refuse takebacks and hints in the daily game.
    """
    seed = setup.seed
    if not seed.startswith("daily-"):
        return False
    try:
        day = parse_day(seed.removeprefix("daily-"))
    except DayError:
        return False
    return setup == daily_game(day).setup


def refuse_in_daily(setup: Setup, action: str, level: str | None = None) -> None:
    """Refuse ``action`` (undo, hint) in a daily game, or a computer level other than the daily one.

    The one-device API calls this, so a daily game cannot be taken back or helped by the server.
    """
    if not is_daily_setup(setup):
        return
    if level is None:
        raise DailyRulesError(f"{action} is off in the daily game")
    if level != DAILY_LEVEL:
        raise DailyRulesError(f"the daily game is played against the {DAILY_LEVEL} level, not {level}")

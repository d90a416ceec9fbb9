"""Time controls and the clock of an online room, kept by the server alone.

A room's host picks a time control when creating it (``TIME_CONTROLS``: untimed, the Fischer
controls players expect, or a correspondence game of 1 to 3 days a move). The clock is a value
(``Clock``): each side's remaining milliseconds and, while a side's clock runs, the server time
(Unix milliseconds) it started running. The server decides every change when it decides the
event that causes it (a move, the friend joining, a new game, an undo, the end of the game) and
stores the clock after it *in the event*, so every process applying the event — now, after a
restart, or on another process — reaches the same remaining times, and no clock depends on
when an event is applied. A client never says how much time it used.

Where the rules of the field differ, kingme chooses (and the help page says so):

- the clock starts when both seats are taken (at once for the next game of a rematch): the
  first move is timed, as over the board, not free as on some sites;
- Fischer: the increment is added after each move, the first one included;
- correspondence: each move has the whole period (1 to 3 days), which starts afresh after each
  move; the room lives 30 days without a move, longer than any period;
- a player whose time runs out loses, whatever is left on the board;
- an undo takes back moves, not time: the clock of the side to move after it runs from then;
- lag compensation: a move's time is counted from when the server sent the position, less the
  mover's measured round trip up to ``MAX_LAG_CREDIT_MS`` (below).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kingme.rules import Color, opponent

SECOND_MS = 1000
DAY_MS = 86_400 * SECOND_MS
#: The most a move's time is reduced for the mover's network (a server-measured round trip: the
#: position's way to the player and the move's way back). An honest player on a connection up to
#: this slow loses no time to it; a slower one loses only the excess. A player who delays its
#: answers to the server's probes, to look slower than it is, gains at most this much a move:
#: less than every offered increment but 5+0's zero, and in a 5+0 game of 40 moves 12 s of 300
#: (4%), while a bound much lower would charge ordinary mobile connections (100–300 ms round
#: trips) for their network on every move.
MAX_LAG_CREDIT_MS = 300
#: A Fischer control's name: minutes, then seconds of increment ("3+2").
FISCHER = re.compile(r"(\d{1,3})\+(\d{1,3})")


@dataclass(frozen=True)
class TimeControl:
    """``name`` as the wire and the page say it; ``initial_ms`` each side's time at the start
    (none: untimed), ``increment_ms`` added after each move; ``per_move``: correspondence, each
    move has ``initial_ms`` afresh."""

    name: str
    initial_ms: int = 0
    increment_ms: int = 0
    per_move: bool = False

    @property
    def timed(self) -> bool:
        return self.initial_ms > 0

    def to_wire(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "initial_ms": self.initial_ms,
            "increment_ms": self.increment_ms,
            "per_move": self.per_move,
        }


UNTIMED = TimeControl("untimed")


def fischer(minutes: int, increment: int) -> TimeControl:
    return TimeControl(f"{minutes}+{increment}", minutes * 60 * SECOND_MS, increment * SECOND_MS)


def correspondence(days: int) -> TimeControl:
    return TimeControl(f"{days}d", days * DAY_MS, per_move=True)


#: The time controls a host may pick, by name.
TIME_CONTROLS: dict[str, TimeControl] = {
    control.name: control
    for control in (
        UNTIMED,
        fischer(3, 2),
        fischer(5, 0),
        fischer(10, 5),
        fischer(15, 10),
        correspondence(1),
        correspondence(2),
        correspondence(3),
    )
}
#: Test-only controls in seconds ("test:2+0": 2 s, no increment), which a server accepts only
#: when ``KINGME_TEST_TIME_CONTROLS`` is set, so browser tests can see a flag fall without
#: playing for minutes.
TEST_CONTROL = re.compile(r"test:(\d{1,2})\+(\d{1,2})")


def time_control(name: object, allow_test: bool = False) -> TimeControl:
    """The control called ``name``; ``ValueError`` naming the allowed ones otherwise."""
    if isinstance(name, str):
        if name in TIME_CONTROLS:
            return TIME_CONTROLS[name]
        test = TEST_CONTROL.fullmatch(name) if allow_test else None
        if test and int(test[1]) > 0:
            return TimeControl(name, int(test[1]) * SECOND_MS, int(test[2]) * SECOND_MS)
    raise ValueError(f"time_control must be one of: {', '.join(TIME_CONTROLS)}")


@dataclass(frozen=True)
class Clock:
    """Each side's remaining milliseconds; ``running``, whose clock runs (None: stopped) since
    ``since`` (Unix milliseconds on the server)."""

    black: int
    white: int
    running: Color | None = None
    since: int = 0

    def left(self, color: Color, now: int) -> int:
        """``color``'s time at ``now``: its remaining time less what has run since, down to 0."""
        stored = self.black if color == "black" else self.white
        return max(0, stored - (now - self.since)) if self.running == color else stored

    def flag_at(self) -> int | None:
        """When the running side's time runs out (None while no clock runs)."""
        if self.running is None:
            return None
        return self.since + (self.black if self.running == "black" else self.white)

    def _with(self, color: Color, remaining: int) -> Clock:
        black, white = (remaining, self.white) if color == "black" else (self.black, remaining)
        return Clock(black, white, self.running, self.since)

    def started(self, color: Color, now: int) -> Clock:
        """The clock with ``color``'s time running from ``now`` (the other side's stopped as it is)."""
        stopped = self.stopped(now)
        return Clock(stopped.black, stopped.white, color, now)

    def stopped(self, now: int) -> Clock:
        """The clock with the running side's time spent up to ``now``, and nothing running."""
        if self.running is None:
            return self
        spent = self._with(self.running, self.left(self.running, now))
        return Clock(spent.black, spent.white, None, 0)

    def after_move(self, control: TimeControl, mover: Color, now: int, lag_ms: int, game_on: bool) -> Clock:
        """The clock after ``mover``'s move received at ``now``: the move's time counted from
        when the position was sent (``since``) less the mover's round trip up to
        ``MAX_LAG_CREDIT_MS``, never less than nothing; then the increment, or a fresh period for
        correspondence; the opponent's clock runs unless the game is over."""
        credit = min(max(lag_ms, 0), MAX_LAG_CREDIT_MS)
        used = max(0, now - self.since - credit) if self.running == mover else 0
        stored = self.black if mover == "black" else self.white
        remaining = control.initial_ms if control.per_move else max(0, stored - used) + control.increment_ms
        after = Clock(*((remaining, self.white) if mover == "black" else (self.black, remaining)))
        return after.started(opponent(mover), now) if game_on else after

    def to_wire(self) -> dict[str, Any]:
        return {"black": self.black, "white": self.white, "running": self.running, "since": self.since}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> Clock:
        """A clock as ``to_wire`` wrote it (read back from this server's own storage)."""
        return cls(int(data["black"]), int(data["white"]), data["running"], int(data["since"]))

    @classmethod
    def fresh(cls, control: TimeControl) -> Clock:
        return cls(control.initial_ms, control.initial_ms)

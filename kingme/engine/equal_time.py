"""Equal-time matches: kingme plays by nodes, the engine it is measured against by time.

kingme's moves are a function of the position and the node budget, never of a clock. To compare
it with an engine that plays by time (Cake, as a user comparing the two would), the match measures
the time the side playing by nodes — the *pacer* — used on each of its moves and gives the engine
the time of the pacer's last *searched* move for its next move (``go movetime MS``,
docs/engine-protocol.md). A move from the pacer's opening book or endgame tables, or its only
legal move, takes under a millisecond: it is not searched (``SEARCHED_MS``) and leaves the engine's
time as it was, as a user setting one time a move for both engines would see it. Before the pacer
has searched in a game (its book covers the ballots' first moves), the engine is given the pacer's
*reference time*: its median time a move searching a few fixed positions with its book off,
measured once at the start of a match and kept in the match record (``reference_line``).

The time is CPU time of the process where each search runs (this process for a level of this
kingme, the child process for a frozen copy or an external engine), not wall time: on a machine
shared with other work, or with two match workers on two cores, wall time counts the time a
search waited for a core, which depends on the load and not on the engine, while CPU time counts
what the search used. On an idle machine with a core for each worker the two agree, which is what
a user timing the two engines sees. Cake's own clock (``clock()``) is CPU time on Linux too.

Importing this module loads no compiled code (see ``kingme.engine.match``).
"""

from __future__ import annotations

import itertools
import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Self

from kingme.engine.ballots import ballot_openings
from kingme.game import Game, Setup
from kingme.rules import KingmeError, Move

if TYPE_CHECKING:
    from kingme.engine.match import Contestant, GameTask

#: The CPU seconds used so far by the process with this id (``None``: this process).
Clock = Callable[[int | None], float]

#: The longest move an equal-time match hands over or accepts, in milliseconds: an hour, far
#: beyond any match move (master thinks about a second), and within a C engine's 32-bit int.
MAX_MOVETIME_MS = 3_600_000
#: The least time given: ``go movetime`` takes a whole number from 1, and a pacer that never
#: searches (``random``) has a reference time of 0.
MIN_MOVETIME_MS = 1
#: A pacer's move that used less CPU time than this, in milliseconds, was not searched, and does
#: not change the engine's time: two of the kernel's 10 ms clock ticks (a child's CPU time is read
#: in ticks, so an answer of a few microseconds can read as one tick, never as two), where a
#: move from the book or the tables or an only move takes well under one and master's lightest
#: real search (4,000,000 nodes, or a short ending solved to its depth limit) far more.
SEARCHED_MS = 20
#: The pacer's reference time is its median over this many positions: the first ballots' positions
#: with more than one legal move (``reference_positions``), searched with its book off. Five give
#: a median that one slow or quick search does not move, for about five seconds of master's time
#: once a match.
REFERENCE_POSITIONS = 5
#: How a match record's reference line begins (``reference_line``).
REFERENCE_PREFIX = "# reference "
#: An engine given time is stopped, as not keeping to ``go movetime``, once its time used in a game
#: exceeds what it was given this many times over plus ``OVERSPEND_GRACE_MS``. A time-keeping
#: engine may overrun one move (Cake 1.89, built with its TIMEOPTIMIZED switch, begins no
#: iteration after 57% of its time and aborts one at 2.5 times it), but over a game it uses about
#: what it was given, or less; the grace covers the
#: clock's 10 ms ticks and an engine's interval between time checks on short moves. An engine
#: that ignores the budget and thinks its own seconds trips it in a move or two.
OVERSPEND_FACTOR = 2
OVERSPEND_GRACE_MS = 1_000


def cpu_seconds(pid: int | None) -> float:
    """CPU seconds (user and system, all threads, living and ended) used so far by process
    ``pid``, or by this process when ``None``. A child's are read from ``/proc/PID/stat`` (Linux),
    counted in the kernel's clock ticks (a hundredth of a second on Linux): one move's figure is
    within a tick, a match's mean far closer."""
    if pid is None:
        return time.process_time()
    path = Path(f"/proc/{pid}/stat")
    try:
        stat = path.read_text()
    except OSError as error:
        reason = error.strerror or type(error).__name__
        message = f"cannot read the CPU time of process {pid} ({path}: {reason}); equal time needs Linux's /proc"
        raise KingmeError(message) from None
    # The command name, field 2, is in parentheses and may hold spaces: count fields after it.
    # utime and stime are fields 14 and 15, the 12th and 13th after the name.
    fields = stat.rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _ms_list(values: Sequence[int]) -> str:
    return ",".join(map(str, values))


def _is_milliseconds(text: str) -> bool:
    """Whether ``text`` is a whole number of milliseconds from 0 to ``MAX_MOVETIME_MS`` (its
    length checked first: Python refuses to read an int of over 4,300 digits)."""
    return text.isascii() and text.isdigit() and len(text) <= len(str(MAX_MOVETIME_MS)) and int(text) <= MAX_MOVETIME_MS


@dataclass(frozen=True)
class MoveTimes:
    """The times of an equal-time game or match in milliseconds of CPU time, move by move: what the
    pacer used on each of its moves, and for each of the engine's moves what it was given and what
    it used."""

    pacer: tuple[int, ...] = ()
    given: tuple[int, ...] = ()
    engine: tuple[int, ...] = ()

    #: The names of the lists in a match record's line, in order.
    FIELDS = ("pacer", "given", "engine")

    def __add__(self, other: MoveTimes) -> MoveTimes:
        return MoveTimes(self.pacer + other.pacer, self.given + other.given, self.engine + other.engine)

    def text(self) -> str:
        """The times as a match record holds them: ``pacer=512,430 given=512,430 engine=498,441``."""
        return " ".join(f"{name}={_ms_list(getattr(self, name))}" for name in self.FIELDS)

    @classmethod
    def parse(cls, text: str) -> Self:
        """The times written by ``text()``; ``KingmeError`` naming what is wrong otherwise."""
        words = text.split(" ")
        names = [word.partition("=")[0] for word in words]
        if names != list(cls.FIELDS):
            raise KingmeError(f"the times must be {' '.join(name + '=MS,...' for name in cls.FIELDS)}")
        lists = []
        for word in words:
            values = word.partition("=")[2]
            numbers = values.split(",") if values else []
            if not all(map(_is_milliseconds, numbers)):
                raise KingmeError(f"{word[:40]!r} is not a list of milliseconds from 0 to {MAX_MOVETIME_MS}")
            lists.append(tuple(map(int, numbers)))
        if len(lists[1]) != len(lists[2]):
            raise KingmeError("the engine's times given and used are not as many")
        return cls(*lists)

    def summary(self, pacer: str, engine: str) -> str:
        """Each side's CPU time a move, mean and median, so a reader can check they were equal."""

        def figures(values: tuple[int, ...]) -> str:
            if not values:
                return "no moves"
            return f"{statistics.mean(values):,.0f} / {statistics.median(values):,.0f}"

        return (
            f"CPU ms a move, mean / median: {pacer} used {figures(self.pacer)} over {len(self.pacer):,} moves; "
            f"{engine} was given {figures(self.given)} and used {figures(self.engine)} over {len(self.engine):,} moves"
        )


def _timed_move(
    side: Contestant, game: Game, movetime: int | None, clock: Clock, book: bool = True
) -> tuple[Move, int]:
    """``side``'s move in ``game`` (searched with its book off unless ``book``) and the whole
    milliseconds of CPU time its process used on it."""
    process = side.process()  # started first, so that starting it is not timed
    started = clock(process)
    move = side.choose(game, movetime, book)
    used = (clock(process) - started) * 1000
    if used < 0:
        raise KingmeError(f"the CPU clock of {side} went back {-used:.0f} ms during a move")
    if used > MAX_MOVETIME_MS:
        allowed = f"more than the {MAX_MOVETIME_MS:,} an equal-time match allows"
        raise KingmeError(f"{side} used {used:,.0f} ms on one move, {allowed}")
    return move, round(used)


def reference_positions() -> list[Game]:
    """The positions the pacer's reference time is measured on: the first ``REFERENCE_POSITIONS``
    ballots' positions (White to move) with more than one legal move, where a pacer searches
    unless its book holds them (the book starts there, so it is switched off)."""
    positions = (Game(moves=moves) for _, moves in ballot_openings())
    choices = (game for game in positions if len(game.legal_moves()) > 1)
    return list(itertools.islice(choices, REFERENCE_POSITIONS))


def measure_reference(pacer: Contestant, clock: Clock = cpu_seconds) -> int:
    """The pacer's reference time: its median CPU milliseconds a move over ``reference_positions``,
    each searched with its book off. A level of kingme, this one or a frozen copy, can switch its
    book off; an external engine cannot be asked to through the protocol and plays as in a game."""
    times = [_timed_move(pacer, game, None, clock, book=False)[1] for game in reference_positions()]
    return round(statistics.median(times))


def reference_line(milliseconds: int) -> str:
    """The match record's line after its header that keeps the pacer's reference time, so that a
    stopped match goes on with the reference its first games had."""
    what = f"the pacer's median CPU time a move over {REFERENCE_POSITIONS} ballot positions searched without its book"
    return f"{REFERENCE_PREFIX}{milliseconds} ms: {what}"


def parse_reference(line: str) -> int:
    """The milliseconds of a ``reference_line``; ``KingmeError`` naming what is wrong otherwise."""
    number, _, rest = line.removeprefix(REFERENCE_PREFIX).partition(" ")
    if not line.startswith(REFERENCE_PREFIX) or not _is_milliseconds(number) or not rest.startswith("ms:"):
        form = f"'{REFERENCE_PREFIX}MS ms: ...' with MS from 0 to {MAX_MOVETIME_MS}"
        raise KingmeError(f"the reference time must read {form}")
    return int(number)


def play_timed_game(task: GameTask, reference: int, clock: Clock = cpu_seconds) -> tuple[Game, MoveTimes]:
    """Play one game of an equal-time match (one side of ``task`` has ``equal_time``): the pacer
    by its budget, the engine on the time the pacer used on its last searched move, or on the
    pacer's ``reference`` time before it has searched in the game."""
    game = Game(Setup(task.variant, seed=task.seed), list(task.opening))
    engine, pacer = (task.black, task.white) if task.black.equal_time else (task.white, task.black)
    paced: list[int] = []
    given: list[int] = []
    used: list[int] = []
    last = reference  # the pacer's time on its last searched move
    while not game.is_over:
        if (task.black if game.turn == "black" else task.white).equal_time:
            budget = max(last, MIN_MOVETIME_MS)
            move, spent = _timed_move(engine, game, budget, clock)
            given.append(budget)
            used.append(spent)
            if sum(used) > OVERSPEND_FACTOR * sum(given) + OVERSPEND_GRACE_MS:
                raise KingmeError(
                    f"{engine} used {sum(used):,} ms of CPU time in a game where it was given {sum(given):,} "
                    f"(its last move {spent:,} ms for {budget:,}): it does not keep to 'go movetime'"
                )
        else:
            move, spent = _timed_move(pacer, game, None, clock)
            paced.append(spent)
            if spent >= SEARCHED_MS:
                last = spent
        game.push(move)
    return game, MoveTimes(tuple(paced), tuple(given), tuple(used))

"""Solving a puzzle one move at a time: the solver's move is checked against the line.

A solving session is only a count of plies of the solution already on the board (always even:
the solver is to move), so it needs no storage. A right move brings the defender's reply from
the solution line; a wrong (but legal) move is told and changes nothing, so it can be retried.
A wrong move that the puzzle lists as another win (a slower one, or one that also wins) is told
as such (``other_win``), so the player is asked for the intended move rather than told it loses.

>>> from kingme.daily.puzzles.model import Puzzle
>>> p = Puzzle("demo", "B:W14,23:B9", ("9x18x27",), "Double jump")
>>> attempt(p, 0, "9x27").solved
True
"""

from __future__ import annotations

from dataclasses import dataclass

from kingme.daily.puzzles.model import Puzzle, PuzzleError
from kingme.rules import Move


@dataclass(frozen=True)
class Attempt:
    """The outcome of one solver's move: whether it was the solution's, and what follows;
    ``other_win`` when it was not but the puzzle lists it as winning too: the name of the list
    (one of ``kingme.daily.puzzles.model.OTHER_WINS``)."""

    correct: bool
    move: str
    reply: str | None
    ply: int
    solved: bool
    other_win: str | None = None


def check_ply(puzzle: Puzzle, ply: object) -> int:
    """``ply`` if it is a point of the line where the solver is to move; else ``PuzzleError``."""
    if not isinstance(ply, int) or isinstance(ply, bool) or not 0 <= ply < len(puzzle.solution) or ply % 2:
        raise PuzzleError(
            f"ply must be an even number from 0 to {len(puzzle.solution) - 1} "
            f"(the solution moves already played), not {str(ply)[:20]!r}"
        )
    return ply


def expected_move(puzzle: Puzzle, ply: object) -> Move:
    """The solver's move at ``ply`` (a hint), with its whole route."""
    ply = check_ply(puzzle, ply)
    return puzzle.board_after(ply).parse_move(puzzle.solution[ply])


def attempt(puzzle: Puzzle, ply: object, text: object) -> Attempt:
    """Try the solver's move ``text`` at ``ply``; an illegal move raises ``IllegalMoveError``."""
    start = check_ply(puzzle, ply)
    expected = expected_move(puzzle, start)
    played = puzzle.board_after(start).parse_move(text)  # type: ignore[arg-type]  # parse_move checks the type
    if played != expected:
        return Attempt(False, str(played), None, start, False, puzzle.other_win(start, str(played)))
    after = start + 1
    reply = puzzle.solution[after] if after < len(puzzle.solution) else None
    reached = after + 1 if reply else after
    return Attempt(True, str(played), reply, reached, reached >= len(puzzle.solution))

"""The weekly rhythm of the daily puzzle: a measure of difficulty, themes for variety, a week's pick.

Like newspaper puzzles, a week starts easy and ends hardest: its puzzles are shown in order of
``rating``, lowest on Monday, highest on Sunday. The rating is read from the puzzle alone, so the
calendar can be extended without searching again:

- 100 per step of the stored difficulty (easy 0, medium 100, hard 200), which is the shallowest
  search that sees the key move (see ``kingme.daily.puzzles.generator.difficulty``);
- 10 per solver's move after the first (a longer line is more to see);
- 15 when the key move captures nothing (a quiet start is harder to find than a capture).

For variety each week first takes the earliest unused puzzle (in the collection's order) of each
of the ``THEMES`` that has one left, then fills its other days with the earliest unused puzzles
whatever their theme. A week of seven so holds a shot, a quiet move, a breakthrough and an
ending while the collection has them, and each theme is used up at about the pace it is found.

>>> from kingme.daily.puzzles.model import Puzzle
>>> p = Puzzle("demo", "B:W14,23:B9", ("9x18x27",), "Double jump", "", "easy")
>>> theme(p), rating(p)
('ending', 0)
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from kingme.daily.puzzles.model import DIFFICULTIES, Puzzle
from kingme.rules import Board

#: The themes of a week, in the order a week draws them.
THEMES = ("shot", "quiet", "breakthrough", "ending")
#: A position with at most this many pieces is an ending.
ENDING_PIECES = 8


def _kings(board: Board, side: str) -> int:
    return ((board.black if side == "black" else board.white) & board.kings).bit_count()


def crowns(puzzle: Puzzle) -> bool:
    """Whether one of the solver's moves on the line crowns a man."""
    board = Board(puzzle.fen)
    solver = board.turn
    for ply, text in enumerate(puzzle.solution):
        before = _kings(board, solver)
        board.push_text(text)
        if ply % 2 == 0 and _kings(board, solver) > before:
            return True
    return False


@cache
def theme(puzzle: Puzzle) -> str:
    """``ending`` (at most ``ENDING_PIECES`` pieces), ``breakthrough`` (the solver crowns on the
    line), ``quiet`` (neither the key move nor the reply captures) or ``shot`` (a combination:
    the key move or the forced reply captures)."""
    board = Board(puzzle.fen)
    if board.piece_count() <= ENDING_PIECES:
        return "ending"
    if crowns(puzzle):
        return "breakthrough"
    first_two = puzzle.solution[:2]
    return "shot" if any("x" in move for move in first_two) else "quiet"


def rating(puzzle: Puzzle) -> int:
    """The puzzle's difficulty as a number (see the module): higher is harder."""
    quiet_start = 0 if "x" in puzzle.solution[0] else 15
    return 100 * DIFFICULTIES.index(puzzle.difficulty) + 10 * (puzzle.solver_moves - 1) + quiet_start


def pick_week(unused: Sequence[Puzzle], days: int) -> tuple[Puzzle, ...] | None:
    """``days`` puzzles from ``unused`` (in collection order) for the last ``days`` days of a
    week, in the order they are shown (easiest first); ``None`` when there are too few."""
    if len(unused) < days:
        return None
    firsts = (next((p for p in unused if theme(p) == name), None) for name in THEMES)
    chosen = [p for p in firsts if p is not None][:days]
    chosen += [p for p in unused if p not in chosen][: days - len(chosen)]
    order = {p.id: n for n, p in enumerate(unused)}
    return tuple(sorted(chosen, key=lambda p: (rating(p), order[p.id])))


def stand_in(withdrawn: Puzzle, before: Puzzle | None, after: Puzzle | None, unused: Sequence[Puzzle]) -> Puzzle | None:
    """The puzzle of ``unused`` (in collection order) to show on the day of ``withdrawn``, a
    puzzle found unsound before its day, between the days of its week ``before`` and ``after``
    it (``None`` at the week's start or end); ``None`` when no unused puzzle fits.

    It must rate between them, so the week still goes from easiest to hardest; among those the
    same theme comes first (the week keeps its variety), then the rating nearest the withdrawn
    one's, then the earliest.
    """
    low = rating(before) if before else -1
    high = rating(after) if after else 10**9
    fits = [p for p in unused if low <= rating(p) <= high]
    return min(
        fits,
        key=lambda p: (theme(p) != theme(withdrawn), abs(rating(p) - rating(withdrawn))),
        default=None,
    )

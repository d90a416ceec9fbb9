"""``Puzzle``: a position, the side to move and one winning line.

The solution is the whole line, both sides' moves as full paths, starting with the solver's
move: solver, defender (the best defence), solver, ... and always ending on a solver's move.
A puzzle may also list, for each solver's move, other moves that win too, so that a player who
finds one is told it wins and asked for the intended move rather than told it is wrong: an ending
solved exactly lists the moves that win more slowly (``slower``), a searched puzzle the moves that
a later engine sees winning about as much (``also_wins``; see ``OTHER_WINS``).
Puzzles come from a JSON file in the package, so ``from_dict`` treats its input as hostile: every
field is checked and the line is replayed with the rules core.

>>> p = Puzzle("demo", "B:W14,23:B9", ("9x18x27",), "Double jump", "", "easy")
>>> p.side_to_move, p.solver_moves
('black', 1)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kingme.rules import Board, Color, KingmeError

DIFFICULTIES = ("easy", "medium", "hard")
_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,47}")
_MAX_LINE = 41
_MAX_TEXT = 200
#: The fields listing, per solver's move, the other moves a player is told also win: the slower
#: wins of an exact ending, and a searched puzzle's other moves that win about as much (each
#: still a win when verified; an unlisted one is a second solution).
OTHER_WINS = ("slower", "also_wins")


class PuzzleError(KingmeError):
    """A puzzle (from a file, the command line or a request) that cannot be used."""


@dataclass(frozen=True)
class Puzzle:
    """One puzzle; ``solution`` alternates solver and defender moves, solver first and last;
    ``slower`` and ``also_wins`` (each empty, or one tuple per solver's move) hold the other
    moves that win, more slowly or about as well (``OTHER_WINS``)."""

    id: str
    fen: str
    solution: tuple[str, ...]
    title: str
    source: str = ""
    difficulty: str = "medium"
    slower: tuple[tuple[str, ...], ...] = ()
    also_wins: tuple[tuple[str, ...], ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not _ID.fullmatch(self.id):
            raise PuzzleError(f"puzzle id {str(self.id)[:60]!r} must be 1-48 lowercase letters, digits or '-'")
        for name in ("title", "source"):
            value = getattr(self, name)
            if not isinstance(value, str) or len(value) > _MAX_TEXT:
                raise PuzzleError(f"puzzle {self.id}: {name} must be text of at most {_MAX_TEXT} characters")
        if self.difficulty not in DIFFICULTIES:
            raise PuzzleError(f"puzzle {self.id}: difficulty must be one of {', '.join(DIFFICULTIES)}")
        if not isinstance(self.solution, tuple) or not 1 <= len(self.solution) <= _MAX_LINE:
            raise PuzzleError(f"puzzle {self.id}: the solution must be a line of 1 to {_MAX_LINE} moves")
        if len(self.solution) % 2 == 0:
            raise PuzzleError(f"puzzle {self.id}: the solution must end with the solver's move")
        try:
            board = Board(self.fen)
            object.__setattr__(self, "fen", board.fen())
            full = []
            for text in self.solution:
                if not isinstance(text, str):
                    raise PuzzleError("a move must be text")
                full.append(str(board.push_text(text)))
        except KingmeError as error:
            raise PuzzleError(f"puzzle {self.id}: {error}") from None
        object.__setattr__(self, "solution", tuple(full))
        for name in OTHER_WINS:
            object.__setattr__(self, name, self._checked_wins(name))

    def _checked_wins(self, name: str) -> tuple[tuple[str, ...], ...]:
        """The list ``name`` (one of ``OTHER_WINS``) with every move as a full path; ``()`` when
        it lists none."""
        wins = getattr(self, name)
        if not isinstance(wins, tuple) or (wins and len(wins) != self.solver_moves):
            raise PuzzleError(f"puzzle {self.id}: {name} must list the other wins of each of its solver's moves")
        checked = []
        for number, texts in enumerate(wins):
            board = self.board_after(2 * number)
            try:
                moves = [board.parse_move(text) for text in texts]
            except KingmeError as error:
                raise PuzzleError(f"puzzle {self.id}: {name} at solver's move {number + 1}: {error}") from None
            if board.parse_move(self.solution[2 * number]) in moves:
                raise PuzzleError(f"puzzle {self.id}: the solution's move {number + 1} cannot also be in {name}")
            paths = tuple(str(move) for move in moves)
            if len(set(paths)) != len(paths):
                raise PuzzleError(f"puzzle {self.id}: {name} lists a move of solver's move {number + 1} twice")
            checked.append(paths)
        return tuple(checked) if any(checked) else ()

    def other_win(self, ply: int, path: str) -> str | None:
        """Which of ``OTHER_WINS`` lists the move ``path`` (a full path) at ``ply`` (a solver's
        move), or ``None``: a move the puzzle does not know to win."""
        listing = (name for name in OTHER_WINS if getattr(self, name) and path in getattr(self, name)[ply // 2])
        return next(listing, None)

    @property
    def side_to_move(self) -> Color:
        return "black" if self.fen.startswith("B") else "white"

    @property
    def solver_moves(self) -> int:
        """How many moves the solver makes."""
        return (len(self.solution) + 1) // 2

    def board_after(self, plies: int) -> Board:
        """The position after the first ``plies`` moves of the solution."""
        board = Board(self.fen)
        for text in self.solution[:plies]:
            board.push_text(text)
        return board

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "fen": self.fen, "solution": list(self.solution), "title": self.title}
        if self.source:
            data["source"] = self.source
        data["difficulty"] = self.difficulty
        for name in OTHER_WINS:
            if getattr(self, name):
                data[name] = [list(moves) for moves in getattr(self, name)]
        return data

    @classmethod
    def from_dict(cls, data: object) -> Puzzle:
        if not isinstance(data, dict):
            raise PuzzleError("a puzzle must be an object with id, fen, solution and title")
        unknown = set(data) - {"id", "fen", "solution", "title", "source", "difficulty", *OTHER_WINS}
        if unknown:
            raise PuzzleError(f"unknown puzzle field(s): {', '.join(sorted(map(str, unknown)))[:200]}")
        missing = {"id", "fen", "solution", "title"} - set(data)
        if missing:
            raise PuzzleError(f"puzzle {str(data.get('id'))[:60]!r} lacks {', '.join(sorted(missing))}")
        solution = data["solution"]
        if not isinstance(solution, list):
            raise PuzzleError(f"puzzle {str(data['id'])[:60]!r}: the solution must be a list of moves")
        return cls(
            data["id"],
            data["fen"],
            tuple(solution),
            data["title"],
            data.get("source", ""),
            data.get("difficulty", "medium"),
            _move_lists(data, "slower"),
            _move_lists(data, "also_wins"),
        )


def _move_lists(data: dict[Any, Any], name: str) -> tuple[tuple[str, ...], ...]:
    """The stored list ``name`` (one of ``OTHER_WINS``) of a puzzle's ``data``, as tuples."""
    lists = data.get(name, [])
    if not isinstance(lists, list) or not all(isinstance(moves, list) for moves in lists):
        raise PuzzleError(f"puzzle {str(data['id'])[:60]!r}: {name} must be a list of lists of moves")
    return tuple(tuple(moves) for moves in lists)

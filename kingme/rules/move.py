"""``Move``: one turn of one side, as the full path of squares it visits.

A move is data only: which squares the piece visits and which squares it captures, both in
standard numbering (1-32). Whether it crowns depends on the board it is played on.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise

from kingme.rules.bitboard import KING_JUMPS

#: The square jumped over between two landing squares, keyed by the (from, to) squares, 1-based.
JUMPED: dict[tuple[int, int], int] = {
    (start + 1, land + 1): over.bit_length() for start, jumps in enumerate(KING_JUMPS) for over, _, land in jumps
}


@dataclass(frozen=True, order=True)
class Move:
    """A move: ``path`` is every square the piece stands on, start first; ``captures`` the
    squares of the pieces it takes, in the order it takes them.

    >>> str(Move((9, 18, 27), (14, 23)))
    '9x18x27'
    >>> str(Move((11, 15)))
    '11-15'

    Two capture routes that end on the same square but take different pieces are different moves.
    """

    path: tuple[int, ...]
    captures: tuple[int, ...] = ()

    @classmethod
    def from_path(cls, path: tuple[int, ...] | list[int]) -> Move:
        """The move along ``path``: a capture if its steps are jumps, else an ordinary move.

        >>> Move.from_path([9, 18, 27]).captures
        (14, 23)
        """
        path = tuple(path)
        if len(path) > 2 or (len(path) == 2 and (path[0], path[1]) in JUMPED):
            return cls(path, tuple(JUMPED.get((a, b), 0) for a, b in pairwise(path)))
        return cls(path)

    @property
    def from_square(self) -> int:
        return self.path[0]

    @property
    def to_square(self) -> int:
        return self.path[-1]

    @property
    def is_capture(self) -> bool:
        return bool(self.captures)

    @property
    def steps(self) -> int:
        """Single board moves in this turn: one per jump, or one for an ordinary move."""
        return len(self.path) - 1

    @cached_property
    def notation(self) -> str:
        """The move as standard notation, worked out once: a game's moves are written out again
        in every state the server sends (record and history), so each is spelled once.

        >>> Move((9, 18, 27), (14, 23)).notation
        '9x18x27'
        """
        return ("x" if self.captures else "-").join(map(str, self.path))

    def __str__(self) -> str:
        return self.notation

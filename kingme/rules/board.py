"""``Board``: a position, its rules variant, and the moves played on it.

The board is the one place that decides what is legal. It wraps the bitboard generator in
``kingme.rules.bitboard`` with readable types: ``Move`` in and out, squares numbered 1-32,
colours named ``"black"`` and ``"white"`` (the front end may call them Red and White).

>>> board = Board()
>>> [str(m) for m in board.legal_moves()][:3]
['9-13', '9-14', '10-14']
>>> board.push_text("11-15")
Move(path=(11, 15), captures=())
>>> board.turn
'white'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from kingme.rules import bitboard
from kingme.rules.errors import AmbiguousMoveError, IllegalMoveError
from kingme.rules.fen import START_FEN, Position, format_fen, parse_fen
from kingme.rules.move import Move
from kingme.rules.variants import Variant, get_variant

Color = Literal["black", "white"]
BLACK: Color = "black"
WHITE: Color = "white"


def opponent(color: Color) -> Color:
    """The other colour: the one place kingme turns Black into White and back.

    >>> opponent("black")
    'white'
    """
    return WHITE if color == BLACK else BLACK


@dataclass(frozen=True)
class Piece:
    """A piece on the board: its colour and whether it is a king."""

    color: Color
    king: bool = False

    @property
    def kind(self) -> str:
        return "king" if self.king else "man"


# A position's identity for repetition: the placement of both colours, kings, and who moves.
PositionKey = tuple[int, int, int, bool]


def _move_order(move: Move) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The fields that order moves (``Move`` is ``order=True``), as one tuple to sort by."""
    return (move.path, move.captures)


_MOVE_TEXT = re.compile(r"^\s*(\d{1,3})(?:\s*[-xX:]\s*(\d{1,3}))+\s*$")


class Board:
    """A position under a rules variant, with a stack of the moves pushed on it.

    ``Board(fen)`` reads a PDN FEN (the start position when omitted); ``variant`` is
    ``"american"`` (captures compulsory, the default) or ``"casual"`` (captures optional).
    """

    def __init__(self, fen: str | None = None, variant: str = "american") -> None:
        self.variant: Variant = get_variant(variant)
        position = parse_fen(START_FEN if fen is None else fen)
        self.black = position.black
        self.white = position.white
        self.kings = position.kings
        self.black_to_move = position.black_to_move
        self.move_stack: list[Move] = []
        self._undo: list[PositionKey] = []
        self._cache: tuple[PositionKey, list[Move]] | None = None

    # -- reading the position -------------------------------------------------------------

    @property
    def turn(self) -> Color:
        """The colour to move: ``"black"`` or ``"white"``."""
        return BLACK if self.black_to_move else WHITE

    def key(self) -> PositionKey:
        """Placement and side to move: equal keys are the same position for repetition."""
        return (self.black, self.white, self.kings, self.black_to_move)

    def piece_at(self, square: int) -> Piece | None:
        """The piece on ``square`` (1-32), or ``None``."""
        bit = 1 << (square - 1)
        if self.black & bit:
            return Piece(BLACK, bool(self.kings & bit))
        if self.white & bit:
            return Piece(WHITE, bool(self.kings & bit))
        return None

    def pieces(self) -> dict[int, Piece]:
        """Every occupied square and its piece."""
        return {square: piece for square in range(1, bitboard.SQUARES + 1) if (piece := self.piece_at(square))}

    def count(self, color: Color) -> int:
        """How many pieces ``color`` has, kings included."""
        return (self.black if color == BLACK else self.white).bit_count()

    def piece_count(self) -> int:
        """How many pieces are on the board, both sides' and kings included: what decides
        whether an ending is small enough for the endgame tables or the exact solver."""
        return (self.black | self.white).bit_count()

    def fen(self) -> str:
        """The position as PDN FEN."""
        return format_fen(Position(self.black, self.white, self.kings, self.black_to_move))

    def copy(self) -> Board:
        """An independent copy with the same position, variant and move stack."""
        other = Board.__new__(Board)
        other.__dict__.update(self.__dict__)
        other.move_stack = list(self.move_stack)
        other._undo = list(self._undo)
        return other

    # -- moves ----------------------------------------------------------------------------

    def sides(self) -> tuple[int, int]:
        """``(own, opp)``: the side to move's pieces and its opponent's, the order in which the
        bitboard generator and the engine's compiled core take them."""
        return (self.black, self.white) if self.black_to_move else (self.white, self.black)

    def legal_moves(self) -> list[Move]:
        """Every legal move, sorted by path. Capture routes are listed whole."""
        return list(self._legal())

    def _legal(self) -> list[Move]:
        """The legal moves, kept until the position changes: the list itself, not to be changed."""
        key = self.key()
        if self._cache is None or self._cache[0] != key:
            own, opp = self.sides()
            raw = bitboard.generate(own, opp, self.kings, self.black_to_move, self.variant.captures_compulsory)
            moves = []
            for from_bit, to_bit, _, path in raw:
                if path is None:
                    moves.append(Move((from_bit.bit_length(), to_bit.bit_length())))
                else:
                    moves.append(Move.from_path(tuple(i + 1 for i in path)))
            moves.sort(key=_move_order)  # Move's own order, without its comparison methods' cost
            self._cache = (key, moves)
        return self._cache[1]

    def is_capture_required(self) -> bool:
        """True when the side to move must capture (American rules, a capture available)."""
        own, opp = self.sides()
        return self.variant.captures_compulsory and bool(bitboard.jumpers(own, opp, self.kings, self.black_to_move))

    def is_crowning(self, move: Move) -> bool:
        """Whether ``move`` (legal here) crowns a man."""
        if self.kings & (1 << (move.from_square - 1)):
            return False
        return bool(bitboard.crown_row(self.black_to_move) & (1 << (move.to_square - 1)))

    def move_for_path(self, path: tuple[int, ...] | list[int]) -> Move:
        """The legal move whose full route is ``path`` (squares 1-32, landing by landing), as the
        browser and the online protocol send it; ``IllegalMoveError`` if no legal move has it.

        >>> Board("B:W14,23:B9").move_for_path([9, 18, 27])
        Move(path=(9, 18, 27), captures=(14, 23))
        """
        wanted = tuple(path)
        for move in self._legal():
            if move.path == wanted:
                return move
        raise IllegalMoveError(f"the path {list(wanted)} is not a legal move for {self.turn}")

    def push(self, move: Move) -> None:
        """Play ``move``; raise ``IllegalMoveError`` (and change nothing) if it is not legal."""
        if move not in self._legal():
            raise IllegalMoveError(f"{move} is not a legal move for {self.turn} in {self.fen()}")
        own, opp = self.sides()
        from_bit, to_bit = 1 << (move.from_square - 1), 1 << (move.to_square - 1)
        captured = sum(1 << (s - 1) for s in move.captures)
        own, opp, kings = bitboard.apply(own, opp, self.kings, self.black_to_move, (from_bit, to_bit, captured, None))
        self._undo.append(self.key())
        self.move_stack.append(move)
        if self.black_to_move:
            self.black, self.white = own, opp
        else:
            self.white, self.black = own, opp
        self.kings = kings
        self.black_to_move = not self.black_to_move

    def pop(self) -> Move:
        """Take back the last pushed move and return it; ``IndexError`` if there is none."""
        if not self.move_stack:
            raise IndexError("no move to take back")
        self.black, self.white, self.kings, self.black_to_move = self._undo.pop()
        return self.move_stack.pop()

    def parse_move(self, text: str) -> Move:
        """The legal move that ``text`` names.

        Accepts the full path (``9x18x27``), the short capture form when only one route
        matches (``9x27``), leading zeros, and ``-``, ``x`` or ``:`` between squares. ``x`` and
        ``:`` name captures only; ``-`` is accepted for both, as some programs write captures so.

        >>> Board("B:W14,23:B9").parse_move("9x27")
        Move(path=(9, 18, 27), captures=(14, 23))
        """
        if not isinstance(text, str) or len(text) > 200 or not _MOVE_TEXT.match(text):
            raise IllegalMoveError(f"{str(text)[:40]!r} is not move text such as 11-15 or 9x18x27")
        squares = tuple(int(s) for s in re.findall(r"\d+", text))
        for square in squares:
            if not 1 <= square <= bitboard.SQUARES:
                raise IllegalMoveError(
                    f"{text.strip()!r}: square {square} is off the board (squares are 1-{bitboard.SQUARES})"
                )
        every = self._legal()
        legal = [m for m in every if m.is_capture] if re.search(r"[xX:]", text) else every
        exact = [m for m in legal if m.path == squares]
        if exact:
            return exact[0]
        if len(squares) == 2:
            matches = [m for m in legal if m.path[0] == squares[0] and m.path[-1] == squares[1]]
            if len(matches) == 1:
                return matches[0]
            if matches:
                listed = ", ".join(map(str, matches))
                raise AmbiguousMoveError(f"{text.strip()!r} matches {len(matches)} moves: {listed}; give the full path")
        listed = ", ".join(map(str, every)) or "none"
        raise IllegalMoveError(f"{text.strip()!r} is not legal for {self.turn} here; legal moves: {listed}")

    def push_text(self, text: str) -> Move:
        """Parse ``text`` with ``parse_move``, play it and return the move."""
        move = self.parse_move(text)
        self.push(move)
        return move

    def __repr__(self) -> str:
        return f"Board({self.fen()!r}, variant={self.variant.name!r})"

    def __str__(self) -> str:
        """A text diagram, Black at the top: b/w men, B/W kings, '.' empty dark squares."""
        rows = []
        for row in range(8):
            cells = []
            for col in range(8):
                if (row + col) % 2 == 0:
                    cells.append(" ")
                    continue
                piece = self.piece_at(row * 4 + col // 2 + 1)
                symbol = "." if piece is None else ("b" if piece.color == BLACK else "w")
                cells.append(symbol.upper() if piece and piece.king else symbol)
            rows.append(" ".join(cells))
        return "\n".join(rows)

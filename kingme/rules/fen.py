"""PDN FEN: positions as text, such as ``B:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29``.

The first letter is the side to move; then one section per colour, each a list of squares with
``K`` in front of kings. Ranges (``W21-32``) are accepted on input; output always lists squares
one by one, men first, then kings, White's section first, as most programs write it.
"""

from __future__ import annotations

from dataclasses import dataclass

from kingme.rules.bitboard import BLACK_CROWN, SQUARES, WHITE_CROWN
from kingme.rules.errors import FenError

#: The largest FEN text accepted; a real position is under 120 characters.
MAX_FEN_LENGTH = 500


@dataclass(frozen=True)
class Position:
    """A position as three bitboards (bit ``n - 1`` for square ``n``) and the side to move."""

    black: int
    white: int
    kings: int
    black_to_move: bool


START_FEN = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"


def _square(text: str, fen: str) -> int:
    token = text.strip()
    if not token.isdecimal():
        raise FenError(f"FEN {fen!r}: {token!r} is not a square number")
    square = int(token)
    if not 1 <= square <= SQUARES:
        raise FenError(f"FEN {fen!r}: square {square} is off the board (squares are 1-{SQUARES})")
    return square


def parse_fen(fen: str) -> Position:
    """Read a FEN; raise ``FenError`` naming the problem if it is malformed or impossible.

    >>> p = parse_fen("W:W9,10,K31:B5-6,13,14,22,23")
    >>> p.black_to_move, bin(p.kings).count("1")
    (False, 1)
    """
    if not isinstance(fen, str):
        raise FenError(f"a FEN must be text, not {type(fen).__name__}")
    if len(fen) > MAX_FEN_LENGTH:
        raise FenError(f"FEN is {len(fen)} characters long; at most {MAX_FEN_LENGTH} are accepted")
    text = "".join(fen.split())
    if text.startswith('"') and text.endswith('"') and len(text) >= 2:
        text = text[1:-1]
    text = text.rstrip(".")
    parts = text.split(":")
    if not text or parts[0].upper() not in ("B", "W"):
        raise FenError(f"FEN {fen!r} must start with the side to move, B or W")
    if len(parts) != 3:
        raise FenError(f"FEN {fen!r} must have three parts separated by ':' (turn, White's pieces, Black's)")
    pieces = {"B": 0, "W": 0}  # colour -> its squares as a bitboard
    kings = 0
    seen: set[str] = set()
    for section in parts[1:]:
        colour = section[:1].upper()
        if colour not in pieces:
            raise FenError(f"FEN {fen!r}: the section {section!r} must start with W or B")
        if colour in seen:
            raise FenError(f"FEN {fen!r} gives the {'white' if colour == 'W' else 'black'} pieces twice")
        seen.add(colour)
        occupied = pieces["B"] | pieces["W"]
        own = 0
        for item in filter(None, section[1:].split(",")):
            king = item[:1].upper() == "K"
            body = item[1:] if king else item
            low, sep, high = body.partition("-")
            first = _square(low, fen)
            last = _square(high, fen) if sep else first
            if last < first:
                raise FenError(f"FEN {fen!r}: the range {item!r} runs backwards")
            bits = (1 << last) - (1 << (first - 1))  # squares first..last
            if (occupied | own) & bits:
                square = ((occupied | own) & bits & -((occupied | own) & bits)).bit_length()
                raise FenError(f"FEN {fen!r} puts two pieces on square {square}")
            own |= bits
            if king:
                kings |= bits
        pieces[colour] = own
    black, white = pieces["B"], pieces["W"]
    for name, side in (("black", black), ("white", white)):
        if side.bit_count() > 12:
            raise FenError(f"FEN {fen!r} gives {name} {side.bit_count()} pieces; a side has at most 12")
    for name, men, row in (("black", black & ~kings, BLACK_CROWN), ("white", white & ~kings, WHITE_CROWN)):
        if men & row:
            square = (men & row & -(men & row)).bit_length()
            raise FenError(f"FEN {fen!r} has a {name} man on square {square}, where it would already be a king")
    return Position(black, white, kings, parts[0].upper() == "B")


def _squares(bits: int) -> list[int]:
    """The squares of a bitboard, in order."""
    squares = []
    while bits:
        lowest = bits & -bits
        squares.append(lowest.bit_length())
        bits ^= lowest
    return squares


def format_fen(position: Position) -> str:
    """Write a position as FEN.

    >>> format_fen(parse_fen("B:W21-32:B1-12")) == START_FEN
    True
    """

    def section(colour: str, pieces: int) -> str:
        men = [str(s) for s in _squares(pieces & ~position.kings)]
        kings = [f"K{s}" for s in _squares(pieces & position.kings)]
        return colour + ",".join(men + kings)

    turn = "B" if position.black_to_move else "W"
    return f"{turn}:{section('W', position.white)}:{section('B', position.black)}"

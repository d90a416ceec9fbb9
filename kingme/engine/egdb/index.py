"""The perfect index of a material: every position of given piece counts, one number each.

A *material* is ``(black kings, black men, white kings, white men)``. Within it a position is
numbered by

- the black men, ranked as a combination of the 28 squares a black man can stand on (1-28:
  one on 29-32 would have crowned), and the white men likewise over 5-32;
- the side to move;
- the black kings, ranked among the squares the men leave free, then the white kings among
  those left after the black kings.

``index = ((black_men_rank * white_men_ranks + white_men_rank) * 2 + white_to_move) * kings + kings_rank``

so the positions sharing one placement of the men (a *slice*: both sides to move, every
placement of the kings) are contiguous. Within a slice only king steps are played; every other
move (a capture, a man's step, a crowning) leaves it for a slice solved before it, which is what
lets ``build`` solve slice by slice and count distance to conversion. Placements where a black
and a white man would share a square are numbered too and simply never used (about 5% of the
index at six pieces): the ranking stays two binomial sums, with no table per placement.

Colour reversal (rotate the board 180°, swap the colours and the side to move) maps a position
to an equivalent one, so only *canonical* materials are stored: those with ``(black kings,
black men) >= (white kings, white men)``. Squares are bits 0-31 (bit ``i`` is square ``i + 1``)
as everywhere in the engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np
from numba import njit

from kingme.engine.bitops import lowest_index, popcount

#: Pieces per side an index can describe; a material id packs four counts below this.
COUNT_LIMIT = 8
MATERIAL_IDS = COUNT_LIMIT**4
#: Squares a man can stand on: a black man on 1-28, a white man on 5-32.
MAN_SQUARES = 28
WHITE_MAN_SHIFT = 4

BINOMIAL = np.array([[comb(n, k) for k in range(33)] for n in range(33)], dtype=np.int64)


@dataclass(frozen=True, order=True)
class Material:
    """Piece counts of a position: black kings and men, white kings and men."""

    black_kings: int
    black_men: int
    white_kings: int
    white_men: int

    @property
    def pieces(self) -> int:
        return self.black_kings + self.black_men + self.white_kings + self.white_men

    @property
    def men(self) -> int:
        return self.black_men + self.white_men

    @property
    def id(self) -> int:
        return material_id(self.black_kings, self.black_men, self.white_kings, self.white_men)

    @property
    def canonical(self) -> bool:
        """Stored as it is (otherwise its colour reversal is)."""
        return (self.black_kings, self.black_men) >= (self.white_kings, self.white_men)

    @property
    def name(self) -> str:
        """``"2K1M-1K0M"``: black's kings and men, then white's (the file name's stem)."""
        return f"{self.black_kings}K{self.black_men}M-{self.white_kings}K{self.white_men}M"

    @property
    def size(self) -> int:
        """Number of indices (positions, both sides to move, impossible men overlaps included)."""
        return slice_count(self) * 2 * king_count(self)


def king_count(material: Material) -> int:
    """King placements for one placement of the men."""
    free = 32 - material.men
    return comb(free, material.black_kings) * comb(free - material.black_kings, material.white_kings)


def slice_count(material: Material) -> int:
    """Placements of the men, overlapping ones included."""
    return comb(MAN_SQUARES, material.black_men) * comb(MAN_SQUARES, material.white_men)


def materials(max_pieces: int) -> list[Material]:
    """Every canonical material with both sides present and at most ``max_pieces`` pieces, in
    build order: fewer pieces first (captures lead there), then fewer men (crowning does)."""
    found = []
    for black in range(1, max_pieces):
        for white in range(1, max_pieces - black + 1):
            if black >= COUNT_LIMIT or white >= COUNT_LIMIT:
                continue
            for black_kings in range(black + 1):
                for white_kings in range(white + 1):
                    material = Material(black_kings, black - black_kings, white_kings, white - white_kings)
                    if material.canonical:
                        found.append(material)
    return sorted(found, key=lambda m: (m.pieces, m.men, m))


@njit(cache=True)
def material_id(black_kings: int, black_men: int, white_kings: int, white_men: int) -> int:
    """The material as one number below ``MATERIAL_IDS`` (every count below ``COUNT_LIMIT``)."""
    return ((black_kings * COUNT_LIMIT + black_men) * COUNT_LIMIT + white_kings) * COUNT_LIMIT + white_men


@njit(cache=True)
def rank(bits: int, taken: int) -> int:
    """Combinatorial rank of the squares in ``bits``, counting only squares not in ``taken``."""
    result = 0
    j = 1
    while bits:
        low = bits & -bits
        bits ^= low
        result += BINOMIAL[lowest_index(low) - popcount(taken & (low - 1)), j]
        j += 1
    return result


@njit(cache=True)
def unrank(value: int, count: int, free: int) -> int:
    """The ``count`` squares of ``free`` whose rank (among ``free``'s squares) is ``value``."""
    positions = popcount(free)
    bits = 0
    for j in range(count, 0, -1):
        position = positions - 1
        while BINOMIAL[position, j] > value:
            position -= 1
        value -= BINOMIAL[position, j]
        positions = position
        rest = free
        for _ in range(position):
            rest &= rest - 1
        bits |= rest & -rest
    return bits


@njit(cache=True)
def reverse(bits: int) -> int:
    """The squares seen from the other side of the board (square ``i`` becomes ``33 - i``)."""
    result = 0
    while bits:
        low = bits & -bits
        bits ^= low
        result |= np.int64(1) << (31 - lowest_index(low))
    return result


@njit(cache=True)
def index(black: int, white: int, kings: int, white_to_move: bool) -> int:
    """The position's number within its material (see the module docstring)."""
    black_men = black & ~kings
    white_men = white & ~kings
    black_kings = black & kings
    white_kings = white & kings
    men = black_men | white_men
    free = 32 - popcount(men)
    nbk = popcount(black_kings)
    nwk = popcount(white_kings)
    kings_size = BINOMIAL[free, nbk] * BINOMIAL[free - nbk, nwk]
    men_rank = rank(black_men, 0) * BINOMIAL[MAN_SQUARES, popcount(white_men)] + rank(white_men >> WHITE_MAN_SHIFT, 0)
    kings_rank = rank(black_kings, men) * BINOMIAL[free - nbk, nwk] + rank(white_kings, men | black_kings)
    return (men_rank * 2 + np.int64(white_to_move)) * kings_size + kings_rank

"""The static evaluation, compiled: how good a quiet position is for the side to move.

Scores are in hundredths of a man. Everything is computed for Black and negated for White;
White's tables are Black's turned 180 degrees (square ``i`` ↔ ``31 - i``), which maps the board
onto itself. Two levels of detail: ``full`` adds mobility, tempo, runaway men and endgame
technique to material and the piece-square tables, and costs about twice as much.

Terms (Black's view):

- material: a man 100, a king 130; when ahead, fewer pieces on the board make the lead count
  more, so the stronger side likes to trade down;
- piece-square tables: men are worth more near the centre (squares 14, 15, 18, 19) and
  further advanced, and on the back-rank squares 1 and 3 (the "bridge", which stops crowning)
  while the opponent still has men; kings prefer the centre to the edges;
- mobility: ordinary moves available to each side;
- tempo: in the endgame, men that have advanced further (they crown first);
- runaway men: a man with no opposing piece in the cone in front of it crowns unstopped;
- endgame technique: when ahead, kings close in on the opposing pieces, and a defending king
  sitting in a double corner (squares 1, 5 or 28, 32) is worth less to the attacker's score
  once driven out — so the search hunts it out of the corner.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from kingme.engine.bitops import lowest_index, popcount
from kingme.engine.movegen import ordinary_count
from kingme.rules import bitboard
from kingme.rules.bitboard import MASK32

MAN = 100
KING = 130


def _mirror(mask: int) -> int:
    """The mask turned 180 degrees: square ``i`` becomes ``31 - i``."""
    return int(f"{mask:032b}"[::-1], 2)


def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    man = np.zeros(32, dtype=np.int64)
    king = np.zeros(32, dtype=np.int64)
    cone = np.zeros((2, 32), dtype=np.int64)  # [white, black][square], real squares
    rows = np.zeros(32, dtype=np.int64)
    cols = np.zeros(32, dtype=np.int64)
    for square in range(32):
        row, col = bitboard.row_col(square)
        rows[square], cols[square] = row, col
        centre = 3 - min(abs(2 * col - 7), 7) // 2  # 0 at the edge .. 3 in the middle columns
        man[square] = 2 * row + 2 * centre * (1 if 2 <= row <= 5 else 0)
        king[square] = 4 * centre + 2 * (3 - abs(2 * row - 7) // 2) - 8
        # Squares in front of the man from which an opponent could meet it before it crowns.
        for other in range(32):
            r, c = bitboard.row_col(other)
            if r > row and abs(c - col) <= (r - row) + 1:
                cone[1, square] |= 1 << other
    for square in range(32):
        cone[0, square] = _mirror(int(cone[1, 31 - square]))
    man[0] += 10  # back-rank guard: squares 1 and 3 form the bridge
    man[2] += 10
    man[1] += 4
    man[3] += 4
    return man, king, cone, rows, cols


MAN_TABLE, KING_TABLE, CONE, ROW, COLUMN = _tables()
#: Squares 1 and 5, 28 and 32.
DOUBLE_CORNERS = (1 << 0) | (1 << 4) | (1 << 27) | (1 << 31)


@njit(cache=True)
def _men_score(men: int, kings_of_opponent: int, opponent: int, black: bool, full: bool, endgame: int) -> int:
    score = 0
    while men:
        bit = men & -men
        men ^= bit
        square = lowest_index(bit)
        index = square if black else 31 - square
        score += MAN_TABLE[index]
        if full:
            advanced = ROW[index]
            score += advanced * endgame // 4
            if (opponent & CONE[np.int64(black), square]) == 0:
                runaway = 20 + 6 * advanced
                score += runaway if kings_of_opponent == 0 else runaway // 3
    return score


@njit(cache=True)
def _kings_score(kings: int, black: bool) -> int:
    score = 0
    while kings:
        bit = kings & -kings
        kings ^= bit
        square = lowest_index(bit)
        score += KING_TABLE[square if black else 31 - square]
    return score


@njit(cache=True)
def _distance(a: int, b: int) -> int:
    return max(abs(ROW[a] - ROW[b]), abs(COLUMN[a] - COLUMN[b]))


@njit(cache=True)
def _hunt(attackers: int, defenders: int) -> int:
    """Attacker's bonus for kings standing close to the defending pieces, and for defending
    kings out of the double corners."""
    score = 0
    pieces = defenders
    while pieces:
        bit = pieces & -pieces
        pieces ^= bit
        target = lowest_index(bit)
        nearest = 8
        hunters = attackers
        while hunters:
            hunter_bit = hunters & -hunters
            hunters ^= hunter_bit
            nearest = min(nearest, _distance(lowest_index(hunter_bit), target))
        score += 3 * (8 - nearest)
    score -= 12 * popcount(defenders & DOUBLE_CORNERS)
    return score


@njit(cache=True)
def evaluate_black(black: int, white: int, kings: int, full: bool) -> int:
    """The position's value for Black."""
    black_kings, white_kings = black & kings, white & kings
    black_men, white_men = black ^ black_kings, white ^ white_kings
    nbk, nwk = popcount(black_kings), popcount(white_kings)
    nbm, nwm = popcount(black_men), popcount(white_men)
    pieces = nbm + nwm + nbk + nwk
    material = MAN * (nbm - nwm) + KING * (nbk - nwk)
    # A lead is worth more as the board empties: trade down when ahead.
    bonus = abs(material) * (24 - pieces) // 24  # rounded the same way for both colours
    score = material + (bonus if material > 0 else -bonus)
    endgame = max(0, 16 - pieces)
    score += _men_score(black_men, white_kings, white, True, full, endgame)
    score -= _men_score(white_men, black_kings, black, False, full, endgame)
    score += _kings_score(black_kings, True) - _kings_score(white_kings, False)
    if not full:
        return score
    empty = MASK32 ^ (black | white)
    score += 2 * (ordinary_count(black, kings, empty, True) - ordinary_count(white, kings, empty, False))
    if pieces <= 10 and material != 0:
        if material > 0 and nbk > 0:
            score += _hunt(black_kings, white)
        elif material < 0 and nwk > 0:
            score -= _hunt(white_kings, black)
    return score


@njit(cache=True)
def evaluate(own: int, opp: int, kings: int, black: bool, full: bool) -> int:
    """The position's value for the side to move (``own``)."""
    if black:
        return evaluate_black(own, opp, kings, full)
    return -evaluate_black(opp, own, kings, full)

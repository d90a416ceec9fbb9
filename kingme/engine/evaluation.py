"""The static evaluation, compiled: how good a quiet position is for the side to move.

Scores are in hundredths of a man. The evaluation is a weighted sum of *features*, each counted
for Black and for White and subtracted. White's features are Black's on the board turned 180
degrees with the colours swapped (square ``i`` ↔ ``31 - i``, which maps the board onto itself),
so one function, ``_side``, describes a side as if it were Black moving towards square 32,
and the evaluation is exactly the same for either colour.

Every weight has two values, one for a full board and one for an empty one; a position's weight
is the blend of the two by the number of pieces left (``PHASE_PIECES`` pieces: all opening
weight; none: all ending weight). So "a king is worth more as the board empties" or "the back
rank matters while the opponent still has men to crown" are learned, not written as rules.

The weights are not guessed: ``kingme tune`` fits them to engine games, to the score the search
gave each position (see ``kingme.engine.tuning``), and writes ``data/evaluation_weights.json``,
the one table of weights, named by the ``FEATURES`` below:

- ``man``, ``king``: material;
- ``man_square``, ``king_square``: where the pieces stand (a man's square also says how far it
  has advanced, its tempo);
- ``back_two_rows``: the formation of the side's own men on its two back rows (256 patterns):
  the bridge, the triangle, the guards that stop crowning and the holes that invite it;
- ``band``: the 7 bands of two whole rows (eight dark squares, the width of the board), each
  square empty, own or opponent's: 6,561 patterns a band, so a formation has a value together
  with what faces it across the board — dog-holes, cramps, a bridge with the opponent's men
  lodged in front of it, men blocked by fewer men, pieces hanging in front of an exchange.
  Most patterns never occur; the fit's L2 penalty keeps the rare ones near zero. They replaced
  21 windows of two rows by two squares (81 patterns each), which saw only a corner of a
  formation: fitted to the same games the bands predict the search better, and seven table
  reads a side cost less than twenty-one (see the README's *Strength*);
- ``mobility``: the man moves and the king moves available; ``trapped_king``: kings that
  cannot move;
- ``runaway``: a man no opposing piece can meet before it crowns, by the rows it has left;
- ``balance``: the difference between the men on the two halves of the board;
- ``turn``: having the move.

Two levels of detail: ``full`` is everything; the weak levels use material and squares only.

Hand terms outside the table, for endgame technique the games rarely show (``HUNT_*``): when
ahead with few pieces left, kings close in on the opposing pieces and a defending king in a
double corner counts against the attacker, so the search hunts it out.
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
from numba import njit
from numba.extending import overload

from kingme.engine.bitops import lowest_index, popcount
from kingme.engine.movegen import NEIGHBOUR, ordinary_count
from kingme.rules import bitboard
from kingme.rules.bitboard import MASK32

#: Weights file inside the package (``kingme tune fit`` writes it).
WEIGHTS_FILE = "data/evaluation_weights.json"
#: Pieces on the board at which the opening weights apply fully (the start has 24).
PHASE_PIECES = 24
#: Bands: rows ``r, r + 1`` for r in 0..6, all eight squares of the two, each of three states.
BANDS = 7
BAND_PATTERNS = 3**8

#: (name, how many weights) in table order; the index of each group is its running offset.
FEATURES: tuple[tuple[str, int], ...] = (
    ("man", 1),
    ("king", 1),
    ("man_square", 32),
    ("king_square", 32),
    ("back_two_rows", 256),
    ("band", BANDS * BAND_PATTERNS),
    ("man_mobility", 1),
    ("king_mobility", 1),
    ("trapped_king", 1),
    ("runaway", 8),
    ("balance", 1),
    ("turn", 1),
)


def _offsets() -> dict[str, int]:
    offsets, at = {}, 0
    for name, size in FEATURES:
        offsets[name] = at
        at += size
    offsets["total"] = at
    return offsets


OFFSET = _offsets()
MAN_AT, KING_AT = OFFSET["man"], OFFSET["king"]
MAN_SQUARE_AT, KING_SQUARE_AT = OFFSET["man_square"], OFFSET["king_square"]
BACK_AT, BAND_AT = OFFSET["back_two_rows"], OFFSET["band"]
MAN_MOBILITY_AT, KING_MOBILITY_AT = OFFSET["man_mobility"], OFFSET["king_mobility"]
TRAPPED_AT, RUNAWAY_AT = OFFSET["trapped_king"], OFFSET["runaway"]
BALANCE_AT, TURN_AT = OFFSET["balance"], OFFSET["turn"]
FEATURE_COUNT = OFFSET["total"]

#: Endgame technique, hand-set (hundredths of a man): per step closer to each defending piece,
#: the attacker's nearest king earns ``HUNT_CLOSER``; a defending king in a double corner costs
#: the attacker ``HUNT_CORNER``; both only with at most ``HUNT_PIECES`` pieces and a lead.
HUNT_CLOSER = 3
HUNT_CORNER = 12
HUNT_PIECES = 10


def read_weights(text: str, source: str) -> np.ndarray:
    """A weights file's table as a (FEATURE_COUNT, 2) int32 array: column 0 full board, column 1
    empty board. ``source`` names the file in the error a malformed one raises.

    A feature's two weights sit side by side and in 32 bits, so the evaluation reads both from
    one cache line and the whole table (370 KB, nearly all of it bands) stays in the processor's
    cache: with two separate rows of 64-bit numbers an evaluation took about a quarter longer."""
    try:
        weights = json.loads(text)["weights"]
        table = np.zeros((FEATURE_COUNT, 2), dtype=np.int32)
        for name, size in FEATURES:
            for phase, key in enumerate(("opening", "ending")):
                values = weights[name][key]
                if len(values) != size:
                    raise ValueError(f"{name}.{key} has {len(values)} weights, expected {size}")
                table[OFFSET[name] : OFFSET[name] + size, phase] = values
    except KeyError as error:
        raise ValueError(f"{source} is not an evaluation weights file: it has no {error}") from None
    except (ValueError, TypeError, OverflowError) as error:
        raise ValueError(f"{source} is not an evaluation weights file: {error}") from None
    return table


def _load_weights() -> np.ndarray:
    """The package's table (``WEIGHTS_FILE``), which the search uses."""
    return read_weights(resources.files("kingme.engine").joinpath(WEIGHTS_FILE).read_text(), WEIGHTS_FILE)


def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    cone = np.zeros(32, dtype=np.int64)
    rows = np.zeros(32, dtype=np.int64)
    cols = np.zeros(32, dtype=np.int64)
    for square in range(32):
        row, col = bitboard.row_col(square)
        rows[square], cols[square] = row, col
        # Squares in front of a Black man from which an opponent could meet it before it crowns.
        for other in range(32):
            r, c = bitboard.row_col(other)
            if r > row and abs(c - col) <= (r - row) + 1:
                cone[square] |= 1 << other
    ternary = np.array([sum(3**i for i in range(8) if bits >> i & 1) for bits in range(256)], dtype=np.int64)
    return cone, rows, cols, ternary


WEIGHTS = _load_weights()
#: ``TERNARY[bits]``: the 8 low bits read as base-3 digits 0 or 1, so ``TERNARY[mine] + 2 *
#: TERNARY[theirs]`` numbers a pattern of empty, own and opponent's squares.
CONE, ROW, COLUMN, TERNARY = _tables()
#: The squares in columns 0 to 3: one half of the board, for the balance between the wings.
LEFT_HALF = sum(1 << s for s in range(32) if COLUMN[s] < 4)
#: Squares 1 and 5, 28 and 32.
DOUBLE_CORNERS = (1 << 0) | (1 << 4) | (1 << 27) | (1 << 31)


def _note(record: np.ndarray, index: int, value: int) -> None:
    """``record[index] += value`` — compiled to nothing when ``record`` is read-only, as
    ``NO_RECORD`` is, so the search pays nothing for the tuner's recording."""


@overload(_note)
def _note_compiled(record, index, value):  # type: ignore[no-untyped-def]
    if not record.mutable:
        return lambda record, index, value: None

    def write(record, index, value):  # type: ignore[no-untyped-def]
        record[index] += value

    return write


@njit(cache=True)
def turned(bits: int) -> int:
    """The board turned 180 degrees: square ``i`` becomes ``31 - i`` (a 32-bit reversal)."""
    bits = ((bits >> 1) & 0x55555555) | ((bits & 0x55555555) << 1)
    bits = ((bits >> 2) & 0x33333333) | ((bits & 0x33333333) << 2)
    bits = ((bits >> 4) & 0x0F0F0F0F) | ((bits & 0x0F0F0F0F) << 4)
    bits = ((bits >> 8) & 0x00FF00FF) | ((bits & 0x00FF00FF) << 8)
    return ((bits >> 16) & 0xFFFF) | ((bits & 0xFFFF) << 16)


@njit(cache=True)
def _side(own: int, opp: int, kings: int, full: bool, sign: int, record: np.ndarray) -> tuple[int, int]:
    """The weighted features of ``own``, seen as Black (moving towards square 32): the sums with
    the opening and the ending weights. With a non-empty ``record``, each feature's value is
    also added to ``record`` times ``sign`` (what ``kingme tune`` fits the weights on)."""
    men, own_kings = own & ~kings, own & kings
    opening, ending = 0, 0

    def add(index: int, value: int, opening: int, ending: int) -> tuple[int, int]:
        _note(record, index, sign * value)
        return opening + WEIGHTS[index, 0] * value, ending + WEIGHTS[index, 1] * value

    opening, ending = add(MAN_AT, popcount(men), opening, ending)
    opening, ending = add(KING_AT, popcount(own_kings), opening, ending)
    pieces = own
    while pieces:
        square = lowest_index(pieces)
        pieces &= pieces - 1
        at = KING_SQUARE_AT if own_kings >> square & 1 else MAN_SQUARE_AT
        opening, ending = add(at + square, 1, opening, ending)
    if not full:
        return opening, ending
    opening, ending = add(BACK_AT + (men & 0xFF), 1, opening, ending)
    for band in range(BANDS):
        pattern = TERNARY[(own >> 4 * band) & 0xFF] + 2 * TERNARY[(opp >> 4 * band) & 0xFF]
        opening, ending = add(BAND_AT + band * BAND_PATTERNS + pattern, 1, opening, ending)
    empty = MASK32 ^ (own | opp)
    king_moves = ordinary_count(own_kings, kings, empty, True)
    opening, ending = add(MAN_MOBILITY_AT, ordinary_count(men, kings, empty, True), opening, ending)
    opening, ending = add(KING_MOBILITY_AT, king_moves, opening, ending)
    trapped = 0
    pieces = own_kings
    while pieces:
        square = lowest_index(pieces)
        pieces &= pieces - 1
        free = False
        for direction in range(4):
            neighbour = NEIGHBOUR[square, direction]
            if neighbour >= 0 and empty >> neighbour & 1:
                free = True
        trapped += 0 if free else 1
    opening, ending = add(TRAPPED_AT, trapped, opening, ending)
    pieces = men
    while pieces:
        square = lowest_index(pieces)
        pieces &= pieces - 1
        if opp & CONE[square] == 0:
            opening, ending = add(RUNAWAY_AT + 7 - ROW[square], 1, opening, ending)
    opening, ending = add(BALANCE_AT, abs(popcount(men & LEFT_HALF) - popcount(men & ~LEFT_HALF)), opening, ending)
    return opening, ending


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
        target = lowest_index(pieces)
        pieces &= pieces - 1
        nearest = 8
        hunters = attackers
        while hunters:
            nearest = min(nearest, _distance(lowest_index(hunters), target))
            hunters &= hunters - 1
        score += HUNT_CLOSER * (8 - nearest)
    return score - HUNT_CORNER * popcount(defenders & DOUBLE_CORNERS)


@njit(cache=True)
def evaluate_black(black: int, white: int, kings: int, black_to_move: bool, full: bool, record: np.ndarray) -> int:
    """The position's value for Black; ``record`` as in ``_side`` (empty when only scoring)."""
    opening, ending = _side(black, white, kings, full, 1, record)
    white_opening, white_ending = _side(turned(white), turned(black), turned(kings), full, -1, record)
    opening -= white_opening
    ending -= white_ending
    if full:
        turn = 1 if black_to_move else -1
        _note(record, TURN_AT, turn)
        opening += turn * WEIGHTS[TURN_AT, 0]
        ending += turn * WEIGHTS[TURN_AT, 1]
    pieces = min(popcount(black | white), PHASE_PIECES)
    blend = opening * pieces + ending * (PHASE_PIECES - pieces)
    # Rounded towards zero, so that turning the board round exactly negates the score.
    score = blend // PHASE_PIECES if blend >= 0 else -(-blend // PHASE_PIECES)
    if full and pieces <= HUNT_PIECES:
        lead = popcount(black) - popcount(white)
        if lead > 0 and black & kings:
            score += _hunt(black & kings, white)
        elif lead < 0 and white & kings:
            score -= _hunt(white & kings, black)
    return score


#: What ``evaluate`` passes as ``record``: read-only, so nothing is recorded during a search.
NO_RECORD = np.zeros(0, dtype=np.float64)
NO_RECORD.flags.writeable = False


@njit(cache=True)
def evaluate(own: int, opp: int, kings: int, black: bool, full: bool) -> int:
    """The position's value for the side to move (``own``)."""
    if black:
        return evaluate_black(own, opp, kings, True, full, NO_RECORD)
    return -evaluate_black(opp, own, kings, False, full, NO_RECORD)

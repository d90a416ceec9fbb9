"""The static evaluation, compiled: how good a quiet position is for the side to move.

Scores are in hundredths of a man. A level's ``full`` flag picks one of two evaluations:

- **full** (club, strong, master): the evaluation network (``network.py``), which reads the
  whole board and was trained on self-play games (``kingme tune net``), plus hand terms for
  endgame technique the games rarely show (``HUNT_*``): when ahead with few pieces left, kings
  close in on the opposing pieces and a defending king in a double corner counts against the
  attacker, so the search hunts it out;
- **material and squares** (beginner, casual): a man's and a king's worth and where each
  stands, from the table ``data/evaluation_weights.json``, every weight with one value for a
  full board and one for an empty one, blended by the number of pieces left (``PHASE_PIECES``
  pieces: all opening weight; none: all ending weight). These are the material and square
  weights of the learned table the network replaced (fitted by logistic regression to
  self-play searches' scores), kept as they were so that the weak levels play as before.

Both are exactly colour-blind: White's score is Black's on the board turned 180 degrees with
the colours swapped (square ``i`` ↔ ``31 - i``, ``bitops.turned``).
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
from numba import njit

from kingme.engine.bitops import lowest_index, popcount, turned
from kingme.engine.network import network_score
from kingme.rules import bitboard

#: Weights file inside the package.
WEIGHTS_FILE = "data/evaluation_weights.json"
#: Pieces on the board at which the opening weights apply fully (the start has 24).
PHASE_PIECES = 24

#: (name, how many weights) in table order; the index of each group is its running offset.
FEATURES: tuple[tuple[str, int], ...] = (
    ("man", 1),
    ("king", 1),
    ("man_square", 32),
    ("king_square", 32),
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

    >>> read_weights('{"weights": {}}', "w.json")
    Traceback (most recent call last):
    ...
    ValueError: w.json is not an evaluation weights file: it has no 'man'
    """
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
    """The package's table (``WEIGHTS_FILE``), which the weak levels use."""
    return read_weights(resources.files("kingme.engine").joinpath(WEIGHTS_FILE).read_text(), WEIGHTS_FILE)


def _rows_and_columns() -> tuple[np.ndarray, np.ndarray]:
    rows = np.zeros(32, dtype=np.int64)
    columns = np.zeros(32, dtype=np.int64)
    for square in range(32):
        rows[square], columns[square] = bitboard.row_col(square)
    return rows, columns


#: Compiled in as constants (so the file is part of the numba cache key).
WEIGHTS = _load_weights()
ROW, COLUMN = _rows_and_columns()
#: Squares 1 and 5, 28 and 32.
DOUBLE_CORNERS = (1 << 0) | (1 << 4) | (1 << 27) | (1 << 31)


@njit(cache=True)
def _side(own: int, kings: int) -> tuple[int, int]:
    """The material and squares of ``own`` seen as Black (moving towards square 32): the sums
    with the opening and the ending weights."""
    men, own_kings = own & ~kings, own & kings
    opening = WEIGHTS[MAN_AT, 0] * popcount(men) + WEIGHTS[KING_AT, 0] * popcount(own_kings)
    ending = WEIGHTS[MAN_AT, 1] * popcount(men) + WEIGHTS[KING_AT, 1] * popcount(own_kings)
    pieces = own
    while pieces:
        square = lowest_index(pieces)
        pieces &= pieces - 1
        at = KING_SQUARE_AT if own_kings >> square & 1 else MAN_SQUARE_AT
        opening += WEIGHTS[at + square, 0]
        ending += WEIGHTS[at + square, 1]
    return opening, ending


@njit(cache=True)
def material_and_squares(own: int, opp: int, kings: int, black: bool) -> int:
    """The table's value of the position for the side to move (``own``)."""
    if not black:
        own, opp, kings = turned(own), turned(opp), turned(kings)
    opening, ending = _side(own, kings)
    opp_opening, opp_ending = _side(turned(opp), turned(kings))
    pieces = min(popcount(own | opp), PHASE_PIECES)
    blend = (opening - opp_opening) * pieces + (ending - opp_ending) * (PHASE_PIECES - pieces)
    # Rounded towards zero, so that swapping the sides exactly negates the score.
    return blend // PHASE_PIECES if blend >= 0 else -(-blend // PHASE_PIECES)


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
def evaluate(own: int, opp: int, kings: int, black: bool, full: bool, scratch: np.ndarray) -> int:
    """The position's value for the side to move (``own``): with ``full`` the network's (its
    ``scratch`` lent by the search, see ``network_score``) and the endgame hunt's, else the
    table's material and squares."""
    if not full:
        return material_and_squares(own, opp, kings, black)
    score = network_score(own, opp, kings, black, scratch)
    if popcount(own | opp) <= HUNT_PIECES:
        lead = popcount(own) - popcount(opp)
        if lead > 0 and own & kings:
            score += _hunt(own & kings, opp)
        elif lead < 0 and opp & kings:
            score -= _hunt(opp & kings, own)
    return score

"""Looking a position up: compiled, so the search can call it at every node.

A table stores one byte per index (see ``kingme.engine.egdb.index``): 0 for an impossible
index, 1 for a draw, ``1 + n`` for a win and ``129 + n`` for a loss with ``n`` plies to
conversion, ``n`` at most ``MAX_PLIES``. ``probe`` turns that into the value documented in the
package docstring.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from kingme.engine.bitops import popcount
from kingme.engine.egdb.index import COUNT_LIMIT, index, material_id, reverse
from kingme.game import NO_PROGRESS_PLIES

#: No value: too many pieces, a table not loaded, or a finished game (one side has no pieces
#: but the side to move, which has lost: that is ``LOSS + 0``).
UNKNOWN = -1
DRAW = 0
#: ``WIN + n``: the side to move wins, converting (capture or man's move) in ``n`` plies.
WIN = 1024
#: ``LOSS + n``: the side to move loses; the winner needs ``n`` plies to convert.
LOSS = 2048
#: The largest distance stored: a position whose best play converts later is a draw under the
#: 80-ply rule (from a fresh count, which is how every game enters a table: by a capture), and
#: the build stores it as one. One byte would hold up to 127.
MAX_PLIES = NO_PROGRESS_PLIES

IMPOSSIBLE_CODE = 0
DRAW_CODE = 1
_WIN_CODE = 1
_LOSS_CODE = 129


@njit(cache=True)
def win_code(plies: int) -> int:
    """The stored byte of a win in ``plies`` plies to conversion (at most ``MAX_PLIES``)."""
    return _WIN_CODE + plies


@njit(cache=True)
def loss_code(plies: int) -> int:
    """The stored byte of a loss in ``plies`` plies to conversion (at most ``MAX_PLIES``)."""
    return _LOSS_CODE + plies


@njit(cache=True)
def decode(code: int) -> int:
    """The probe value of a stored byte."""
    if code == IMPOSSIBLE_CODE:
        return UNKNOWN
    if code == DRAW_CODE:
        return DRAW
    if code < _LOSS_CODE:
        return WIN + code - _WIN_CODE
    return LOSS + code - _LOSS_CODE


@njit(cache=True)
def is_win(value: int) -> bool:
    return WIN <= value < LOSS


@njit(cache=True)
def is_loss(value: int) -> bool:
    return value >= LOSS


@njit(cache=True)
def plies(value: int) -> int:
    """Plies to conversion of a win or a loss (0 for a draw or unknown)."""
    if value >= LOSS:
        return value - LOSS
    if value >= WIN:
        return value - WIN
    return 0


@njit(cache=True)
def within_rule(value: int, quiet: int) -> int:
    """``value`` (a probe's) with ``quiet`` plies of the 80-ply count already played: a win or a
    loss converting in ``n`` plies stays one when ``quiet + n <= MAX_PLIES``, else it is a draw
    (the loser holds out until the 80th quiet ply; a last ply that converts or leaves the loser
    without a move comes in time, as the game decides a win before the rule)."""
    if (is_win(value) or is_loss(value)) and quiet + plies(value) > MAX_PLIES:
        return DRAW
    return value


@njit(cache=True)
def probe(offsets: np.ndarray, values: np.ndarray, black: int, white: int, kings: int, black_to_move: bool) -> int:
    """The value of a position for its side to move (``UNKNOWN``, ``DRAW``, ``WIN + n`` or
    ``LOSS + n``), from tables loaded by ``kingme.engine.egdb.load``."""
    black_count = popcount(black)
    white_count = popcount(white)
    if (black_count if black_to_move else white_count) == 0:
        return LOSS
    if black_count == 0 or white_count == 0:
        return UNKNOWN
    black_kings = popcount(black & kings)
    white_kings = popcount(white & kings)
    black_men = black_count - black_kings
    white_men = white_count - white_kings
    if black_count >= COUNT_LIMIT or white_count >= COUNT_LIMIT:
        return UNKNOWN
    if black_kings < white_kings or (black_kings == white_kings and black_men < white_men):
        black, white, kings = reverse(white), reverse(black), reverse(kings)
        black_kings, black_men, white_kings, white_men = white_kings, white_men, black_kings, black_men
        black_to_move = not black_to_move
    offset = offsets[material_id(black_kings, black_men, white_kings, white_men)]
    if offset < 0:
        return UNKNOWN
    return decode(values[offset + index(black, white, kings, not black_to_move)])

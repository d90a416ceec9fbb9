"""Re-checking a built table: every position's value must follow from its successors' values."""

from __future__ import annotations

import numpy as np
from numba import njit

from kingme.engine import movegen
from kingme.engine.egdb.build import WORK_SIZE, _position
from kingme.engine.egdb.index import BINOMIAL, MAN_SQUARES, WHITE_MAN_SHIFT, unrank
from kingme.engine.egdb.probe import DRAW_CODE, is_loss, is_win, loss_code, plies, probe, win_code
from kingme.rules.bitboard import MASK32


@njit(cache=True)
def expected_code(
    offsets: np.ndarray,
    values: np.ndarray,
    black: int,
    white: int,
    kings: int,
    black_to_move: bool,
    buf: np.ndarray,
    cap: int,
) -> int:
    """The byte a position must hold given its successors' values: won if a move reaches a lost
    position (the nearest conversion), lost if every move reaches a won one (the farthest), else
    drawn; a capture or a man's move counts one ply, a king's step one more than its successor.
    A win or a loss beyond ``cap`` plies is a draw (the 80-ply rule), as ``build`` stores it."""
    own, opp = (black, white) if black_to_move else (white, black)
    start = movegen.MOVES_START
    n = movegen.generate(own, opp, kings, black_to_move, True, buf, start)
    if n == 0:
        return loss_code(0)
    nearest_loss = -1
    farthest_win = 0
    all_won = True
    for m in range(n):
        at = start + m * movegen.MOVE_SIZE
        origin, target, captured = buf[at], buf[at + 1], buf[at + 2]
        new_own, new_opp, new_kings = movegen.play(own, opp, kings, black_to_move, origin, target, captured)
        if black_to_move:
            value = probe(offsets, values, new_opp, new_own, new_kings, False)
        else:
            value = probe(offsets, values, new_own, new_opp, new_kings, True)
        distance = plies(value) + 1 if captured == 0 and kings & origin else 1
        if is_loss(value):
            if nearest_loss < 0 or distance < nearest_loss:
                nearest_loss = distance
        elif is_win(value):
            farthest_win = max(farthest_win, distance)
        else:
            all_won = False
    if 0 <= nearest_loss <= cap:
        return win_code(nearest_loss)
    if all_won and farthest_win <= cap:
        return loss_code(farthest_win)
    return DRAW_CODE


@njit(cache=True)
def check_slices(offsets: np.ndarray, values: np.ndarray, material: np.ndarray, men_ranks: np.ndarray, cap: int) -> int:
    """How many positions of the slices ``men_ranks`` of ``material`` (``[bk, bm, wk, wm,
    offset]``) hold another byte than ``expected_code`` gives with distances capped at ``cap``."""
    nbk, nbm, nwk, nwm, offset = material[0], material[1], material[2], material[3], material[4]
    free = 32 - nbm - nwm
    kings_size = BINOMIAL[free, nbk] * BINOMIAL[free - nbk, nwk]
    white_ranks = BINOMIAL[MAN_SQUARES, nwm]
    buf = np.zeros(WORK_SIZE, dtype=np.int64)
    wrong = 0
    for men_rank in men_ranks:
        men_black = unrank(men_rank // white_ranks, nbm, MASK32)
        men_white = unrank(men_rank % white_ranks, nwm, MASK32) << WHITE_MAN_SHIFT
        base = offset + men_rank * 2 * kings_size
        for t in range(2 * kings_size):
            black, white, kings, black_to_move = _position(men_black, men_white, t, kings_size, nbk, nwk)
            if values[base + t] != expected_code(offsets, values, black, white, kings, black_to_move, buf, cap):
                wrong += 1
    return wrong

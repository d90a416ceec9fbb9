"""Retrograde construction of the tables, slice by slice, in compiled code.

Materials are built in the order of ``index.materials`` and, within one, the slices (placements
of the men) from the most advanced men backwards, so every move that leaves a slice — a capture,
a man's step, a crowning — lands on a position already solved. Inside a slice only kings step,
and those steps are solved backwards by levels:

- level 0: the positions with no move (lost); level 1: a move out of the slice to a lost
  position (won), or only moves out of it, all to won positions (lost);
- a position one king step before a loss at level *d* is won at *d* + 1 (the first level that
  reaches it is its shortest); a position whose last undecided king step leads to a win at
  level *d*, and none of whose moves out of the slice draws, is lost at *d* + 1 (its longest);
- whatever no level reaches is a draw, and so is whatever only a level beyond the cap
  (``MAX_PLIES``, 80) reaches.

The level is therefore the distance to conversion: the plies until a capture or a man's move
with best play, the winner hurrying and the loser holding out. It is what the 80-ply rule
counts (no capture and no man moving): from a fresh count, a win at level *d* is a win in play
exactly when *d* <= 80 — its *d* - 1 quiet plies leave the count at 79 at most, and the *d*-th
ply converts (resetting it) or leaves the loser without a move (decided before the rule). A
level beyond 80 is a draw in play: the loser holds out past the 80th quiet ply. Levels above
the cap are still run out (they cost little) but stored as the cap plus one, then turned into
draws and counted, so ``build`` can say how many positions the rule draws. A position's value depends
only on lower levels and on the tables already built, which hold the capped values, so the
capped table is the rule's value at a fresh count throughout. See the package docstring.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from kingme.engine import movegen
from kingme.engine.bitops import lowest_index, popcount
from kingme.engine.egdb.index import BINOMIAL, MAN_SQUARES, WHITE_MAN_SHIFT, Material, rank, unrank
from kingme.engine.egdb.probe import DRAW, DRAW_CODE, UNKNOWN, is_loss, loss_code, probe, win_code
from kingme.rules.bitboard import MASK32

#: Entries of the statistics ``solve_slices`` adds to: the positions the 80-ply rule turns
#: from a win or a loss into a draw, and whether a move left the slice to an unsolved position.
STAT_CAPPED, STAT_UNSOLVED_EXIT = range(2)
STAT_SIZE = 2
#: A move generator work array for one ply.
WORK_SIZE = movegen.MOVES_START + movegen.MAX_MOVES * movegen.MOVE_SIZE


def slice_order(material: Material) -> np.ndarray:
    """The men ranks of every possible slice (no two men on one square), most advanced first."""
    return _slice_order(material.black_men, material.white_men)


@njit(cache=True)
def _slice_order(black_men: int, white_men: int) -> np.ndarray:
    white_ranks = BINOMIAL[MAN_SQUARES, white_men]
    total = BINOMIAL[MAN_SQUARES, black_men] * white_ranks
    keys = np.empty(total, dtype=np.int64)
    count = 0
    for men_rank in range(total):
        black = unrank(men_rank // white_ranks, black_men, MASK32)
        white = unrank(men_rank % white_ranks, white_men, MASK32) << WHITE_MAN_SHIFT
        if black & white:
            continue
        keys[count] = (np.int64(movegen.rows_to_crown(black, white)) << 40) | men_rank
        count += 1
    keys = np.sort(keys[:count])
    return keys & ((np.int64(1) << 40) - 1)


@njit(cache=True)
def _position(
    men_black: int, men_white: int, t: int, kings_size: int, nbk: int, nwk: int
) -> tuple[int, int, int, bool]:
    """``(black, white, kings, black_to_move)`` of local index ``t`` of a slice."""
    white_kings_size = BINOMIAL[32 - popcount(men_black | men_white) - nbk, nwk]
    kings_rank = t % kings_size
    free = MASK32 & ~(men_black | men_white)
    black_kings = unrank(kings_rank // white_kings_size, nbk, free)
    white_kings = unrank(kings_rank % white_kings_size, nwk, free & ~black_kings)
    return men_black | black_kings, men_white | white_kings, black_kings | white_kings, t < kings_size


@njit(cache=True)
def _local(men: int, black_kings: int, white_kings: int, black_to_move: bool, kings_size: int, nwk: int) -> int:
    free = 32 - popcount(men)
    white_kings_size = BINOMIAL[free - popcount(black_kings), nwk]
    kings_rank = rank(black_kings, men) * white_kings_size + rank(white_kings, men | black_kings)
    return (0 if black_to_move else kings_size) + kings_rank


@njit(cache=True)
def solve_slices(
    offsets: np.ndarray, values: np.ndarray, material: np.ndarray, men_ranks: np.ndarray, stats: np.ndarray, cap: int
) -> None:
    """Solve the slices ``men_ranks`` of ``material`` (``[bk, bm, wk, wm, offset]``) in order,
    writing their bytes into ``values`` and adding to ``stats`` (``STAT_CAPPED`` and
    ``STAT_UNSOLVED_EXIT``). Wins and losses beyond ``cap`` plies are stored as draws."""
    # Every level beyond the cap is held as the cap plus one while the levels are found: still
    # a win or a loss, so the levels above it follow, and turned into a draw at the end.
    beyond = cap + 1
    nbk, nbm, nwk, nwm, offset = material[0], material[1], material[2], material[3], material[4]
    free = 32 - nbm - nwm
    kings_size = BINOMIAL[free, nbk] * BINOMIAL[free - nbk, nwk]
    white_ranks = BINOMIAL[MAN_SQUARES, nwm]
    size = 2 * kings_size
    remaining = np.zeros(size, dtype=np.uint8)
    blocked = np.zeros(size, dtype=np.bool_)
    current = np.empty(size, dtype=np.int32)
    following = np.empty(size, dtype=np.int32)
    buf = np.zeros(WORK_SIZE, dtype=np.int64)
    start = movegen.MOVES_START
    for men_rank in men_ranks:
        men_black = unrank(men_rank // white_ranks, nbm, MASK32)
        men_white = unrank(men_rank % white_ranks, nwm, MASK32) << WHITE_MAN_SHIFT
        men = men_black | men_white
        base = offset + men_rank * size
        count_current = 0
        count_following = 0
        for t in range(size):
            black, white, kings, black_to_move = _position(men_black, men_white, t, kings_size, nbk, nwk)
            own, opp = (black, white) if black_to_move else (white, black)
            n = movegen.generate(own, opp, kings, black_to_move, True, buf, start)
            remaining[t] = 0
            blocked[t] = False
            if n == 0:
                values[base + t] = loss_code(0)
                current[count_current] = t
                count_current += 1
                continue
            inside = 0
            won = False
            for m in range(n):
                at = start + m * movegen.MOVE_SIZE
                origin, target, captured = buf[at], buf[at + 1], buf[at + 2]
                if captured == 0 and kings & origin:
                    inside += 1
                    continue
                new_own, new_opp, new_kings = movegen.play(own, opp, kings, black_to_move, origin, target, captured)
                if black_to_move:
                    value = probe(offsets, values, new_opp, new_own, new_kings, False)
                else:
                    value = probe(offsets, values, new_own, new_opp, new_kings, True)
                if is_loss(value):
                    won = True
                elif value == DRAW:
                    blocked[t] = True
                elif value == UNKNOWN:
                    stats[STAT_UNSOLVED_EXIT] += 1
                    return
            if won or (inside == 0 and not blocked[t]):
                values[base + t] = win_code(1) if won else loss_code(1)
                following[count_following] = t
                count_following += 1
            else:
                values[base + t] = 0
                remaining[t] = inside
        level = 0
        while count_current or count_following:
            for i in range(count_current):
                t = current[i]
                black, white, kings, black_to_move = _position(men_black, men_white, t, kings_size, nbk, nwk)
                lost = values[base + t] >= loss_code(0)
                # The side that just moved: its kings step back to every empty neighbour.
                mover = white if black_to_move else black
                empty = MASK32 & ~(black | white)
                movers = mover & kings
                while movers:
                    king = movers & -movers
                    movers ^= king
                    square = lowest_index(king)
                    for direction in range(4):
                        before = movegen.NEIGHBOUR[square, direction]
                        if before < 0 or not (empty >> before) & 1:
                            continue
                        moved = (mover ^ king) | (np.int64(1) << before)
                        previous_kings = (kings ^ king) | (np.int64(1) << before)
                        other = black if black_to_move else white
                        if movegen.capturers(moved, other, previous_kings, not black_to_move):
                            continue
                        if black_to_move:
                            p = _local(men, previous_kings & black, previous_kings & moved, False, kings_size, nwk)
                        else:
                            p = _local(men, previous_kings & moved, previous_kings & white, True, kings_size, nwk)
                        if values[base + p] != 0:
                            continue
                        if lost:
                            values[base + p] = win_code(min(level + 1, beyond))
                        else:
                            remaining[p] -= 1
                            if remaining[p] != 0 or blocked[p]:
                                continue
                            values[base + p] = loss_code(min(level + 1, beyond))
                        following[count_following] = p
                        count_following += 1
            current, following = following, current
            count_current, count_following = count_following, 0
            if count_current:
                level += 1
        for t in range(size):
            code = values[base + t]
            if code == 0:
                values[base + t] = DRAW_CODE
            elif code == win_code(beyond) or code == loss_code(beyond):
                values[base + t] = DRAW_CODE
                stats[STAT_CAPPED] += 1

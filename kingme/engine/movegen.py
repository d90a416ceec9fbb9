"""The engine's own move generator, compiled with numba.

The rules core (``kingme.rules.bitboard``) is the authority on legality but runs as plain
Python; the search needs the same moves a hundred times faster. This module re-implements
generation for the compiled core and is checked against the rules core (same perft numbers,
same move sets on thousands of random positions; see ``tests/engine``). The bitwise "who can
jump" formulas are the rules core's own functions, compiled as they are.

Moves are written into a flat ``int64`` work array rather than returned, so nothing is
allocated per node: move ``i`` of a list starting at ``base`` occupies
``buf[base + MOVE_SIZE * i : base + MOVE_SIZE * (i + 1)]`` as (from bit, to bit, captured bits,
ordering score). Capture routes are enumerated depth-first with an explicit stack kept in
``buf[0:SCRATCH_SIZE]``, so no function here is recursive except ``perft``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from kingme.engine.bitops import lowest_index, popcount
from kingme.rules import bitboard
from kingme.rules.bitboard import BLACK_CROWN, DOWN3, DOWN4, DOWN5, MASK32, UP3, UP4, UP5, WHITE_CROWN

MOVE_SIZE = 4
#: More than any position has (12 kings have at most 48 steps; capture routes are far fewer).
MAX_MOVES = 256
SCRATCH_SIZE = 64
#: Deepest ply a search or perft may reach.
MAX_PLY = 128
MOVES_START = SCRATCH_SIZE
MOVES_END = MOVES_START + MAX_PLY * MAX_MOVES * MOVE_SIZE


def _direction_tables() -> tuple[np.ndarray, np.ndarray]:
    """Neighbour and landing square of every square in directions down-left, down-right,
    up-left, up-right (down = towards square 32), or -1 off the board."""
    neighbour = np.full((32, 4), -1, dtype=np.int64)
    landing = np.full((32, 4), -1, dtype=np.int64)
    for square in range(32):
        row, col = bitboard.row_col(square)
        for d, (dr, dc) in enumerate(((1, -1), (1, 1), (-1, -1), (-1, 1))):
            for distance, table in ((1, neighbour), (2, landing)):
                r, c = row + distance * dr, col + distance * dc
                if 0 <= r < 8 and 0 <= c < 8:
                    table[square, d] = r * 4 + c // 2
    return neighbour, landing


NEIGHBOUR, LANDING = _direction_tables()

_down_jumpers = njit(cache=True)(bitboard._down_jumpers)
_up_jumpers = njit(cache=True)(bitboard._up_jumpers)


def moves_base(ply: int) -> int:
    """Where the move list of ``ply`` starts in a work array."""
    return MOVES_START + ply * MAX_MOVES * MOVE_SIZE


moves_base = njit(cache=True)(moves_base)


@njit(cache=True)
def capturers(own: int, opp: int, kings: int, black: bool) -> int:
    """The side to move's pieces that have at least one capture."""
    empty = MASK32 ^ (own | opp)
    if black:
        return _down_jumpers(own, opp, empty) | _up_jumpers(own & kings, opp, empty)
    return _up_jumpers(own, opp, empty) | _down_jumpers(own & kings, opp, empty)


@njit(cache=True)
def _add(buf: np.ndarray, base: int, n: int, origin: int, target: int, captured: int) -> int:
    if n >= MAX_MOVES:
        return n
    i = base + n * MOVE_SIZE
    buf[i] = origin
    buf[i + 1] = target
    buf[i + 2] = captured
    buf[i + 3] = 0
    return n + 1


@njit(cache=True)
def _steps_down(movers: int, shift: int, empty: int, buf: np.ndarray, base: int, n: int) -> int:
    targets = (movers << shift) & empty
    while targets:
        target = targets & -targets
        targets ^= target
        n = _add(buf, base, n, target >> shift, target, 0)
    return n


@njit(cache=True)
def _steps_up(movers: int, shift: int, empty: int, buf: np.ndarray, base: int, n: int) -> int:
    targets = (movers >> shift) & empty
    while targets:
        target = targets & -targets
        targets ^= target
        n = _add(buf, base, n, target << shift, target, 0)
    return n


@njit(cache=True)
def _ordinary_moves(own: int, kings: int, empty: int, black: bool, buf: np.ndarray, base: int, n: int) -> int:
    down = own if black else own & kings
    up = own & kings if black else own
    if down:
        n = _steps_down(down & DOWN3, 3, empty, buf, base, n)
        n = _steps_down(down & DOWN4, 4, empty, buf, base, n)
        n = _steps_down(down & DOWN5, 5, empty, buf, base, n)
    if up:
        n = _steps_up(up & UP3, 3, empty, buf, base, n)
        n = _steps_up(up & UP4, 4, empty, buf, base, n)
        n = _steps_up(up & UP5, 5, empty, buf, base, n)
    return n


@njit(cache=True)
def ordinary_count(own: int, kings: int, empty: int, black: bool) -> int:
    """Number of ordinary moves, by popcount (mobility, and perft's last ply)."""
    down = own if black else own & kings
    up = own & kings if black else own
    count = 0
    if down:
        count += popcount(((down & DOWN3) << 3) & empty) + popcount(((down & DOWN4) << 4) & empty)
        count += popcount(((down & DOWN5) << 5) & empty)
    if up:
        count += popcount(((up & UP3) >> 3) & empty) + popcount(((up & UP4) >> 4) & empty)
        count += popcount(((up & UP5) >> 5) & empty)
    return count


@njit(cache=True)
def _capture_routes(
    own: int, opp: int, kings: int, black: bool, starters: int, stop_anywhere: bool, buf: np.ndarray, base: int, n: int
) -> int:
    """Append every capture route of the pieces in ``starters`` (see the rules core's
    ``_capture_moves``: same routes, same duplicates, prefixes too with ``stop_anywhere``)."""
    crown = BLACK_CROWN if black else WHITE_CROWN
    while starters:
        start_bit = starters & -starters
        starters ^= start_bit
        empty = MASK32 ^ ((own ^ start_bit) | opp)
        king = (kings & start_bit) != 0
        first = 0 if king or black else 2
        last = 2 if black and not king else 4
        stop = 0 if king else crown
        # Stack frame at 4 * level: square, captured so far, next direction, whether it jumped on.
        level = 0
        buf[0] = lowest_index(start_bit)
        buf[1] = 0
        buf[2] = first
        buf[3] = 0
        while level >= 0:
            frame = 4 * level
            square = buf[frame]
            direction = buf[frame + 2]
            if direction < last:
                buf[frame + 2] = direction + 1
                land = LANDING[square, direction]
                if land < 0:
                    continue
                over_bit = np.int64(1) << NEIGHBOUR[square, direction]
                land_bit = np.int64(1) << land
                captured = buf[frame + 1]
                if opp & ~captured & over_bit and empty & land_bit:
                    buf[frame + 3] = 1
                    if stop_anywhere or land_bit & stop:
                        n = _add(buf, base, n, start_bit, land_bit, captured | over_bit)
                    if not land_bit & stop:
                        level += 1
                        frame += 4
                        buf[frame] = land
                        buf[frame + 1] = captured | over_bit
                        buf[frame + 2] = first
                        buf[frame + 3] = 0
            else:
                if buf[frame + 3] == 0 and buf[frame + 1] != 0 and not stop_anywhere:
                    n = _add(buf, base, n, start_bit, np.int64(1) << square, buf[frame + 1])
                level -= 1
    return n


@njit(cache=True)
def generate(own: int, opp: int, kings: int, black: bool, compulsory: bool, buf: np.ndarray, base: int) -> int:
    """Write every legal move of the side to move at ``buf[base:]``; return how many.

    ``compulsory`` is American rules (a capture rules out ordinary moves and must be finished);
    without it (casual) ordinary moves, complete captures and every partial capture are listed.
    """
    jumping = capturers(own, opp, kings, black)
    if compulsory and jumping:
        return _capture_routes(own, opp, kings, black, jumping, False, buf, base, 0)
    n = _ordinary_moves(own, kings, MASK32 ^ (own | opp), black, buf, base, 0)
    if jumping:
        n = _capture_routes(own, opp, kings, black, jumping, True, buf, base, n)
    return n


@njit(cache=True)
def rows_to_crown(black_men: int, white_men: int) -> int:
    """The rows all these men still have to go to their crown rows (Black's men crown on squares
    29-32, White's on 1-4). Every man's step lowers it by one; a king's step keeps it. The
    exact solver and the database build order their work by it, so that every move either
    keeps a position's place or leads to one already solved."""
    rows = 0
    rest = black_men
    while rest:
        rows += 7 - lowest_index(rest) // 4
        rest &= rest - 1
    rest = white_men
    while rest:
        rows += lowest_index(rest) // 4
        rest &= rest - 1
    return rows


@njit(cache=True)
def play(own: int, opp: int, kings: int, black: bool, origin: int, target: int, captured: int) -> tuple[int, int, int]:
    """The position after a move, seen from the new side to move: (own, opp, kings)."""
    if kings & origin:
        kings = ((kings ^ origin) | target) & ~captured
    else:
        kings = (kings & ~captured) | (target & (BLACK_CROWN if black else WHITE_CROWN))
    return opp ^ captured, own ^ origin ^ target, kings


@njit(cache=True)
def count_moves(own: int, opp: int, kings: int, black: bool, compulsory: bool, buf: np.ndarray, base: int) -> int:
    """Number of legal moves; ordinary moves are counted by popcount, not listed."""
    jumping = capturers(own, opp, kings, black)
    if compulsory and jumping:
        return _capture_routes(own, opp, kings, black, jumping, False, buf, base, 0)
    count = ordinary_count(own, kings, MASK32 ^ (own | opp), black)
    if jumping:
        count += _capture_routes(own, opp, kings, black, jumping, True, buf, base, 0)
    return count


@njit(cache=True)
def perft(own: int, opp: int, kings: int, black: bool, depth: int, compulsory: bool, buf: np.ndarray, ply: int) -> int:
    """Leaf positions ``depth`` plies ahead, every capture route counted; the last ply is
    counted without being played."""
    base = moves_base(ply)
    if depth <= 1:
        if depth == 0:
            return 1
        return count_moves(own, opp, kings, black, compulsory, buf, base)
    n = generate(own, opp, kings, black, compulsory, buf, base)
    total = 0
    for i in range(n):
        m = base + i * MOVE_SIZE
        new_own, new_opp, new_kings = play(own, opp, kings, black, buf[m], buf[m + 1], buf[m + 2])
        total += perft(new_own, new_opp, new_kings, not black, depth - 1, compulsory, buf, ply + 1)
    return total


def work_array(size: int = MOVES_END) -> np.ndarray:
    """A zeroed work array for ``generate`` and ``perft``."""
    return np.zeros(size, dtype=np.int64)

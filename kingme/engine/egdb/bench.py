"""Probe speed: random positions of one size, looked up in a compiled loop as the search would."""

from __future__ import annotations

import random

import numpy as np
from numba import njit

from kingme.engine.egdb.probe import probe
from kingme.rules.bitboard import BLACK_CROWN, WHITE_CROWN


def random_position(rng: random.Random, pieces: int) -> tuple[int, int, int, bool]:
    """``(black, white, kings, black_to_move)``: ``pieces`` pieces, both sides present, each a
    king or a man at random, no man on its crowning row."""
    while True:
        squares = rng.sample(range(32), pieces)
        split = rng.randint(1, pieces - 1)
        black = white = kings = 0
        for i, square in enumerate(squares):
            is_black = i < split
            king = rng.random() < 0.5
            bit = 1 << square
            if not king and bit & (BLACK_CROWN if is_black else WHITE_CROWN):
                break
            black, white = (black | bit, white) if is_black else (black, white | bit)
            kings |= bit if king else 0
        else:
            return black, white, kings, rng.random() < 0.5


def random_positions(rng: random.Random, pieces: int, count: int) -> np.ndarray:
    """``count`` random positions as rows of ``(black, white, kings, black_to_move)``."""
    return np.array([random_position(rng, pieces) for _ in range(count)], dtype=np.int64)


@njit(cache=True)
def probe_all(offsets: np.ndarray, values: np.ndarray, positions: np.ndarray) -> int:
    """Probe every row of ``positions``; returns the sum of the values (so none is skipped)."""
    total = 0
    for i in range(positions.shape[0]):
        total += probe(offsets, values, positions[i, 0], positions[i, 1], positions[i, 2], positions[i, 3] != 0)
    return total

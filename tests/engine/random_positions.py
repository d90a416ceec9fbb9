"""Random positions for cross-checks: the engine must agree with the rules core on any of them."""

from __future__ import annotations

import random

from kingme.rules import Board


def random_board(rng: random.Random, variant: str) -> Board:
    """A random legal-looking position: up to 12 pieces a side, no man on its crowning row."""
    squares = rng.sample(range(32), rng.randint(2, 20))
    split = rng.randint(1, len(squares) - 1)
    black, white, kings = 0, 0, 0
    for i, square in enumerate(squares[:24]):
        is_black = i < split
        king = rng.random() < 0.3 or (is_black and square >= 28) or (not is_black and square < 4)
        if is_black and bin(black).count("1") < 12:
            black |= 1 << square
        elif not is_black and bin(white).count("1") < 12:
            white |= 1 << square
        else:
            continue
        if king:
            kings |= 1 << square
    board = Board(variant=variant)
    board.black, board.white, board.kings, board.black_to_move = black, white, kings, rng.random() < 0.5
    return board

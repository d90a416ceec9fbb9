"""The engine's compiled move generator agrees with the rules core, move for move."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from kingme.engine import movegen
from kingme.rules import Board, bitboard
from tests.engine.random_positions import random_board

REFERENCE = [  # /work/shared/reference/perft.md
    ("B:W21-32:B1-12", [7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963680]),
    ("B:W6,7,14,15:BK11", [2]),
    ("B:W6,7,14,15,22,K28:B1,3,K11,K19", [7, 24, 131, 468, 3466, 12879, 99003, 382570]),
    ("W:W9,10,K31:B5,6,13,14,22,23", [2, 15, 58, 277, 1027, 4806, 22465, 119289]),
]


def engine_perft(board: Board, depth: int) -> int:
    own, opp = board.sides()
    compulsory = board.variant.captures_compulsory
    return movegen.perft(own, opp, board.kings, board.black_to_move, depth, compulsory, movegen.work_array(), 0)


@pytest.mark.parametrize(("fen", "counts"), REFERENCE)
def test_engine_perft_matches_the_reference_counts(fen: str, counts: list[int]) -> None:
    board = Board(fen)
    assert [engine_perft(board, depth) for depth in range(1, len(counts) + 1)] == counts


@pytest.mark.parametrize("fen", [fen for fen, _ in REFERENCE])
def test_engine_perft_matches_the_rules_core_in_the_casual_variant(fen: str) -> None:
    board = Board(fen, "casual")
    own, opp = board.sides()
    for depth in range(1, 5):
        expected = bitboard.perft(own, opp, board.kings, board.black_to_move, depth, False)
        assert engine_perft(board, depth) == expected


def engine_moves(board: Board) -> Counter[tuple[int, int, frozenset[int]]]:
    own, opp = board.sides()
    buffer = movegen.work_array()
    base = movegen.moves_base(0)
    n = movegen.generate(own, opp, board.kings, board.black_to_move, board.variant.captures_compulsory, buffer, base)
    moves: Counter[tuple[int, int, frozenset[int]]] = Counter()
    for i in range(n):
        origin, target, captured = (int(v) for v in buffer[base + 4 * i : base + 4 * i + 3])
        moves[(origin.bit_length(), target.bit_length(), frozenset(s + 1 for s in range(32) if captured >> s & 1))] += 1
    return moves


@pytest.mark.parametrize("variant", ["american", "casual"])
def test_engine_moves_equal_the_rules_core_moves_on_thousands_of_random_positions(variant: str) -> None:
    rng = random.Random(f"cross-check-{variant}")
    with_captures = 0
    for _ in range(3000):
        board = random_board(rng, variant)
        expected = Counter((m.from_square, m.to_square, frozenset(m.captures)) for m in board.legal_moves())
        assert engine_moves(board) == expected, board.fen()
        with_captures += any(m.captures for m in board.legal_moves())
    assert with_captures > 300  # the sample exercises capture routes, not just steps

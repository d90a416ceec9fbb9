"""Perft: the move generator counts every reachable position, every capture route separately.

The counts are those of /work/shared/reference/perft.md (four independent generators agree).
Depths 9 and 10 from the start (3,963,680 and 18,391,564) take tens of seconds in pure Python;
they are checked by hand with ``kingme perft 10``, not in the suite.
"""

import pytest

from kingme import Board
from kingme.cli.rules_commands import perft

START_COUNTS = [7, 49, 302, 1469, 7361, 36768, 179740, 845931]


@pytest.mark.parametrize("depth", range(1, 9))
def test_perft_from_the_start_position_matches_the_reference(depth):
    assert perft(Board(), depth) == START_COUNTS[depth - 1]


def test_a_king_that_can_circle_back_to_its_start_has_two_routes():
    board = Board("B:W6,7,14,15:BK11")
    assert perft(board, 1) == 2
    assert sorted(str(m) for m in board.legal_moves()) == ["11x18x9x2x11", "11x2x9x18x11"]


@pytest.mark.parametrize(
    ("fen", "counts"),
    [
        ("B:W6,7,14,15,22,K28:B1,3,K11,K19", [7, 24, 131, 468, 3466, 12879, 99003, 382570]),
        ("W:W9,10,K31:B5,6,13,14,22,23", [2, 15, 58, 277, 1027, 4806, 22465, 119289]),
    ],
    ids=["kings-and-duplicate-routes", "crowning-mid-capture"],
)
def test_perft_of_positions_with_kings_matches_the_reference(fen, counts):
    board = Board(fen)
    assert [perft(board, depth) for depth in range(1, len(counts) + 1)] == counts


def test_perft_counts_the_same_as_playing_every_move_out():
    """The bulk-counting perft agrees with a naive walk over Board.legal_moves/push/pop."""

    def walk(board, depth):
        if depth == 0:
            return 1
        total = 0
        for move in board.legal_moves():
            board.push(move)
            total += walk(board, depth - 1)
            board.pop()
        return total

    for fen, variant in [(None, "american"), ("B:W6,7,14,15,22,K28:B1,3,K11,K19", "american"), (None, "casual")]:
        board = Board(fen, variant)
        assert walk(board, 4) == perft(board, 4)


def test_perft_leaves_the_board_unchanged():
    board = Board("B:W6,7,14,15,22,K28:B1,3,K11,K19")
    before = board.fen()
    perft(board, 5)
    assert board.fen() == before

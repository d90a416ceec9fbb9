"""What ``Board`` tells the layers above it, so none of them re-derives it from the bitboards:
the side to move's pieces and its opponent's, the move a route names, and crowning."""

import re

import pytest

from kingme.rules import Board, IllegalMoveError, opponent
from kingme.rules.bitboard import crown_row


@pytest.mark.parametrize("fen", ["B:W21,22:B1,K5", "W:W21,22:B1,K5"])
def test_sides_are_the_side_to_move_first(fen):
    board = Board(fen)
    black, white = (1 << 0) | (1 << 4), (1 << 20) | (1 << 21)
    assert board.sides() == ((black, white) if board.turn == "black" else (white, black))


def test_a_route_names_its_move_with_the_captures():
    board = Board("B:W14,23:B9")
    assert board.move_for_path((9, 18, 27)) == board.parse_move("9x18x27")


@pytest.mark.parametrize("path", [[9, 18], [9, 13], [27, 18, 9], [9]])
def test_a_route_that_is_not_a_whole_legal_move_is_refused_naming_it(path):
    with pytest.raises(IllegalMoveError, match=re.escape(f"the path {path} is not a legal move for black")):
        Board("B:W14,23:B9").move_for_path(path)


@pytest.mark.parametrize(
    ("fen", "move", "crowns"),
    [
        ("B:W32:B25", "25-29", True),
        ("B:W32:B25", "25-30", True),
        ("B:W32:B21", "21-25", False),
        ("B:W32:BK25", "25-29", False),  # a king is crowned already
        ("W:W8:BK32", "8-4", True),
        ("W:W8:BK32", "8-3", True),
        ("W:W12:BK32", "12-8", False),
    ],
)
def test_a_man_is_crowned_on_the_far_row_only(fen, move, crowns):
    board = Board(fen)
    assert board.is_crowning(board.parse_move(move)) is crowns


def test_the_crowning_rows_are_each_sides_far_row():
    assert [s + 1 for s in range(32) if crown_row(True) >> s & 1] == [29, 30, 31, 32]
    assert [s + 1 for s in range(32) if crown_row(False) >> s & 1] == [1, 2, 3, 4]


def test_the_opponent_of_each_colour_is_the_other():
    assert (opponent("black"), opponent("white")) == ("white", "black")


def test_the_piece_count_counts_both_sides_kings_included() -> None:
    assert Board().piece_count() == 24
    assert Board("W:WK19,K23:B12,K28").piece_count() == 4
    assert Board("B:W18:B").piece_count() == 1

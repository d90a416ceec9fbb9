"""Move notation: moves print as 11-15, 22x15 and full paths such as 9x18x27; text is parsed
leniently (short capture form, leading zeros, ':') but never guessed."""

import pytest

from kingme import Board, Move
from kingme.rules import AmbiguousMoveError, IllegalMoveError, KingmeError

TWO_ROUTES = "B:W6,7,14,15:B2"  # a man on 2 can reach 18 over 6 and 14, or over 7 and 15


def test_moves_print_with_a_dash_or_their_full_capture_path():
    assert str(Move((11, 15))) == "11-15"
    assert str(Move((22, 15), (18,))) == "22x15"
    assert [str(m) for m in Board("B:W14,23:B9").legal_moves()] == ["9x18x27"]


def test_a_move_reads_from_its_printed_form():
    board = Board("B:W6,7,14,15,22,K28:B1,3,K11,K19")
    for move in board.legal_moves():
        assert board.parse_move(str(move)) == move


def test_the_full_path_names_a_capture():
    move = Board("B:W14,23:B9").parse_move("9x18x27")
    assert move.path == (9, 18, 27)
    assert move.captures == (14, 23)


def test_the_short_capture_form_is_accepted_when_one_route_matches():
    assert Board("B:W14,23:B9").parse_move("9x27").path == (9, 18, 27)


def test_two_routes_to_the_same_square_taking_different_pieces_are_different_moves():
    moves = Board(TWO_ROUTES).legal_moves()
    assert {(m.path, m.captures) for m in moves} == {((2, 9, 18), (6, 14)), ((2, 11, 18), (7, 15))}


def test_an_ambiguous_short_form_is_an_error_listing_the_matching_moves():
    with pytest.raises(AmbiguousMoveError) as error:
        Board(TWO_ROUTES).parse_move("2x18")
    assert "2x9x18" in str(error.value)
    assert "2x11x18" in str(error.value)
    assert "full path" in str(error.value)


def test_the_full_path_resolves_an_ambiguous_capture():
    assert Board(TWO_ROUTES).parse_move("2x11x18").captures == (7, 15)


def test_leading_zeros_colons_capitals_and_spaces_are_accepted():
    board = Board("B:W14,23:B9")
    assert board.parse_move("09x18x27") == board.parse_move("9:18:27") == board.parse_move(" 9 X 18 x 27 ")
    assert Board().parse_move("09-013").path == (9, 13)


def test_a_capture_route_may_pass_through_its_start_square():
    board = Board("B:W6,7,14,15:BK11")
    assert board.parse_move("11x2x9x18x11").captures == (7, 6, 14, 15)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "is not move text"),
        ("hello", "is not move text"),
        ("11", "is not move text"),
        ("11--15", "is not move text"),
        ("11-15-", "is not move text"),
        ("-11-15", "is not move text"),
        ("11-15; drop table", "is not move text"),
        ("1" * 300, "is not move text"),
        ("0-5", "square 0 is off the board"),
        ("11-33", "square 33 is off the board"),
        ("11-16x", "is not move text"),
        ("11-14", "not legal for black"),
        ("22-18", "not legal for black"),
        ("9x18", "not legal for black"),
    ],
)
def test_garbage_and_illegal_move_text_is_refused_naming_the_problem(text, problem):
    board = Board()
    with pytest.raises(IllegalMoveError, match=problem):
        board.parse_move(text)
    assert board.fen() == Board().fen()


@pytest.mark.parametrize("value", [None, 1115, ["11-15"], b"11-15"])
def test_move_text_that_is_not_text_is_refused(value):
    with pytest.raises(KingmeError):
        Board().parse_move(value)


def test_an_illegal_move_lists_the_legal_ones():
    with pytest.raises(IllegalMoveError, match="legal moves: 9-13, 9-14"):
        Board().parse_move("11-14")


def test_an_ordinary_move_is_refused_when_a_capture_is_compulsory():
    board = Board("B:W14,23:B9,1")
    with pytest.raises(IllegalMoveError):
        board.push_text("1-5")
    assert board.fen() == "B:W14,23:B1,9"


def test_push_refuses_a_move_object_that_is_not_legal_and_changes_nothing():
    board = Board()
    with pytest.raises(IllegalMoveError):
        board.push(Move((22, 18)))
    assert board.fen() == Board().fen() and board.move_stack == []


def test_pop_takes_back_exactly_the_last_move():
    board = Board("W:W9,10,K31:B5,6,13,14,22,23")
    before = board.fen()
    board.push_text("10x1")
    assert board.piece_at(1).king
    assert board.pop() == Move((10, 1), (6,))
    assert board.fen() == before
    with pytest.raises(IndexError):
        Board().pop()

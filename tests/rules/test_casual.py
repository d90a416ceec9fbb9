"""The casual variant (seed 002): captures are optional, a capture may stop after any jump,
and crowning still ends the move."""

from kingme import Board


def paths(board):
    return sorted(str(m) for m in board.legal_moves())


def test_american_rules_force_the_whole_capture():
    assert paths(Board("B:W14,23:B9")) == ["9x18x27"]


def test_casual_allows_an_ordinary_move_while_a_capture_exists():
    moves = paths(Board("B:W14,23:B9", variant="casual"))
    assert "9-13" in moves


def test_casual_allows_stopping_after_any_jump_of_a_route():
    assert paths(Board("B:W14,23:B9", variant="casual")) == ["9-13", "9x18", "9x18x27"]


def test_a_partial_capture_leaves_the_uncaptured_piece_on_the_board():
    board = Board("B:W14,23:B9", variant="casual")
    board.push_text("9x18")
    assert board.fen() == "W:W23:B18"


def test_crowning_still_ends_the_move_in_casual():
    # A white man on 11 jumps 7 and is crowned on 2; as a king it could go on over 6 to 9,
    # but crowning ends the move in both variants.
    assert paths(Board("W:W11:B6,7")) == ["11x2"]
    casual = paths(Board("W:W11:B6,7", variant="casual"))
    assert "11x2" in casual
    assert not any(move.startswith("11x2x") for move in casual)
    assert casual == ["11-8", "11x2"]


def test_casual_with_no_capture_available_is_the_same_as_american():
    assert paths(Board(variant="casual")) == paths(Board())


def test_casual_is_not_the_same_game_three_plies_deep():
    from kingme.cli.rules_commands import perft

    assert [perft(Board(variant="casual"), d) for d in (1, 2)] == [7, 49]
    assert perft(Board(variant="casual"), 3) > perft(Board(), 3)

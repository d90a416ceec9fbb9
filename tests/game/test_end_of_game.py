"""The end-of-game rules, each exactly at its threshold and one step before, in their order:
no legal move (a win), then the third repetition, then 80 quiet plies (draws)."""

import pytest

from kingme import Board, Game, Setup
from kingme.rules import GameOverError, IllegalMoveError

# -- no legal move ------------------------------------------------------------------------


def test_taking_the_last_piece_wins_for_no_pieces():
    game = Game(Setup.named("double-jump"))
    game.push("9x18x27")
    assert (game.result.winner, game.result.reason) == ("black", "no-pieces")
    assert game.result.loser == "white" and game.result.pdn == "1-0"


def test_leaving_the_opponent_no_move_wins_for_blocked_even_with_pieces_left():
    # White's 15-11 shuts in the black man on 4: 8 is taken and the jump to 11 is covered.
    game = Game(Setup(fen="W:W8,15:B4"))
    assert game.result is None
    game.push("15-11")
    assert (game.result.winner, game.result.reason) == ("white", "blocked")
    assert game.board.count("black") == 1


def test_a_start_position_without_a_move_is_already_decided():
    assert Game(Setup(fen="B:W5:B")).result.reason == "no-pieces"
    assert (Game(Setup(fen="B:W8,11:B4")).result.winner, Game(Setup(fen="B:W8,11:B4")).result.reason) == (
        "white",
        "blocked",
    )


def test_nothing_can_be_played_once_the_game_is_over():
    game = Game(Setup.named("double-jump"), ["9x18x27"])
    assert game.legal_moves() == []
    with pytest.raises(GameOverError):
        game.push("27-31")


# -- repetition ---------------------------------------------------------------------------

KINGS = "B:WK32:BK1"
ROUND_TRIP = ["1-6", "32-27", "6-1", "27-32"]  # both kings out and back: the start again


def test_the_start_position_counts_as_the_first_occurrence():
    game = Game(Setup(fen=KINGS), ROUND_TRIP)
    assert game.repetitions == 2
    assert game.result is None


def test_the_third_occurrence_draws_and_the_ply_before_does_not():
    game = Game(Setup(fen=KINGS), ROUND_TRIP + ROUND_TRIP[:3])
    assert game.result is None
    game.push(ROUND_TRIP[3])
    assert game.repetitions == 3
    assert (game.result.winner, game.result.reason) == (None, "repetition")


def test_any_position_drawn_by_its_third_occurrence_not_only_the_start():
    # The position after 1-6 (white to move) comes back after each loop; the start never does.
    loop = ["32-27", "6-10", "27-32", "10-6"]
    game = Game(Setup(fen=KINGS), ["1-6", *loop, *loop[:3]])
    assert game.result is None and game._seen[Board(KINGS).key()] == 1
    game.push(loop[3])
    assert game.repetitions == 3
    assert game.result.reason == "repetition"


def test_the_same_placement_with_the_other_side_to_move_is_another_position():
    """Play can never reach the same placement with the other side to move (each ordinary move
    changes the row parity of one piece, and a capture removes one), so this is checked on the
    position key the game counts repetitions with."""
    assert Board("B:WK32:BK1").key() != Board("W:WK32:BK1").key()
    game = Game(Setup(fen="W:WK32:BK1"), ["32-27", "1-6", "27-32", "6-1"])
    assert game.repetitions == 2
    assert game._seen[Board("B:WK32:BK1").key()] == 0


# -- no progress --------------------------------------------------------------------------
#
# Black has only a king, shuffling 29 -> 25 -> 30 -> 25 -> 29; White has men on 17, 18 and 22
# and a king touring a 20-square circuit. No position comes back a third time, nothing is
# captured and no man moves, so after 79 plies the count stands at 79. The white king then
# comes down to 30, next to the black king cornered on 29.

QUIET_FEN = "B:W17,18,22,K28:BK29"
CIRCUIT = [28, 24, 20, 16, 11, 8, 3, 7, 2, 6, 1, 5, 9, 14, 10, 15, 19, 23, 27, 32]
SHUFFLE = [29, 25, 30, 25]


def quiet_79_plies():
    moves = []
    for turn in range(37):
        moves.append(f"{SHUFFLE[turn % 4]}-{SHUFFLE[(turn + 1) % 4]}")
        moves.append(f"{CIRCUIT[turn % 20]}-{CIRCUIT[(turn + 1) % 20]}")
    return moves + ["25-29", "23-26", "29-25", "26-30", "25-29"]


@pytest.fixture
def quiet_game():
    game = Game(Setup(fen=QUIET_FEN), quiet_79_plies())
    assert game.board.fen() == "W:W17,18,22,K30:BK29"
    return game


def test_79_quiet_king_plies_are_not_enough(quiet_game):
    assert quiet_game.quiet_plies == 79
    assert quiet_game.result is None
    assert max(quiet_game._seen.values()) == 2


def test_the_80th_quiet_king_ply_draws_for_no_progress(quiet_game):
    quiet_game.push("30-26")
    assert quiet_game.quiet_plies == 80
    assert (quiet_game.result.winner, quiet_game.result.reason) == (None, "no-progress")


def test_a_man_move_resets_the_count(quiet_game):
    quiet_game.push("18-14")
    assert quiet_game.quiet_plies == 0
    assert quiet_game.result is None


def test_a_capture_by_a_man_resets_the_count():
    # The white king walks up to 14, where the black man on 9 must take it.
    game = Game(Setup(fen="B:WK32:BK1,9"), ["1-5", "32-27", "5-1", "27-23", "1-5", "23-18", "5-1", "18-14"])
    assert game.quiet_plies == 8
    game.push("9x18")
    assert game.quiet_plies == 0


def test_a_capture_by_a_king_resets_the_count():
    game = Game(Setup(fen="B:WK32:BK1,K10"), ["1-5", "32-27", "5-1", "27-24", "1-5", "24-19", "10-15"])
    assert game.quiet_plies == 7
    game.push("19x10")
    assert game.quiet_plies == 0


def test_the_win_is_checked_before_the_no_progress_draw(quiet_game):
    # 30-25 is the 80th quiet ply and leaves the black king on 29 without a move.
    quiet_game.push("30-25")
    assert quiet_game.quiet_plies == 80
    assert (quiet_game.result.winner, quiet_game.result.reason) == ("white", "blocked")


# -- resignation and steps ----------------------------------------------------------------


def test_resigning_ends_the_game_against_the_side_to_move_by_default():
    game = Game(moves=["11-15"])
    result = game.resign()
    assert (result.winner, result.reason) == ("black", "resignation")
    assert game.result == result and game.is_over and game.legal_moves() == []
    assert result.loser == "white" and result.to_dict() == {"winner": "black", "reason": "resignation"}


def test_either_side_may_resign_at_any_time():
    game = Game()
    assert game.resign("white").winner == "black"
    assert Game().resign("black").winner == "white"


def test_resigning_for_nobody_or_twice_is_refused():
    game = Game()
    with pytest.raises(IllegalMoveError, match="choose black or white"):
        game.resign("red")
    assert game.result is None
    game.resign()
    with pytest.raises(GameOverError):
        game.resign()


def test_an_agreed_draw_ends_the_game():
    game = Game()
    assert (game.agree_draw().winner, game.result.reason) == (None, "agreement")


def test_steps_played_counts_every_jump_of_a_multi_jump():
    game = Game(Setup.named("double-jump"), ["9x18x27"])
    assert game.steps == 2 and len(game.moves) == 1
    game = Game(moves=["11-15", "23-19", "8-11", "22-17", "9-13", "17-14", "10x17", "21x14"])
    assert game.steps == 8
    king = Game(Setup(fen="B:W6,7,14,15:BK11"), ["11x2x9x18x11"])
    assert king.steps == 4

"""Reviewing a game: one search a position, each move judged by the win chance it lost."""

from __future__ import annotations

import pytest

from kingme.game import Game, Setup
from kingme.review import review as review_module
from kingme.review.budgets import BUDGETS, Budget, ReviewError, budget_named
from kingme.review.review import (
    Evaluation,
    GameReview,
    PlyReview,
    Position,
    PositionSearch,
    attempt_positions,
    check_reviewable,
    judge_attempt,
    positions,
    review_game,
    search_position,
)
from kingme.rules import IllegalMoveError

#: Black (king on 1, man on 10) against White's king on 18, Black to move: the tables win it,
#: unless Black plays 10-14, which White's king takes (18x9): king against king, a draw.
ENDING = "B:WK18:B10,K1"
STANDARD = BUDGETS["standard"]


def _review(game: Game) -> tuple[list[PlyReview], GameReview]:
    *plies, summary = review_game(game, STANDARD)
    assert isinstance(summary, GameReview) and all(isinstance(p, PlyReview) for p in plies)
    return plies, summary  # type: ignore[return-value]


def test_a_move_that_throws_a_table_win_into_a_draw_is_a_blunder_and_the_winning_move_is_shown() -> None:
    plies, summary = _review(Game(Setup(fen=ENDING), ["10-14", "18x9"]))
    blunder = plies[0]
    assert (blunder.side, str(blunder.move), blunder.verdict) == ("black", "10-14", "blunder")
    assert blunder.loss == pytest.approx(50.0)
    assert blunder.evaluation == Evaluation(0, 50.0, None)
    assert blunder.best is not None and str(blunder.best) != "10-14" and blunder.line[0] == blunder.best
    assert summary.counts["black"] == {"inaccuracy": 0, "mistake": 0, "blunder": 1}


def test_a_table_win_is_shown_as_a_win_in_plies_not_as_a_score() -> None:
    plies, summary = _review(Game(Setup(fen=ENDING), ["1-5"]))
    assert summary.initial.score is None and summary.initial.win == 100.0
    assert summary.initial.table_plies is not None and summary.initial.table_plies > 0  # Black wins
    after = plies[0].evaluation
    assert after.score is None and after.win == 100.0 and after.table_plies is not None and after.table_plies > 0
    assert plies[0].verdict is None and plies[0].loss == 0.0 and plies[0].accuracy == 100.0


def test_a_white_win_counts_its_plies_negative() -> None:
    search = search_position(positions(Setup(fen="W:WK10,K1:BK18"), [])[0], STANDARD)
    assert search.evaluation.win == 0.0
    assert search.evaluation.table_plies is not None and search.evaluation.table_plies < 0


def test_a_forced_capture_is_shown_but_never_judged_nor_counted_in_the_accuracy() -> None:
    plies, summary = _review(Game(Setup(fen=ENDING), ["10-14", "18x9"]))
    capture = plies[1]
    assert capture.forced and capture.verdict is None and capture.loss == 0.0
    assert summary.accuracy["white"] is None  # White's only move was forced


def test_the_last_position_of_a_won_game_is_the_result_without_a_search() -> None:
    plies, _ = _review(Game(Setup.named("double-jump"), ["9x18x27"]))
    assert plies[-1].evaluation == Evaluation(None, 100.0, None)


def test_a_review_is_the_same_on_every_run() -> None:
    game = Game(moves=["11-15", "23-19", "8-11", "22-17", "9-13", "17-14"])
    first = [item.to_dict() for item in review_game(game, STANDARD)]
    assert first == [item.to_dict() for item in review_game(game, STANDARD)]
    assert [ply["ply"] for ply in first[:-1]] == [1, 2, 3, 4, 5, 6]
    assert [ply["side"] for ply in first[:-1]] == ["black", "white"] * 3


def test_the_engines_own_move_loses_nothing_whatever_the_next_search_says() -> None:
    start, _ = positions(Setup(), [Game().board.parse_move("11-15")])

    def search(position: Position, budget: Budget) -> PositionSearch:
        if position == start:
            return PositionSearch(True, Evaluation(40, 60.0, None), Game().board.parse_move("11-15"), ())
        return PositionSearch(False, Evaluation(-400, 10.0, None), None, ())

    ply = next(iter(review_game(Game(moves=["11-15"]), STANDARD, search)))
    assert isinstance(ply, PlyReview)
    assert ply.loss == 0.0 and ply.verdict is None and ply.best is None


def test_a_position_carries_the_king_moves_since_the_last_capture_or_mans_move() -> None:
    setup = Setup(fen="B:WK30:BK5,12")
    game = Game(setup, ["5-9", "30-26", "12-16", "26-22"])
    found = positions(setup, game.moves)
    assert [len(p.moves) for p in found] == [0, 1, 2, 0, 1]
    assert found[-1].game().board.fen() == game.board.fen()
    assert found[-1].game().quiet_plies == game.quiet_plies


def test_a_game_without_moves_is_refused() -> None:
    with pytest.raises(ReviewError, match="no moves"):
        check_reviewable(Game())


def test_a_game_longer_than_the_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(review_module, "MAX_REVIEW_PLIES", 3)
    with pytest.raises(ReviewError, match="4 plies; at most 3"):
        check_reviewable(Game(moves=["11-15", "23-19", "8-11", "22-17"]))


def test_an_unknown_budget_is_refused_with_the_choices() -> None:
    assert budget_named("deep") is BUDGETS["deep"]
    with pytest.raises(ReviewError, match="standard, deep"):
        budget_named("forever")


def test_the_deep_budget_searches_more_than_the_standard_one() -> None:
    assert BUDGETS["deep"].nodes > BUDGETS["standard"].nodes


def _try(game: Game, ply: int, move: str) -> tuple[bool, float]:
    before, after, proposed = attempt_positions(game, ply, move)
    attempt = judge_attempt(
        proposed, game.moves[ply - 1], search_position(before, STANDARD), search_position(after, STANDARD)
    )
    return attempt.found, attempt.loss


def test_a_winning_move_instead_of_the_blunder_is_found() -> None:
    found, loss = _try(Game(Setup(fen=ENDING), ["10-14", "18x9"]), 1, "1-5")
    assert found and loss == 0.0


def test_the_games_own_move_is_never_found() -> None:
    found, loss = _try(Game(Setup(fen=ENDING), ["10-14", "18x9"]), 1, "10-14")
    assert not found and loss == pytest.approx(50.0)


@pytest.mark.parametrize("ply", [0, 3, -1])
def test_a_ply_the_game_does_not_have_is_refused(ply: int) -> None:
    with pytest.raises(ReviewError, match="plies 1 to 2"):
        attempt_positions(Game(Setup(fen=ENDING), ["10-14", "18x9"]), ply, "1-5")


def test_an_illegal_proposed_move_is_refused() -> None:
    with pytest.raises(IllegalMoveError):
        attempt_positions(Game(Setup(fen=ENDING), ["10-14", "18x9"]), 1, "1-10")

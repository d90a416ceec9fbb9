"""Verdicts and accuracy: lichess's definitions over points of win chance lost."""

from __future__ import annotations

import itertools

import pytest

from kingme.review.judgement import (
    BLUNDER,
    INACCURACY,
    MISTAKE,
    WEIGHT_LEAST,
    WEIGHT_MOST,
    move_accuracy,
    side_accuracy,
    verdict,
    volatility_weights,
)


@pytest.mark.parametrize(
    ("loss", "expected"),
    [
        (0.0, None),
        (INACCURACY - 0.01, None),
        (INACCURACY, "inaccuracy"),
        (MISTAKE - 0.01, "inaccuracy"),
        (MISTAKE, "mistake"),
        (BLUNDER - 0.01, "mistake"),
        (BLUNDER, "blunder"),
        (50.0, "blunder"),
        (100.0, "blunder"),
    ],
)
def test_a_verdict_is_named_by_the_points_of_win_chance_lost(loss: float, expected: str | None) -> None:
    assert verdict(loss) == expected


def test_the_thresholds_are_five_ten_and_fifteen_points() -> None:
    assert (INACCURACY, MISTAKE, BLUNDER) == (5.0, 10.0, 15.0)


@pytest.mark.parametrize(("loss", "accuracy"), [(0.0, 100.0), (5.0, 80.8), (10.0, 64.6), (15.0, 51.5), (50.0, 9.5)])
def test_a_moves_accuracy_follows_lichess_curve(loss: float, accuracy: float) -> None:
    assert move_accuracy(loss) == pytest.approx(accuracy, abs=0.05)


def test_a_moves_accuracy_falls_with_its_loss_from_100_to_0() -> None:
    losses = [i / 4 for i in range(0, 401)]
    accuracies = [move_accuracy(loss) for loss in losses]
    assert all(0.0 <= a <= 100.0 for a in accuracies)
    assert all(a >= b for a, b in itertools.pairwise(accuracies))
    assert move_accuracy(88.0) > 0.0 and move_accuracy(90.0) == 0.0 == move_accuracy(100.0)


def test_a_side_without_a_judged_move_has_no_accuracy() -> None:
    assert side_accuracy([], []) is None


def test_a_side_that_never_lost_a_point_is_100_percent_accurate() -> None:
    assert side_accuracy([100.0] * 5, [0.5, 1.0, 12.0, 3.0, 2.0]) == pytest.approx(100.0)


def test_a_sides_accuracy_lies_between_its_worst_and_best_move() -> None:
    accuracies = [100.0, 80.0, 64.6, 95.0]
    accuracy = side_accuracy(accuracies, [1.0, 2.0, 3.0, 0.5])
    assert accuracy is not None and min(accuracies) <= accuracy <= max(accuracies)


def test_one_move_thrown_away_pulls_the_harmonic_half_down_but_not_to_zero() -> None:
    accuracy = side_accuracy([100.0] * 9 + [0.0], [1.0] * 10)
    assert accuracy is not None and 45.0 < accuracy < 60.0


def test_a_slip_in_a_sharp_stretch_counts_more_than_in_a_quiet_one() -> None:
    sharp = side_accuracy([100.0, 50.0], [1.0, 10.0])
    quiet = side_accuracy([100.0, 50.0], [10.0, 1.0])
    assert sharp is not None and quiet is not None and sharp < quiet


@pytest.mark.parametrize("plies", [1, 2, 5, 19, 20, 30, 60, 85, 200])
def test_there_is_one_weight_a_move_within_the_bounds(plies: int) -> None:
    wins = [50.0 + 40.0 * ((i * 7919) % 13 - 6) / 6 for i in range(plies + 1)]
    weights = volatility_weights(wins)
    assert len(weights) == plies
    assert all(WEIGHT_LEAST <= w <= WEIGHT_MOST for w in weights)


def test_a_level_game_weighs_every_move_the_least() -> None:
    assert volatility_weights([50.0] * 41) == [WEIGHT_LEAST] * 40


def test_a_swing_weighs_the_moves_whose_window_holds_it() -> None:
    wins = [50.0] * 10 + [90.0] + [50.0] * 10  # 20 plies: windows of 2 positions
    weights = volatility_weights(wins)
    assert weights[9] == weights[10] == WEIGHT_MOST  # a standard deviation of 20, at the cap
    assert weights[0] == weights[19] == WEIGHT_LEAST

"""The win-chance curve: an engine score as the side to move's expected score in percent."""

from __future__ import annotations

import itertools
import math

import pytest

from kingme.engine.search import DATABASE_WIN, MATE
from kingme.review.winchance import DECIDED_SCORE, WIN_SCALE, is_decided, win_chance


def test_a_level_score_is_an_even_chance() -> None:
    assert win_chance(0) == 50.0


def test_one_scale_unit_is_one_logit_of_expected_score() -> None:
    assert win_chance(round(WIN_SCALE)) == pytest.approx(100 / (1 + math.exp(-1)), abs=0.01)


@pytest.mark.parametrize("score", [1, 35, 100, 360, 1000, 5000])
def test_the_curve_is_symmetric_a_gain_for_one_side_is_the_loss_of_the_other(score: int) -> None:
    assert win_chance(score) + win_chance(-score) == pytest.approx(100.0)


def test_the_curve_rises_with_the_score_and_stays_within_0_and_100() -> None:
    scores = range(-DECIDED_SCORE + 1, DECIDED_SCORE, 97)
    chances = [win_chance(score) for score in scores]
    assert all(0.0 <= chance <= 100.0 for chance in chances)
    assert all(a <= b for a, b in itertools.pairwise(chances))
    assert win_chance(-100) < win_chance(0) < win_chance(100)


@pytest.mark.parametrize(
    ("score", "chance"),
    [(DATABASE_WIN - 3, 100.0), (3 - DATABASE_WIN, 0.0), (MATE - 9, 100.0), (9 - MATE, 0.0)],
)
def test_wins_the_tables_or_the_search_prove_are_certain(score: int, chance: float) -> None:
    assert is_decided(score)
    assert win_chance(score) == chance


def test_an_evaluation_of_several_men_is_not_certain() -> None:
    assert not is_decided(2400)
    assert 99.0 < win_chance(2400) < 100.0

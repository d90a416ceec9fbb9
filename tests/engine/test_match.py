"""Matches: ballot openings, both colours, and an Elo difference with its margin."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from kingme.engine.ballots import ballot_openings
from kingme.engine.match import MatchResult, run_match


def test_the_three_move_ballots_are_the_standard_list_of_legal_openings() -> None:
    openings = ballot_openings()
    assert len(openings) == 157
    assert openings[0] == ("001", ["9-13", "21-17", "5-9"])


def test_a_smoke_match_plays_each_opening_with_both_colours() -> None:
    result = run_match("casual", "random", openings=2, workers=1)
    assert result.games == 4
    assert result.score >= 0.75


def test_elo_difference_is_zero_at_even_score_and_grows_with_the_score() -> None:
    even = MatchResult("a", "b", 5, 10, 5)
    assert even.elo()[0] == 0
    ahead = MatchResult("a", "b", 15, 10, 5)
    elo, margin = ahead.elo()
    assert 100 < elo < 200 and 0 < margin < math.inf
    assert MatchResult("a", "b", 4, 0, 0).elo() == (math.inf, math.inf)


def test_elo_is_described_with_its_margin_or_as_not_measurable_when_one_side_takes_every_point() -> None:
    assert MatchResult("a", "b", 10, 6, 0).describe_elo() == "+255 ± 155 (95%)"
    assert MatchResult("a", "b", 4, 0, 0).describe_elo() == "not measurable: one side took every point"


def test_a_frozen_copy_of_kingme_plays_from_its_own_process_exactly_as_in_process(tmp_path) -> None:
    # The running package is its own frozen copy here: the same engine, so the same games.
    import kingme
    from kingme.engine.match import Contestant, GameTask, play_game

    here = str(Path(kingme.__file__).resolve().parent.parent)
    opening = tuple(ballot_openings()[5][1])
    in_process = GameTask(opening, Contestant("club", 2_000), Contestant("casual", 2_000), "frozen-test")
    frozen = GameTask(opening, Contestant("club", 2_000, here), Contestant("casual", 2_000, here), "frozen-test")
    assert play_game(frozen) == play_game(in_process)


def test_a_directory_without_kingme_cannot_be_a_frozen_copy(tmp_path) -> None:
    from kingme.engine.match import FrozenEngine
    from kingme.rules import KingmeError

    with pytest.raises(KingmeError, match="holds no kingme package"):
        FrozenEngine(str(tmp_path))

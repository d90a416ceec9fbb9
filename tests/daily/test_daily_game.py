"""The daily game: one setup per UTC day, the same computer replies for everybody."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from kingme.daily.daily_game import DayError, daily_game, is_daily_setup, parse_day, player_color, utc_today
from kingme.engine import choose_move
from kingme.game import Game, Setup
from kingme.rules import START_FEN

DAY = date(2026, 11, 29)


def _replies(day: date, player_moves: int = 3) -> list[str]:
    """Play the day's game with the player always taking its first legal move; the computer's replies."""
    daily = daily_game(day)
    game = Game(daily.setup)
    replies = []
    while len(replies) < player_moves and not game.is_over:
        if game.turn == daily.computer:
            replies.append(str(game.push(choose_move(game, daily.level))))
        else:
            game.push(game.legal_moves()[0])
    return replies


def test_the_daily_game_is_club_level_american_rules_from_the_standard_position() -> None:
    daily = daily_game(DAY)
    assert daily.level == "club"
    assert daily.setup.variant == "american"
    assert daily.setup.fen == Setup().fen == Setup(fen=START_FEN).fen
    assert daily.setup.seed == "daily-2026-11-29"


def test_the_same_date_gives_the_same_setup_and_the_same_replies() -> None:
    assert daily_game(DAY) == daily_game(date(2026, 11, 29))
    assert _replies(DAY) == _replies(DAY)


def test_different_dates_give_different_seeds_and_replies() -> None:
    days = [DAY + timedelta(n) for n in range(4)]
    assert len({daily_game(day).setup.seed for day in days}) == 4
    # Same colour every other day, so the player's moves are the same; the computer's vary.
    assert len({tuple(_replies(DAY + timedelta(n), 6)) for n in (0, 2, 4, 6)}) > 1


def test_the_colour_alternates_day_by_day_red_on_even_unix_days() -> None:
    assert (DAY - date(1970, 1, 1)).days % 2 == 0
    assert player_color(DAY) == "black"
    assert player_color(DAY + timedelta(1)) == "white"
    assert player_color(DAY + timedelta(2)) == "black"
    assert daily_game(DAY + timedelta(1)).computer == "black"


def test_the_day_is_the_utc_day() -> None:
    late_in_new_york = datetime(2026, 11, 29, 22, 30, tzinfo=timezone(timedelta(hours=-5)))
    assert utc_today(late_in_new_york) == date(2026, 11, 30)
    assert utc_today(datetime(2026, 11, 29, 23, 59, tzinfo=UTC)) == DAY


@pytest.mark.parametrize("text", ["2026-13-01", "2026-02-30", "29-11-2026", "2026-1-1", "", "today", None, 20261129])
def test_a_bad_day_is_refused_with_a_message_naming_it(text: object) -> None:
    with pytest.raises(DayError, match="day"):
        parse_day(text)


def test_only_the_exact_daily_setup_counts_as_a_daily_game() -> None:
    assert is_daily_setup(daily_game(DAY).setup)
    assert not is_daily_setup(Setup())
    assert not is_daily_setup(Setup(seed="daily-2026-02-30"))
    assert not is_daily_setup(Setup(variant="casual", seed="daily-2026-11-29"))

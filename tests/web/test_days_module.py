"""js/days.js, the dailies' days in one place (the daily game's day, streaks), as a unit in Chromium."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def days(play, call: str) -> object:
    """The result of ``call`` on the module (bound as ``days``)."""
    return play.page.evaluate(f"async () => {{ const days = await import('/js/days.js'); return {call}; }}")


def test_the_daily_game_is_the_game_whose_seed_names_a_day(play):
    assert days(play, "days.dailyDay({ setup: { seed: 'daily-2026-12-01' } })") == "2026-12-01"
    assert days(play, "days.dailyDay({ setup: { seed: 'checkers-1' } })") is None
    assert days(play, "days.dailyDay({ setup: { seed: 'my-daily-2026-12-01' } })") is None
    assert days(play, "days.dailyDay(null)") is None


def test_the_day_before_crosses_months_years_and_leap_days(play):
    assert days(play, "days.dayBefore('2026-12-01')") == "2026-11-30"
    assert days(play, "days.dayBefore('2027-01-01')") == "2026-12-31"
    assert days(play, "days.dayBefore('2028-03-01')") == "2028-02-29"


def test_a_streak_holds_until_a_day_is_missed(play):
    streak = "{ count: 4, last: '2026-11-30' }"
    assert days(play, f"days.streakNow({streak}, '2026-11-30')") == 4
    assert days(play, f"days.streakNow({streak}, '2026-12-01')") == 4  # today's not played yet
    assert days(play, f"days.streakNow({streak}, '2026-12-02')") == 0
    assert days(play, f"days.streakNow({streak}, null)") == 4  # the server's day not known yet
    assert days(play, "days.streakNow(null, '2026-12-01')") == 0


def test_a_success_extends_a_streak_once_a_day_and_starts_one_after_a_gap(play):
    streak = "{ count: 4, last: '2026-11-30' }"
    assert days(play, f"days.extendStreak({streak}, '2026-12-01')") == {"count": 5, "last": "2026-12-01"}
    assert days(play, f"days.extendStreak({streak}, '2026-11-30')") == {"count": 4, "last": "2026-11-30"}
    assert days(play, f"days.extendStreak({streak}, '2026-12-03')") == {"count": 1, "last": "2026-12-03"}
    assert days(play, "days.extendStreak(null, '2026-12-01')") == {"count": 1, "last": "2026-12-01"}

"""js/clock.js's face of an online clock (issue 41), as a unit in Chromium: minutes and seconds,
hours, days for correspondence, and tenths in the last ten seconds."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def face(play, milliseconds: int) -> object:
    """What the clock shows with ``milliseconds`` left."""
    return play.page.evaluate(f"async () => (await import('/js/clock.js')).formatClock({milliseconds})")


@pytest.mark.parametrize(
    ("milliseconds", "shown"),
    [
        (180_000, "3:00"),
        (62_500, "1:02"),
        (10_000, "0:10"),
        (9_999, "0:09.9"),
        (9_400, "0:09.4"),
        (50, "0:00.0"),
        (0, "0:00.0"),
        (3_723_000, "1:02:03"),
        (86_400_000, "1d 00:00"),
        (2 * 86_400_000 + 23 * 3_600_000 + 59 * 60_000, "2d 23:59"),
    ],
)
def test_a_clock_shows_what_is_left_to_the_unit_a_player_needs(play, milliseconds, shown):
    assert face(play, milliseconds) == shown

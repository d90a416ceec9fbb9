"""Periodic work over many rooms is spread over its period, one room at a time."""

from __future__ import annotations

import pytest

from kingme.server.online.pacing import paced


class Timeline:
    """A clock that moves only when slept on (each wake-up ``late`` by as much), and what
    happened at each moment."""

    def __init__(self, late: float = 0.0) -> None:
        self.now = 0.0
        self.late = late
        self.seen: list[tuple[float, str]] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds + self.late


def test_items_come_one_at_a_time_evenly_spread_over_the_period(run):
    timeline = Timeline()

    async def scenario() -> None:
        async for room in paced(["a", "b", "c", "d"], 15.0, timeline.sleep, timeline.clock):
            timeline.seen.append((timeline.now, room))

    run(scenario())
    assert timeline.seen == [(3.75, "a"), (7.5, "b"), (11.25, "c"), (15.0, "d")]


def test_with_nothing_to_do_the_period_still_passes(run):
    timeline = Timeline()

    async def scenario() -> None:
        async for room in paced([], 15.0, timeline.sleep, timeline.clock):
            timeline.seen.append((timeline.now, room))

    run(scenario())
    assert timeline.seen == [] and timeline.now == 15.0


def test_late_wake_ups_do_not_add_up_over_the_period(run):
    # On a busy server every sleep ends late; a thousand rooms' pauses adding up their delays
    # would stretch the refresh towards the time after which presence is forgotten.
    timeline = Timeline(late=0.01)

    async def scenario() -> None:
        async for room in paced([str(number) for number in range(1000)], 15.0, timeline.sleep, timeline.clock):
            timeline.seen.append((timeline.now, room))

    run(scenario())
    last_moment, last_room = timeline.seen[-1]
    assert last_room == "999" and last_moment == pytest.approx(15.01)

"""Periodic work over many rooms is spread over its period, one room at a time."""

from __future__ import annotations

from kingme.server.online.pacing import paced


class Timeline:
    """A clock that moves only when slept on, and what happened at each moment."""

    def __init__(self) -> None:
        self.now = 0.0
        self.seen: list[tuple[float, str]] = []

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_items_come_one_at_a_time_evenly_spread_over_the_period(run):
    timeline = Timeline()

    async def scenario() -> None:
        async for room in paced(["a", "b", "c", "d"], 15.0, timeline.sleep):
            timeline.seen.append((timeline.now, room))

    run(scenario())
    assert timeline.seen == [(3.75, "a"), (7.5, "b"), (11.25, "c"), (15.0, "d")]


def test_with_nothing_to_do_the_period_still_passes(run):
    timeline = Timeline()

    async def scenario() -> None:
        async for room in paced([], 15.0, timeline.sleep):
            timeline.seen.append((timeline.now, room))

    run(scenario())
    assert timeline.seen == [] and timeline.now == 15.0

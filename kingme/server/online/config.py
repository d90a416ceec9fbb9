"""Limits and options of online play, read from the environment next to ``Settings``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from kingme.server.environment import items, whole_number


@dataclass(frozen=True)
class OnlineConfig:
    """``KINGME_ROOMS_PER_HOUR``, ``KINGME_MESSAGES_PER_SECOND`` and ``KINGME_ALLOWED_ORIGINS``
    (comma-separated origins such as ``https://checkers.example``) may be set;
    ``KINGME_TEST_TIME_CONTROLS=1`` is for tests alone (``clock.TEST_CONTROL``)."""

    #: Rooms one client address may create in any hour.
    rooms_per_hour: int = 30
    #: Messages a connection may send per second on average, and in a burst.
    messages_per_second: float = 10.0
    message_burst: int = 20
    #: Origins allowed to open WebSockets besides the server's own.
    allowed_origins: tuple[str, ...] = ()
    #: A client further behind than this many events gets the state without the missed events.
    max_missed: int = 100
    #: Seconds a new connection has to say hello.
    hello_timeout: float = 10.0
    #: Messages queued for a slow client before it is disconnected (it reconnects and catches up).
    send_queue: int = 256
    #: Spectators a room takes, counting those the other processes announced (players always get in).
    spectators_per_room: int = 200
    #: Events a room may hold; past it, the players are asked to create a new room.
    max_room_events: int = 50_000
    #: With several processes: seconds between comparing the rooms here with the database.
    version_check_seconds: float = 2.0
    #: Seconds between looking for games lost on time (a flag falls at most this late).
    flag_check_seconds: float = 0.5
    #: Seconds between the round-trip probes of the players' connections: they measure the round
    #: trip of a timed game's moves (lag compensation), and a connection that stops answering
    #: them shows its seat reconnecting (``hub.SILENT_SECONDS``). Two seconds shows a dropped
    #: connection within a few seconds for one message of 20 bytes each way per player.
    probe_seconds: float = 2.0
    #: Whether hosts may pick the test-only time controls of a few seconds.
    test_time_controls: bool = False

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> OnlineConfig:
        per_hour = whole_number(env, "KINGME_ROOMS_PER_HOUR", cls.rooms_per_hour, 1, 10**7)
        rate = whole_number(env, "KINGME_MESSAGES_PER_SECOND", 10, 1, 10_000)
        origins = items(env, "KINGME_ALLOWED_ORIGINS")
        test_clocks = env.get("KINGME_TEST_TIME_CONTROLS", "") == "1"
        return cls(
            rooms_per_hour=per_hour,
            messages_per_second=float(rate),
            allowed_origins=origins,
            test_time_controls=test_clocks,
        )

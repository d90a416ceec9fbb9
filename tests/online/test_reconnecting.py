"""A seat whose connection stops answering shows *reconnecting*, on every process, within
``SILENT_SECONDS`` instead of the keepalive's 40 s, and *online* again as soon as it answers or
reconnects; a connection that closes leaves its seat away as before. The hub's probe clock is
the test's (``Hub.monotonic``) and probes are sent by calling ``Hub.probe``, as the endpoint's
probe task does every ``probe_seconds``: nothing here waits on a clock."""

from __future__ import annotations

from typing import Any

from kingme.server.online import OnlineConfig
from kingme.server.online.hub import SILENT_SECONDS, Client
from kingme.server.online.wire import Hello
from tests.online.test_delivery import Player
from tests.online.test_redis_marks import processes


class Clock:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def seat(white: str) -> Any:
    """A presence message where White's seat is ``white``: "online", "reconnecting" or "away"."""
    shown = {"online": (True, False), "reconnecting": (True, True), "away": (False, False)}[white]
    return lambda m: m["type"] == "presence" and (m["white"], m["reconnecting"].get("white")) == shown


def last_probe(player: Player) -> int:
    return [message["n"] for message in player.received if message["type"] == "probe"][-1]


def test_a_connection_whose_probes_go_unanswered_shows_its_seat_reconnecting_on_the_other_process(
    tmp_path, redis_url, run
):
    async def scenario() -> None:
        async with processes(tmp_path, redis_url) as pair:  # Black on process a, White on b
            clock = pair.b.hub.monotonic = Clock()
            white = pair.white.client
            await pair.black.wait_for(seat("online"))
            pair.b.hub.probe(white)  # White's network drops: this probe is never answered
            clock.now += SILENT_SECONDS - 0.5
            pair.b.hub.probe(white)
            assert not white.silent  # a late answer is not yet silence
            clock.now += 0.5
            pair.b.hub.probe(white)
            assert white.silent
            pair.black.received.clear()
            await pair.black.wait_for(seat("reconnecting"))
            assert pair.a.hub.presence(pair.room).reconnecting == {"black": False, "white": True}
            pair.b.hub.answered(white, last_probe(pair.white))  # the network is back
            await pair.black.wait_for(seat("online"))
            assert pair.a.hub.presence(pair.room).reconnecting == {"black": False, "white": False}

    run(scenario())


def test_a_seat_that_reconnected_is_online_while_its_old_silent_connection_lingers(tmp_path, redis_url, run):
    async def scenario() -> None:
        async with processes(tmp_path, redis_url) as pair:
            clock = pair.b.hub.monotonic = Clock()
            old = pair.white.client
            pair.b.hub.probe(old)
            clock.now += SILENT_SECONDS
            pair.b.hub.probe(old)
            await pair.black.wait_for(seat("reconnecting"))
            pair.black.received.clear()
            again = Player(pair.a)  # the page's new connection, on the other process this time
            await pair.a.connect(again.client, pair.room, Hello(pair.white_seat.token))
            await pair.black.wait_for(seat("online"))
            pair.black.received.clear()
            await pair.b.disconnect(old)  # the keepalive finally closes the old socket
            await pair.a.disconnect(again.client)
            again.client.close(1000)
            await again.writer
            await pair.black.wait_for(seat("away"))

    run(scenario())


def test_an_answer_to_an_unknown_or_repeated_probe_changes_nothing():
    client = Client(_ignore, _ignore, OnlineConfig())
    client.probe(10.0)
    client.answered(7, 20.0)  # never sent
    assert client.unanswered_for(20.0) == 10.0 and client.lag_ms == 0
    client.probe(11.0)
    client.answered(2, 11.2)  # the later answer covers the first probe too
    assert client.unanswered_for(30.0) == 0.0 and client.lag_ms == 200
    client.answered(2, 40.0)
    assert client.lag_ms == 200


async def _ignore(_: object) -> None: ...

"""Timed online games in the browser (issue 41), over one ``kingme serve`` and over two sharing
PostgreSQL and Redis: the host picks the time control, both pages show both clocks with the
running one highlighted, a move adds its increment, the last ten seconds show tenths and turn
red, and a player whose time runs out loses on time. The test servers accept test-only controls
of seconds (``KINGME_TEST_TIME_CONTROLS``); the tests wait for what the pages show, never for
the clock itself."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator

import pytest
from browser_support import kingme_serve
from playwright.sync_api import expect

from tests.online.conftest import REDIS, postgres_schema

pytestmark = pytest.mark.browser

#: 20 s each and 60 s added after each move: the host has time to move on a loaded machine, and
#: the friend's 20 s then run out while the test watches.
CONTROL = "test:20+60"
TENTHS = re.compile(r"^0:0\d\.\d$")


@pytest.fixture(scope="module")
def two_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """Two ``kingme serve`` sharing a PostgreSQL schema and a Redis prefix of their own."""
    with postgres_schema() as database:
        shared = {"KINGME_DATABASE_URL": database, "KINGME_REDIS_URL": REDIS}
        shared["KINGME_REDIS_PREFIX"] = f"kingme-test-{secrets.token_hex(6)}:"
        with kingme_serve(tmp_path_factory, **shared) as first, kingme_serve(tmp_path_factory, **shared) as second:
            yield first, second


@pytest.mark.parametrize("processes", [1, 2], ids=["one process", "two processes"])
def test_a_timed_game_adds_increments_and_is_lost_on_time(players, processes, request):
    host, friend = players(), players()
    if processes == 2:  # the host on one server, the friend on the other
        host.url, friend.url = request.getfixturevalue("two_servers")
        host.open()
    link = host.create(side="red", clock=CONTROL).replace(host.url, friend.url)
    expect(host.hook("clock-black")).to_have_text("0:20")  # nobody there yet: no clock runs
    friend.open_link(link)
    for player in (host, friend):
        expect(player.hook("clock-black")).to_have_attribute("data-running", "true")
        expect(player.hook("clock-white")).to_have_attribute("data-running", "false")
    host.move()
    # The host's move added its 60 s: more than the 20 s it started with, and the friend's runs.
    for player in (host, friend):
        expect(player.hook("clock-black")).to_have_text(re.compile(r"^(1:\d\d|0:[2-5]\d)$"))
        expect(player.hook("clock-white")).to_have_attribute("data-running", "true")
    assert host.hook("clock-black").text_content() == friend.hook("clock-black").text_content()
    # The friend does not move: its last ten seconds show tenths and warn, then its flag falls.
    expect(friend.hook("clock-white")).to_have_text(TENTHS)
    expect(friend.hook("clock-white")).to_have_attribute("data-low", "true")
    friend.screenshot(f"online-clock-low-{processes}")
    for player in (host, friend):
        expect(player.hook("result")).to_have_text("Red wins", timeout=30_000)
        expect(player.hook("result-reason")).to_have_text("White ran out of time.")
        expect(player.hook("clock-white")).to_have_text("0:00.0")
        expect(player.hook("clock-white")).to_have_attribute("data-running", "false")
    expect(host.hook("score")).to_have_text("You 1 · Friend 0 · Draws 0")

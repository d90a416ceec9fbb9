"""Fixtures of the online browser tests: the web tests' server and Chromium, and rooms of players.

The ``kingme serve`` subprocess and the browser are the test process's own (``tests/conftest.py``).
Every player is a separate browser context: its own localStorage, hence its own seat token.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from browser_support import ARTIFACTS, DESKTOP, PHONE, Play, page_factory
from playwright.sync_api import expect

#: The pieces standing on the board's squares, by square number (a piece drawn elsewhere, such
#: as one flying during an animation, is not on a square).
_POSITION = (
    "() => Object.fromEntries([...document.querySelectorAll('#board [data-square] [data-piece]')].map("
    "p => [p.closest('[data-square]').dataset.square, `${p.dataset.color} ${p.dataset.piece}`]))"
)


class Player(Play):
    """One person in a room, driving the page through the hooks of issues 4 and 5 only."""

    def create(self, side: str = "red", rules: str = "american", clock: str = "untimed") -> str:
        """Start a room from the setup form, with the time control ``clock`` (a test-only one,
        such as ``test:20+60``, is added to the form's list first); the invite link it shows."""
        if clock.startswith("test:"):
            self.open_setup()
            self.page.evaluate("clock => document.getElementById('time-control').add(new Option(clock, clock))", clock)
        self.start(**{"opponent": "online", "side": side, "rules": rules, "time-control": clock})
        link = self.hook("invite-link")
        expect(link).to_have_value(re.compile(rf"^{re.escape(self.url)}/room/[A-Za-z0-9_-]{{16,64}}$"))
        return link.input_value()

    def invite(self, friend: Player, side: str = "red", rules: str = "american") -> str:
        """Start a room and have ``friend`` open its link: the link."""
        link = self.create(side=side, rules=rules)
        friend.open_link(link)
        return link

    def open_link(self, link: str) -> None:
        self.page.goto(link)
        self.page.wait_for_selector("html[data-ready=true]")

    def connected(self, color: str) -> object:
        return self.hook(f"presence-{color}")

    def move(self) -> None:
        """Play a whole turn (this player must be to move), and wait until the room has it: a
        turn that did not go out fails here, on the mover's page, not later on the friend's."""
        expect(self.page.locator("#board [data-movable=true]").first).to_be_visible()
        played = len(self.history())
        self.play_any_turn()
        self.wait_for_history(played + 1)

    def position(self) -> dict[str, str]:
        """The pieces on the board, square by square: "white man", "black king"..."""
        return self.page.evaluate(_POSITION)

    def wait_for_position(self, expected: dict[str, str]) -> None:
        """Wait until the board shows exactly ``expected`` (a reloaded page draws it once its
        state arrives, so it is waited for, not read at once)."""
        self.page.wait_for_function(
            f"expected => {{ const shown = ({_POSITION})(); const keys = Object.keys(expected);"
            " return Object.keys(shown).length === keys.length && keys.every(k => shown[k] === expected[k]); }",
            arg=expected,
        )

    def screenshot(self, name: str, full_page: bool = False) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=full_page)

    def resign(self) -> None:
        self.hook("resign").click()
        self.hook("confirm").click()


@pytest.fixture
def players(browser: object, server: str) -> Iterator[Callable[..., Player]]:
    """A factory of players, each in a fresh context on the app; closed afterwards."""
    with page_factory(browser, server, Player) as make:

        def player(phone: bool = False, animated: bool = False) -> Player:
            """A player at phone or desktop size; moves are animated only if ``animated``."""
            return make(PHONE if phone else DESKTOP, "no-preference" if animated else "reduce")

        yield player

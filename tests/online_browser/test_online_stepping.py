"""Stepping back through an online game is one page's view: the shared game goes on."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_a_player_stepping_back_keeps_the_view_when_a_move_arrives_and_returns_to_the_live_game(players):
    host, friend = players(), players()
    friend.open_link(host.create(side="red"))
    host.move()
    friend.move()
    host.move()
    friend.wait_for_history(3)

    host.wait_for_stepper()
    host.page.locator("[data-testid=history] li").nth(1).click()
    expect(host.hook("step-where")).to_contain_text("move 2 of 3")
    shown = host.position()
    friend.move()
    host.wait_for_history(4)
    expect(host.hook("step-where")).to_have_text("Looking at move 2: the game has moved on (4 moves).")
    assert host.position() == shown
    expect(host.page.locator("#board [data-movable=true]")).to_have_count(0)  # the host's turn, but not playable
    expect(friend.hook("step-live")).to_be_hidden()  # the friend's page knows nothing of it

    host.page.keyboard.press("End")
    host.wait_for_position(friend.position())
    host.move()
    friend.wait_for_history(5)
    host.resign()
    expect(friend.hook("result")).to_be_visible()
    host.hook("archive").click()  # each player keeps the game, from their side
    expect(host.hook("archive-entry")).to_contain_text(re.compile(r"Online with a friend.*you: Red.*Lost"))

"""The game card beside the board: the players, and with them the rules the game is played by, in
every mode (issue 40)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_the_rules_are_shown_with_the_players_against_the_computer_and_with_two_players(play):
    play.start(opponent="computer", rules="american")
    expect(play.hook("rules-shown")).to_have_text("Rules American · captures compulsory")
    play.start(opponent="local", rules="casual")
    expect(play.hook("rules-shown")).to_have_text("Rules Casual · captures optional")
    expect(play.hook("rules-shown")).to_be_in_viewport()


def test_the_daily_game_shows_its_rules(play):
    play.hook("daily-game").click()
    expect(play.page.locator("html")).to_have_attribute("data-daily", "on")
    expect(play.hook("rules-shown")).to_have_text("Rules American · captures compulsory")


def test_the_rules_shown_follow_the_language(play):
    play.start(opponent="local", rules="casual")
    play.hook("open-settings").click()
    play.hook("language").select_option("de")
    play.page.keyboard.press("Escape")
    expect(play.hook("rules-shown")).to_have_text("Regeln Locker · Schlagen freiwillig")

"""Small things a new player noticed (issue 40): what Help says of Keep sides, the German level
names, the empty Moves card, no autoplay warning with Music on, and the server-unreachable banner
gone once the server answers."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_help_says_that_one_player_choosing_keep_sides_is_enough(play):
    play.hook("open-help").click()
    play.page.get_by_role("tab", name="Online").click()
    expect(play.page.locator("#help-content")).to_contain_text("unless one of you chooses Keep sides")


def test_the_german_level_names_read_as_levels(play):
    play.hook("open-settings").click()
    play.hook("language").select_option("de")
    play.page.keyboard.press("Escape")
    names = ["Zufall", "Anfänger", "Hobby", "Club", "Stark", "Meister"]  # the German words load after the choice
    expect(play.hook("level").locator("option")).to_have_text([re.compile(rf"^{name}( · |$)") for name in names])


def test_the_empty_moves_card_holds_its_buttons_whole(play):
    card = play.page.locator("#moves-card").bounding_box()
    for button in ("#export-pdn", "#import-pdn"):
        shown = play.page.locator(button).bounding_box()
        assert shown["y"] + shown["height"] <= card["y"] + card["height"], (button, shown, card)


def test_with_music_on_a_load_starts_no_audio_before_the_first_gesture(new_play):
    prefs = json.dumps({"music": True, "musicVolume": 30})
    warnings: list[str] = []
    play = new_play(init_script=f"localStorage.setItem('kingme.prefs', {json.dumps(prefs)})")
    play.page.on("console", lambda message: warnings.append(message.text))
    play.page.reload()
    play.page.wait_for_selector("html[data-ready=true]")
    play.page.wait_for_load_state("networkidle")
    assert not [text for text in warnings if "AudioContext" in text], warnings


def test_the_server_could_not_be_reached_banner_goes_once_the_server_answers_again(play):
    play.start(opponent="local")
    play.page.route("**/api/state", lambda route: route.abort())
    play.click(11, 15)
    expect(play.hook("error")).to_contain_text("could not be reached")
    play.page.unroute("**/api/state")
    expect(play.hook("error")).to_be_hidden()

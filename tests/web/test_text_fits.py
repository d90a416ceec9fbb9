"""Every page and dialog in every language, on a phone and a desktop: no text overflows its box
or is clipped (a button, a tab, a label, a mode entry or a player's line whose content is wider
than the box that shows it)."""

from __future__ import annotations

import pytest
from browser_support import DESKTOP, overflowing_text
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
LANGUAGES = ["en", "es", "fr", "de", "pt"]


def assert_fits(play, where: str) -> None:
    overflowing = overflowing_text(play.page)
    assert not overflowing, f"{where}: {overflowing}"


def open_dialog(play, hook: str) -> None:
    """Click ``hook`` and wait for its dialog: some dialogs open only after a request."""
    play.hook(hook).click()
    expect(play.page.locator("dialog[open]")).to_have_count(1)


def close_dialog(play) -> None:
    play.page.keyboard.press("Escape")
    expect(play.page.locator("dialog[open]")).to_have_count(0)


def in_language(play, language: str):
    """``play`` with ``language`` chosen in the settings, whose dialog is left open."""
    open_dialog(play, "open-settings")
    play.hook("language").select_option(language)
    expect(play.page.locator("html")).to_have_attribute("lang", language)
    return play


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_page_and_dialog_fits_its_text(new_play, language, viewport):
    play = in_language(new_play(viewport=viewport), language)
    assert_fits(play, "settings")
    close_dialog(play)
    assert_fits(play, "the setup")

    open_dialog(play, "open-help")
    for tab in play.page.get_by_role("tab").all():
        tab.click()
        assert_fits(play, f"help: {tab.text_content()}")
    close_dialog(play)

    play.start(opponent="computer", level="random")
    assert_fits(play, "a game")
    play.hook("pause").click()
    assert_fits(play, "paused")
    play.hook("resume").click()
    open_dialog(play, "export-pdn")
    assert_fits(play, "PDN")
    close_dialog(play)
    play.hook("resign").click()
    assert_fits(play, "resign?")
    play.hook("confirm").click()
    expect(play.hook("result")).to_be_visible()
    assert_fits(play, "the result")

    play.hook("daily-game").click()
    expect(play.page.locator("html")).to_have_attribute("data-daily", "on")
    assert_fits(play, "the daily game")
    play.hook("daily-puzzle").click()
    expect(play.page.locator("#puzzle-title")).not_to_be_empty()
    assert_fits(play, "the puzzle")

    play.page.locator("#modes [data-mode=play]").click()
    expect(play.hook("start")).to_be_visible()  # Play puts the daily game away for the setup
    play.hook("opponent").select_option("online")
    play.hook("start").click()
    expect(play.hook("invite-link")).not_to_have_value("")
    # The link shows before the room's first state, from which its panel is drawn.
    expect(play.page.locator("html")).to_have_attribute("data-online", "on")
    assert_fits(play, "an online room")


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_analysis_board_and_its_editor_fit_their_text(new_play, language, viewport):
    play = in_language(new_play(viewport=viewport), language)
    close_dialog(play)
    play.hook("analysis-entry").click()
    expect(play.hook("analysis-line")).to_have_count(3)
    play.hook("analysis-toggle").click()  # stopped: the lines stay as they are while they are measured
    assert_fits(play, "the analysis board")
    play.hook("analysis-edit").click()
    expect(play.hook("analysis-editor")).to_be_visible()
    assert_fits(play, "the board editor")

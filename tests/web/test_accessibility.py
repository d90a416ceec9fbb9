"""axe-core finds no serious or critical accessibility violation on any page, in any language."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

LANGUAGES = ["en", "es", "fr", "de", "pt"]
AXE = Axe()


def assert_accessible(play, where: str) -> None:
    results = AXE.run(play.page)
    found = [
        f"{violation['id']} ({violation['impact']}): {[node['target'] for node in violation['nodes']][:3]}"
        for violation in results.response["violations"]
        if violation["impact"] in ("serious", "critical")
    ]
    assert not found, f"{where}: {found}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_serious_accessibility_violation_on_any_page(play, language):
    play.hook("open-settings").click()
    play.hook("language").select_option(language)
    expect(play.page.locator("html")).to_have_attribute("lang", language)
    assert_accessible(play, "settings")
    play.page.keyboard.press("Escape")
    assert_accessible(play, "the setup")
    play.hook("open-help").click()
    expect(play.page.locator("#help-dialog")).to_be_visible()  # it opens once its words have come
    assert_accessible(play, "help")
    play.page.keyboard.press("Escape")
    play.start(opponent="local")
    play.click(11)
    assert_accessible(play, "a game, a piece selected")
    play.hook("pause").click()
    assert_accessible(play, "paused")
    play.hook("resume").click()
    play.hook("daily-puzzle").click()
    expect(play.page.locator("#puzzle-title")).not_to_be_empty()
    assert_accessible(play, "the puzzle")


@pytest.mark.parametrize("language", ["en", "de"])
def test_no_serious_accessibility_violation_on_the_analysis_board(play, language):
    play.hook("open-settings").click()
    play.hook("language").select_option(language)
    expect(play.page.locator("html")).to_have_attribute("lang", language)
    play.page.keyboard.press("Escape")
    play.hook("analysis-entry").click()
    expect(play.page.get_by_test_id("analysis-line")).to_have_count(3)
    play.hook("analysis-toggle").click()  # stopped: the page holds still while it is checked
    assert_accessible(play, "the analysis board")
    play.hook("analysis-edit").click()
    assert_accessible(play, "the board editor")

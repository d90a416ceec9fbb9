"""The play screen: the board is the largest thing on it, and the result, the moves and every
control are in view without scrolling on common laptop screens; on a phone the board spans the
width. The URL of each view survives a reload and Back."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

LAPTOPS = [{"width": 1280, "height": 800}, {"width": 1366, "height": 768}]
SCREENS = [*LAPTOPS, {"width": 1440, "height": 900}]
#: 24 plies (12 move pairs) of American checkers, a capture of two among them.
LONG_GAME = (
    "1. 12-16 21-17 2. 8-12 25-21 3. 3-8 17-13 4. 16-20 21-17 5. 9-14 30-25 6. 14x21x30 13-9 "
    "7. 6x13 22-17 8. 13x22 26x17 9. 1-6 17-13 10. 30-26 31x22 11. 5-9 29-25 12. 9-14 13-9 *"
)


def box(play, selector: str) -> dict:
    """The element's box, measured in one step in the page: the panels redraw on every change (the
    move list is built anew when a finished game is kept), and an element found first and measured
    after could be one a redraw has just replaced."""
    found = play.page.evaluate(
        """(selector) => {
            const element = document.querySelector(selector);
            const r = element && element.getBoundingClientRect();
            return r && r.width && r.height ? { x: r.x, y: r.y, width: r.width, height: r.height } : null;
        }""",
        selector,
    )
    assert found, f"{selector} is not shown"
    return found


def in_view(play, selector: str) -> None:
    box_in_view(play, box(play, selector), selector)


def box_in_view(play, shown: dict, name: str) -> None:
    viewport = play.page.viewport_size
    assert shown["y"] >= 0 and shown["y"] + shown["height"] <= viewport["height"], (name, shown)
    assert shown["x"] >= 0 and shown["x"] + shown["width"] <= viewport["width"], (name, shown)


@pytest.mark.parametrize("viewport", LAPTOPS, ids=["1280x800", "1366x768"])
def test_on_a_laptop_the_board_result_moves_and_controls_are_all_in_view(new_play, viewport):
    play = new_play(viewport=viewport)
    expect(play.hook("start")).to_be_visible()  # before a game, the setup is beside the board
    in_view(play, "#start")
    play.start(opponent="local")
    expect(play.hook("start")).to_be_hidden()  # during a game the setup is put away
    for move in ((11, 15), (22, 18), (15, 22)):
        play.move(*move)
    play.hook("resign").click()
    play.hook("confirm").click()
    expect(play.hook("result")).to_be_visible()
    board = box(play, "#board")
    if viewport["width"] == 1280:
        assert board["width"] >= 640, board
    for selector in ("#board", "#result-panel", "#history li:last-child", ".controls", "#new-game", "#status"):
        in_view(play, selector)
    assert play.page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]


def rows_shown(play) -> int:
    """How many rows of moves the move list shows at once (a row is a move pair)."""
    return play.page.evaluate(
        """() => {
            const list = document.getElementById("history");
            const row = list.querySelector("li").getBoundingClientRect().height;
            const gap = parseFloat(getComputedStyle(list).rowGap);
            return Math.floor((list.clientHeight + gap) / (row + gap));
        }"""
    )


@pytest.mark.parametrize("viewport", SCREENS, ids=["1280x800", "1366x768", "1440x900"])
def test_during_a_game_the_move_list_shows_at_least_eight_move_pairs_in_view(new_play, viewport):
    play = new_play(viewport=viewport)
    play.open_setup()
    play.hook("opponent").select_option("local")
    play.import_text(LONG_GAME)
    play.wait_for_history(24)
    assert rows_shown(play) >= 8
    in_view(play, "#history")
    heights = play.page.locator("#history li").evaluate_all(
        "items => items.map(li => li.getBoundingClientRect().height)"
    )
    assert max(heights) < 1.5 * min(heights), heights  # every entry on one line, the long jumps too
    for ply in range(9, 25):  # the last eight move pairs, each in the list's view
        assert play.page.locator(f"#history li[data-ply='{ply}']").evaluate(
            "li => { const r = li.getBoundingClientRect(), l = li.parentElement.getBoundingClientRect();"
            " return r.top >= l.top - 1 && r.bottom <= l.bottom + 1; }"
        ), ply


def test_a_new_player_sees_the_board_players_rules_eight_move_pairs_and_every_control(new_play):
    play = new_play(viewport={"width": 1280, "height": 800})
    play.start()  # the setup as a first visit finds it: against the computer
    assert play.wait_for_turn()
    play.play_any_turn()
    play.wait_for_history(2)  # the computer's reply
    assert rows_shown(play) >= 8
    for selector in (
        "#board",
        "#player-top",
        "#player-bottom",
        "#rules-shown",
        "#status",
        "#history",
        ".controls",
        "#new-game",
        "#export-pdn",
        "#import-pdn",
    ):
        in_view(play, selector)
    for control in play.page.locator(".controls .btn:visible").all():
        box_in_view(play, control.bounding_box(), control.text_content())


@pytest.mark.parametrize("viewport", LAPTOPS, ids=["1280x800", "1366x768"])
def test_a_long_game_in_french_keeps_the_last_move_and_one_row_of_controls_in_view(new_play, viewport):
    play = new_play(viewport=viewport)
    play.hook("open-settings").click()
    play.hook("language").select_option("fr")  # the longest labels ("Retourner le damier")
    expect(play.page.locator("html")).to_have_attribute("lang", "fr")
    play.page.keyboard.press("Escape")
    play.start(opponent="local")
    for turns in range(1, 13):
        play.play_any_turn()
        play.wait_for_history(turns)
    play.hook("resign").click()
    play.hook("confirm").click()
    expect(play.hook("result")).to_be_visible()
    for selector in ("#result-panel", "#history li:last-child", ".controls", "#new-game", "#status", "#import-pdn"):
        in_view(play, selector)
    button = box(play, "#undo")
    assert box(play, ".controls")["height"] < 2 * button["height"], "the controls take two rows"


def test_on_a_phone_a_first_visit_sees_the_board_and_a_result_is_brought_into_view(new_play):
    play = new_play(viewport={"width": 390, "height": 844})
    in_view(play, "#board")  # the setup follows the board
    assert box(play, "#setup-card")["y"] >= box(play, "#board")["y"]
    play.start(opponent="local")
    play.move(11, 15)
    play.hook("resign").click()
    play.hook("confirm").click()
    expect(play.hook("result")).to_be_visible()
    in_view(play, "#result")


def test_on_a_phone_the_board_spans_the_width_and_the_controls_follow_it(new_play):
    play = new_play(viewport={"width": 390, "height": 844})
    play.start(opponent="local")
    board = box(play, "#board")
    assert board["width"] >= 370, board
    assert box(play, ".controls")["y"] >= board["y"] + board["height"]
    in_view(play, ".controls")
    assert play.page.evaluate("document.documentElement.scrollWidth") <= 390


@pytest.mark.parametrize("viewport", LAPTOPS, ids=["1280x800", "1366x768"])
def test_the_puzzle_has_the_play_screens_layout_with_its_words_and_hint_in_view(new_play, viewport):
    play = new_play(viewport=viewport)
    play.hook("daily-puzzle").click()
    expect(play.page.locator("#puzzle-title")).not_to_be_empty()
    board = box(play, "#puzzle-board")
    if viewport["width"] == 1280:
        assert board["width"] >= 640, board
    for selector in ("#puzzle-board", "#puzzle-hint", "#puzzle-title", "#puzzle-turn", "[data-testid=puzzle-feedback]"):
        in_view(play, selector)
    assert box(play, "#puzzle-hint")["y"] >= board["y"] + board["height"]
    assert box(play, "#puzzle-title")["x"] >= board["x"] + board["width"]  # the side panel, beside the board


def test_on_a_phone_the_puzzle_board_spans_the_width_and_hint_follows_it(new_play):
    play = new_play(viewport={"width": 390, "height": 844})
    play.hook("daily-puzzle").click()
    expect(play.page.locator("#puzzle-title")).not_to_be_empty()
    board = box(play, "#puzzle-board")
    assert board["width"] >= 370, board
    assert box(play, "#puzzle-hint")["y"] >= board["y"] + board["height"]
    in_view(play, "#puzzle-hint")
    assert play.page.evaluate("document.documentElement.scrollWidth") <= 390


def test_new_game_shows_the_setup_and_back_to_the_game_puts_it_away(play):
    play.start(opponent="local")
    play.click(11, 15)
    play.wait_for_history(1)
    play.hook("new-game").click()
    expect(play.hook("start")).to_be_visible()
    play.hook("setup-cancel").click()
    expect(play.hook("start")).to_be_hidden()
    assert play.history() == ["Red 11–15"]


def test_each_view_has_an_address_that_survives_a_reload_and_back(play):
    page = play.page
    play.hook("daily-puzzle").click()
    expect(page.locator("#puzzle-title")).not_to_be_empty()
    assert page.url.endswith("/puzzle")
    page.reload()
    page.wait_for_selector("html[data-ready=true]")
    expect(page.locator(".puzzle-view")).to_be_visible()
    expect(page.locator("#puzzle-meta")).to_contain_text("#")  # the puzzle has arrived
    puzzle_id = page.locator("#puzzle-meta").text_content().split("#")[-1]
    puzzle = f"{play.url}/puzzle/{puzzle_id}"
    page.goto(puzzle)  # a puzzle's own address, as shared
    page.wait_for_selector("html[data-ready=true]")
    expect(page.locator("#puzzle-meta")).to_contain_text(f"#{puzzle_id}")
    expect(page).to_have_url(puzzle)
    play.hook("daily-game").click()
    expect(page).to_have_url(play.url + "/daily")
    expect(page.locator("html")).to_have_attribute("data-daily", "on")
    page.go_back()
    expect(page).to_have_url(puzzle)
    expect(page.locator(".puzzle-view")).to_be_visible()
    page.go_forward()
    expect(page).to_have_url(play.url + "/daily")
    expect(page.locator("#board")).to_be_visible()
    page.reload()
    page.wait_for_selector("html[data-ready=true]")
    expect(page.locator("html")).to_have_attribute("data-daily", "on")


def test_puzzle_titles_are_translated_and_name_the_sides_by_the_theme(play):
    play.hook("open-settings").click()
    play.hook("language").select_option("fr")
    play.page.keyboard.press("Escape")
    play.hook("daily-puzzle").click()
    expect(play.page.locator("#puzzle-title")).to_have_text(re.compile(r"Les (Rouges|Blancs) jouent et gagnent"))


def test_the_levels_show_the_seeds_easy_medium_hard_and_advanced_beside_their_names(play):
    options = play.hook("level").locator("option").all_text_contents()
    assert options == ["Random", "Beginner", "Casual · Easy", "Club · Medium", "Strong · Hard", "Master · Advanced"]

"""The web app end to end, in Debian's Chromium against a real ``kingme serve``."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_a_whole_game_against_the_random_level_reaches_a_result(new_play):
    play = new_play(motion="no-preference")  # with the moves animated, as a player sees them
    play.hook("open-settings").click()
    play.hook("music").check()
    play.page.keyboard.press("Escape")
    play.start(opponent="computer", level="random", side="red", position="standard")
    turns = 0
    while play.wait_for_turn():
        play.play_any_turn()
        turns += 1
        assert turns < 400
    expect(play.hook("result")).to_have_text(re.compile(r"^(Red wins|White wins|Draw)$"))
    expect(play.hook("result-reason")).not_to_be_empty()
    assert int(play.hook("steps").text_content()) >= len(play.history()) > 0
    expect(play.hook("undo")).to_be_disabled()
    expect(play.hook("totals")).to_contain_text("1")


#: Multi-jumps played one landing at a time: the preference that finishes a capture with a single
#: route by its first landing, on by default, turned off.
ONE_LANDING_AT_A_TIME = "localStorage.setItem('kingme.prefs', JSON.stringify({oneClickCapture: false}))"


def test_the_double_jump_practice_for_two_players_ends_red_wins_in_two_steps(new_play):
    play = new_play(init_script=ONE_LANDING_AT_A_TIME)
    play.start(opponent="local", side="red", position="double-jump")
    expect(play.square(9).locator("[data-piece]")).to_have_attribute("data-movable", "true")
    expect(play.hook("status")).to_contain_text("Capture required")
    play.click(9)
    expect(play.square(18)).to_have_attribute("data-target", "true")
    play.click(18)
    expect(play.hook("status")).to_have_text("Red: continue jumping from 18.")
    play.click(13)  # another square does not end the sequence
    expect(play.hook("status")).to_have_text("Red: continue jumping from 18.")
    play.click(27)
    expect(play.hook("result")).to_have_text("Red wins")
    expect(play.hook("result-reason")).to_have_text("White has no pieces left.")
    expect(play.hook("steps")).to_have_text("2")
    assert play.history() == ["Red 9×18×27"]


def _press_to(play, square: int) -> None:
    """Move the keyboard focus to ``square`` with arrow keys only (rows first, then within the row)."""
    for _ in range(20):
        focused = play.page.evaluate("document.activeElement.dataset.square")
        if focused == str(square):
            return
        here = play.page.evaluate("document.activeElement.getBoundingClientRect().toJSON()")
        there = play.square(square).bounding_box()
        if abs(here["y"] - there["y"]) > 5:
            play.page.keyboard.press("ArrowDown" if there["y"] > here["y"] else "ArrowUp")
        else:
            play.page.keyboard.press("ArrowRight" if there["x"] > here["x"] else "ArrowLeft")
    raise AssertionError(f"could not reach square {square} with the arrow keys")


def test_a_game_played_by_keyboard_only(new_play):
    play = new_play(init_script=ONE_LANDING_AT_A_TIME)
    play.hook("opponent").select_option("local")
    play.hook("position").select_option("double-jump")
    play.hook("start").focus()
    play.start_by(lambda: play.page.keyboard.press("Enter"))
    _press_to(play, 9)
    play.page.keyboard.press("Enter")
    expect(play.square(18)).to_have_attribute("data-target", "true")
    play.page.keyboard.press("Escape")
    expect(play.page.locator("#board [data-target=true]")).to_have_count(0)
    play.page.keyboard.press("Space")
    _press_to(play, 18)
    play.page.keyboard.press("Enter")
    expect(play.hook("status")).to_contain_text("continue jumping from 18")
    play.page.keyboard.press("Escape")  # too late: the jump sequence has begun
    expect(play.square(27)).to_have_attribute("data-target", "true")
    play.page.keyboard.press("p")
    expect(play.hook("resume")).to_be_visible()
    play.page.keyboard.press("p")
    expect(play.hook("resume")).to_be_hidden()
    _press_to(play, 27)
    play.page.keyboard.press("Enter")
    expect(play.hook("result")).to_have_text("Red wins")
    expect(play.hook("steps")).to_have_text("2")


def test_the_board_is_an_aria_grid_with_named_squares(play):
    expect(play.page.locator("#board").get_by_role("gridcell")).to_have_count(32)
    expect(play.square(14)).to_have_attribute("aria-label", re.compile(r"^square 14, empty"))
    expect(play.square(22)).to_have_attribute("aria-label", re.compile(r"^square 22, white man"))
    play.start(opponent="local")
    play.click(11, 15)
    expect(play.hook("announcer")).to_have_text("Red 11–15.")


def test_undo_during_a_jump_returns_to_the_start_of_the_turn_and_after_it_takes_back_the_turn(new_play):
    play = new_play(init_script=ONE_LANDING_AT_A_TIME)
    play.hook("opponent").select_option("local")
    play.import_text("B:W14,23,30:B9,1")
    play.click(9, 18)
    expect(play.hook("status")).to_contain_text("continue jumping from 18")
    play.hook("undo").click()
    expect(play.square(9).locator("[data-piece]")).to_have_count(1)
    expect(play.square(18).locator("[data-piece]")).to_have_count(0)
    assert play.history() == []
    play.click(9, 18, 27)
    play.wait_for_history(1)
    play.click(30, 26)
    play.wait_for_history(2)
    play.hook("undo").click()
    play.wait_for_history(1)
    play.hook("undo").click()
    play.wait_for_history(0)
    for square in (9, 14, 23):
        expect(play.square(square).locator("[data-piece]")).to_have_count(1)


def test_undo_against_the_computer_takes_back_the_jump_and_the_reply_which_then_repeats(play):
    play.hook("level").select_option("random")
    play.import_text("B:W14,23,31,32:B9,1")
    play.click(9, 18, 27)
    play.wait_for_history(2)
    reply = play.history()[1]
    play.hook("undo").click()
    play.wait_for_history(0)
    expect(play.square(9).locator("[data-piece]")).to_have_count(1)
    play.click(9, 18, 27)
    play.wait_for_history(2)
    assert play.history()[1] == reply


def test_switching_tabs_pauses_the_game(play):
    play.start(opponent="computer", level="random")
    play.page.evaluate(
        "Object.defineProperty(document, 'hidden', {value: true, configurable: true});"
        "document.dispatchEvent(new Event('visibilitychange'))"
    )
    expect(play.hook("resume")).to_be_visible()
    expect(play.hook("status")).to_have_text("Paused.")
    play.page.evaluate("delete document.hidden")
    play.hook("resume").click()
    expect(play.hook("resume")).to_be_hidden()
    play.page.evaluate("window.dispatchEvent(new Event('blur'))")
    expect(play.hook("resume")).to_be_visible()


def test_resign_asks_once_more_and_concedes_for_the_player(play):
    play.start(opponent="computer", level="random")
    play.hook("resign").click()
    play.hook("cancel").click()
    expect(play.hook("result")).to_be_hidden()
    play.hook("resign").click()
    play.hook("confirm").click()
    expect(play.hook("result")).to_have_text("White wins")
    expect(play.hook("result-reason")).to_have_text("Red resigned.")
    expect(play.hook("undo")).to_be_disabled()


def test_replay_same_seed_gives_the_same_computer_replies(play):
    play.start(opponent="computer", level="casual", side="white", seed="replay-me")
    play.wait_for_history(1)
    first = play.history()
    play.wait_for_turn()
    play.play_any_turn()
    play.wait_for_history(3)
    opening = play.history()
    play.hook("resign").click()
    play.hook("confirm").click()
    play.start_by(play.hook("replay-same-seed").click)
    play.wait_for_history(1)
    assert play.history() == first
    play.wait_for_turn()
    play.play_any_turn()
    play.wait_for_history(3)
    assert play.history() == opening


def test_a_reload_resumes_the_game(play):
    play.start(opponent="computer", level="random", seed="reload-seed")
    play.play_any_turn()
    play.wait_for_history(2)
    before = play.history()
    play.open()
    play.wait_for_history(2)
    assert play.history() == before
    expect(play.hook("seed")).to_have_value("reload-seed")
    assert play.wait_for_turn()
    play.play_any_turn()
    play.wait_for_history(4)


def test_without_storage_a_warning_says_results_are_kept_for_this_visit(new_play):
    blocked = (
        "Object.defineProperty(window, 'localStorage', {configurable: true,"
        " get() { throw new DOMException('blocked', 'SecurityError'); }});"
    )
    play = new_play(init_script=blocked)
    expect(play.hook("storage-warning")).to_be_visible()
    expect(play.hook("storage-warning")).to_contain_text("this visit only")
    play.start(opponent="local")
    play.click(11, 15)
    play.wait_for_history(1)


def test_casual_rules_end_turn_after_a_jump_and_another_piece_cancels_the_capture(play):
    play.hook("opponent").select_option("local")
    play.hook("rules").select_option("casual")
    play.import_text("B:W14,15,23:B9,10")
    play.click(9, 18)
    expect(play.hook("end-turn")).to_be_visible()
    expect(play.square(14).locator("[data-piece]")).to_have_class(re.compile("taken"))
    play.click(10)  # another movable piece: the capture is cancelled and 14 comes back
    expect(play.hook("end-turn")).to_be_hidden()
    expect(play.square(9).locator("[data-piece]")).to_have_count(1)
    expect(play.square(14).locator("[data-piece]")).not_to_have_class(re.compile("taken"))
    play.click(19)
    expect(play.hook("status")).to_have_text("Red: continue jumping from 19, or choose End turn.")
    play.hook("end-turn").click()
    play.wait_for_history(1)
    assert play.history() == ["Red 10×19"]
    play.hook("undo").click()
    play.wait_for_history(0)
    play.click(9, 18)
    play.hook("end-turn").click()
    play.wait_for_history(1)
    assert play.history() == ["Red 9×18"]
    expect(play.hook("status")).to_contain_text("White")


def test_a_blank_seed_disables_start_with_the_reason(play):
    play.hook("seed").fill("   ")
    expect(play.hook("start")).to_be_disabled()
    expect(play.hook("seed-reason")).to_contain_text("1 to 96")
    play.hook("seed").fill(" my seed ")
    expect(play.hook("start")).to_be_enabled()


def test_changing_the_level_in_new_game_starts_nothing_and_keeps_the_side_just_chosen(play):
    play.start(opponent="computer", level="random", side="red")
    play.play_any_turn()
    play.wait_for_history(2)
    play.open_setup()
    play.hook("side").select_option("white")
    play.hook("level").select_option("club")
    expect(play.page.locator("#confirm-dialog")).to_be_hidden()
    expect(play.hook("side")).to_have_value("white")
    expect(play.hook("start")).to_be_visible()
    assert len(play.history()) == 2  # the game on the board goes on until Start match
    play.hook("start").click()
    play.start_by(play.hook("confirm").click)  # the game moved in counts as lost: asked first
    expect(play.page.locator("#player-bottom .player-role")).to_have_text("You")
    expect(play.page.locator("#player-bottom .player-name")).to_have_text("White")
    expect(play.page.locator("#player-top .player-role")).to_contain_text("Club")


def test_a_hint_marks_a_route_without_playing_it(play):
    play.start(opponent="local", position="double-jump")
    play.hook("hint").click()
    expect(play.hook("status")).to_contain_text("9×18×27")
    assert play.history() == []


def test_the_language_changes_every_string_and_keeps_the_game(play):
    play.start(opponent="local")
    play.click(11, 15)
    play.wait_for_history(1)
    play.hook("open-settings").click()
    play.hook("language").select_option("es")
    play.page.keyboard.press("Escape")
    expect(play.hook("undo")).to_have_text("Deshacer")
    expect(play.hook("status")).to_contain_text("Blancas")
    assert play.history() == ["Rojas 11–15"]


def test_a_piece_theme_renames_the_sides_everywhere(play):
    play.start(opponent="local")
    play.click(11, 15)
    play.wait_for_history(1)
    play.hook("open-settings").click()
    play.hook("piece-theme").select_option("blue-red")
    play.page.keyboard.press("Escape")
    assert play.history() == ["Blue 11–15"]
    expect(play.hook("status")).to_contain_text("Red to move")


@pytest.mark.parametrize(
    ("size", "viewport"), [("phone", {"width": 375, "height": 740}), ("desktop", {"width": 1280, "height": 800})]
)
def test_screenshots_of_the_main_states(new_play, size, viewport):
    play = new_play(viewport=viewport)
    play.screenshot(f"{size}-1-setup")
    play.start(opponent="local", position="double-jump")
    play.click(9)
    play.screenshot(f"{size}-2-selected-route")
    play.click(18)
    play.screenshot(f"{size}-3-continue-jumping")
    play.click(27)
    expect(play.hook("result")).to_be_visible()
    play.hook("result").scroll_into_view_if_needed()
    play.screenshot(f"{size}-4-result")
    play.start(opponent="computer", level="random", position="standard")
    play.play_any_turn()
    play.wait_for_history(2)
    play.page.evaluate("window.scrollTo(0, 0)")
    play.screenshot(f"{size}-5-game")
    play.hook("pause").click()
    play.screenshot(f"{size}-6-paused")
    play.hook("resume").click()
    play.hook("open-help").click()
    play.page.get_by_role("tab", name="Controls").click()
    play.screenshot(f"{size}-7-help")
    play.page.keyboard.press("Escape")
    play.hook("open-settings").click()
    play.screenshot(f"{size}-8-settings")


def test_a_game_exported_as_pdn_can_be_imported_to_continue_it(play):
    play.start(opponent="local", seed="pdn-trip")
    play.click(11, 15)
    play.wait_for_history(1)
    play.click(22, 18)
    play.wait_for_history(2)
    play.hook("export-pdn").click()
    expect(play.hook("pdn-text")).to_have_value(re.compile("22-18"))
    text = play.hook("pdn-text").input_value()
    assert "11-15" in text and "22-18" in text and '[Seed "pdn-trip"]' in text
    play.page.keyboard.press("Escape")
    play.start(opponent="local")
    play.import_text(text)
    assert play.history() == ["Red 11–15", "White 22–18"]
    play.click(15)
    expect(play.square(22)).to_have_attribute("data-target", "true")


def test_an_import_of_bad_text_says_what_is_wrong_and_keeps_the_game(play):
    play.start(opponent="local")
    play.click(11, 15)
    play.wait_for_history(1)
    play.hook("import-pdn").click()
    play.hook("pdn-text").fill("1. 11-15 22-18 2. 15x99 *")
    play.hook("pdn-load").click()
    expect(play.page.locator("#pdn-error")).to_contain_text("99")
    play.page.keyboard.press("Escape")
    assert play.history() == ["Red 11–15"]


def test_the_chosen_language_survives_a_reload(play):
    play.hook("open-settings").click()
    play.hook("language").select_option("fr")
    play.page.keyboard.press("Escape")
    play.open()
    expect(play.hook("start")).to_have_text("Commencer la partie")
    expect(play.page.locator("html")).to_have_attribute("lang", "fr")


def wait_for_held(play, held: list, count: int) -> None:
    """Let Playwright deliver intercepted requests until ``held`` has ``count`` of them.

    A route handler runs only while the sync API is waiting, so the page can show "thinking"
    before the request reaches the handler: waiting for the request itself is what is safe."""
    for _ in range(600):
        if len(held) >= count:
            return
        play.page.wait_for_timeout(25)
    raise AssertionError(f"{count} request(s) to /api/computer expected, {len(held)} arrived")


def test_the_page_shows_the_computer_thinking_and_stays_usable_meanwhile(play):
    held = []
    play.page.route("**/api/computer", lambda route: held.append(route))  # held until released
    play.start(opponent="computer", level="random")
    play.click(11, 15)
    wait_for_held(play, held, 1)
    expect(play.hook("thinking")).to_be_visible()
    expect(play.hook("status")).to_have_text("White is thinking…")
    play.hook("open-help").click()
    expect(play.page.get_by_role("tab", name="FAQ")).to_be_visible()
    play.page.keyboard.press("Escape")
    play.hook("undo").click()  # taking back the move drops the reply still on its way
    play.wait_for_history(0)
    expect(play.hook("thinking")).to_be_hidden()
    held.clear()  # the page cancelled that request
    play.click(11, 15)
    expect(play.hook("thinking")).to_be_visible()
    wait_for_held(play, held, 1)
    held.pop().continue_()
    play.wait_for_history(2)
    expect(play.hook("thinking")).to_be_hidden()


def test_flip_board_turns_the_board_around(play):
    before = play.square(1).bounding_box()
    play.hook("flip").click()
    after = play.square(1).bounding_box()
    assert after["y"] < before["y"] and after["x"] < before["x"]  # from bottom right to top left


def test_square_numbers_and_move_marks_can_be_turned_off(play):
    play.start(opponent="local")
    expect(play.page.locator("#board .sq-number")).to_have_count(32)
    play.hook("open-settings").click()
    play.hook("square-numbers").uncheck()
    play.hook("move-marks").uncheck()
    play.page.keyboard.press("Escape")
    expect(play.page.locator("#board .sq-number")).to_have_count(0)
    play.click(11)
    expect(play.square(15)).to_have_attribute("data-target", "true")
    expect(play.page.locator("#board .target-dot")).to_have_count(0)

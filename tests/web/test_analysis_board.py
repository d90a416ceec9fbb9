"""The analysis board (/analysis) in Chromium against a real ``kingme serve``: free moves for both
sides, the engine's three lines deepening with stop and go, the evaluation bar, the position
editor and FEN in and out, variations kept as a tree and exported as PDN with evaluations."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from browser_support import Play, held_back
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def open_board(play: Play, fen: str | None = None) -> None:
    play.page.goto(play.url + "/analysis" + (f"?fen={quote(fen)}" if fen else ""))
    play.page.wait_for_selector("html[data-ready=true]")
    expect(play.page.locator("#analysis-board")).to_be_visible()
    # The board is built before its position comes from the server, and until then a click on it
    # or on Edit, or a FEN typed, finds no position: wait until the pieces are drawn.
    expect(play.page.locator("#analysis-board [data-piece]")).not_to_have_count(0)


def square(play: Play, n: int) -> object:
    return play.page.locator(f'#analysis-board [data-square="{n}"]')


def move(play: Play, *squares: int) -> None:
    """Play a move by its squares and wait until the move list has it as the move shown."""
    count = play.hook("tree-move").count()
    for n in squares:
        square(play, n).click()
    expect(play.hook("tree-move")).to_have_count(count + 1)
    # The engine's lines may redraw the list with the new move in it while its position is still on
    # its way from the server: the move is shown once it is the one marked.
    played = rf"\b{squares[0]}[-x](.*[-x])?{squares[-1]}$"
    expect(play.page.locator("[data-testid=tree-move][aria-current=step]")).to_have_text(re.compile(played))


def tree_moves(play: Play) -> list[str]:
    return [" ".join(text.split()) for text in play.hook("tree-move").all_text_contents()]


def current_move(play: Play) -> str:
    return " ".join((play.page.locator("[data-testid=tree-move][aria-current=step]").text_content() or "").split())


def wait_for_depth(play: Play, depth: int) -> None:
    expect(play.hook("analysis-depth")).to_have_text(re.compile(r"(\d+)"))
    shown = "document.querySelector('[data-testid=analysis-depth]').textContent"
    play.page.wait_for_function(f"n => Number(({shown}.match(/\\d+/) || [0])[0]) >= n", arg=depth)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_the_board_is_reached_from_the_navigation_and_shows_three_lines_deepening(new_play, viewport) -> None:
    play = new_play(viewport=viewport)
    play.hook("analysis-entry").click()
    expect(play.page).to_have_url(re.compile(r"/analysis"))
    expect(play.hook("analysis-line")).to_have_count(3)
    wait_for_depth(play, 2)
    first = play.hook("analysis-depth").text_content()
    wait_for_depth(play, int(re.findall(r"\d+", first or "0")[0]) + 2)  # deeper as it searches
    expect(play.hook("eval-text")).to_have_text(re.compile(r"^[+−]?\d+\.\d\d$"))
    assert play.hook("eval-bar").get_attribute("aria-valuenow") is not None
    # Read in one go: the search goes on deepening, and each depth redraws the three lines, so
    # lines read one by one may come from two depths (each depth's three differ; two depths' may not).
    first_moves = play.page.evaluate(
        "[...document.querySelectorAll('[data-testid=analysis-line]')]"
        ".map(line => line.querySelector('[data-testid=line-move]').textContent)"
    )
    assert len(first_moves) == 3 and len(set(first_moves)) == 3  # three different first moves
    assert play.page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    for selector in ("#analysis-board", ".analysis-view .eval-bar", ".analysis-view .controls"):
        shown = play.page.locator(selector).bounding_box()
        assert shown and shown["x"] >= 0 and shown["x"] + shown["width"] <= viewport["width"], selector
        if viewport is DESKTOP:  # beside the panel, the board, its bar and its buttons fit the window
            assert shown["y"] + shown["height"] <= viewport["height"], selector
    play.screenshot(f"analysis-{viewport['width']}")


def test_moves_are_free_for_both_sides_and_kept_as_a_tree_of_variations(play) -> None:
    open_board(play)
    move(play, 11, 15)  # Red
    move(play, 22, 18)  # then White, on the same board
    assert tree_moves(play) == ["1. 11-15", "22-18"]
    play.hook("analysis-previous").click()
    expect(play.page.locator("[data-testid=tree-move][aria-current=step]")).to_have_text("1. 11-15")
    move(play, 23, 19)  # another reply: a variation
    expect(play.hook("variation")).to_have_count(1)
    expect(play.hook("variation")).to_contain_text("1... 23-19")
    assert current_move(play) == "1... 23-19"
    play.hook("analysis-promote").click()  # the variation becomes the main line
    assert tree_moves(play) == ["1. 11-15", "23-19", "1... 22-18"]
    play.page.locator("[data-testid=tree-move]", has_text="22-18").click()
    expect(play.page.locator("[data-testid=tree-move][aria-current=step]")).to_have_text("1... 22-18")
    expect(square(play, 18).locator("[data-piece]")).to_have_attribute("data-color", "white")
    play.hook("analysis-delete").click()
    expect(play.hook("variation")).to_have_count(0)
    assert tree_moves(play) == ["1. 11-15", "23-19"]
    play.hook("analysis-first").click()
    expect(play.hook("analysis-root")).to_have_attribute("aria-current", "step")
    expect(square(play, 11).locator("[data-piece]")).to_have_count(1)
    play.page.keyboard.press("End")  # the keys step too: End, ←, →, Home
    expect(play.page.locator("[data-testid=tree-move][aria-current=step]")).to_have_text("23-19")
    play.page.keyboard.press("ArrowLeft")
    expect(play.page.locator("[data-testid=tree-move][aria-current=step]")).to_have_text("1. 11-15")
    play.page.keyboard.press("ArrowRight")
    expect(play.page.locator("[data-testid=tree-move][aria-current=step]")).to_have_text("23-19")
    play.page.keyboard.press("Home")
    expect(play.hook("analysis-root")).to_have_attribute("aria-current", "step")


def test_a_capture_is_offered_with_its_whole_route_as_the_server_lists_it(play) -> None:
    open_board(play, "B:W14,23:B9")
    expect(square(play, 9).locator("[data-piece]")).to_have_attribute("data-movable", "true")
    move(play, 9, 18, 27)
    assert tree_moves(play) == ["1. 9x18x27"]
    expect(play.hook("analysis-status")).to_have_text("No moves here: the game is over.")


def test_stop_and_go(play) -> None:
    open_board(play)
    wait_for_depth(play, 3)
    toggle = play.hook("analysis-toggle")
    expect(toggle).to_have_text("Stop")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    expect(toggle).to_have_text("Analyse")
    expect(play.hook("analysis-status")).to_have_text("The engine is stopped.")
    expect(play.page.locator("#analysis-view")).to_have_attribute("data-searching", "false")
    move(play, 11, 15)  # stopped: a new position is not analysed
    expect(play.hook("analysis-line")).to_have_count(0)
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(play.hook("analysis-line")).to_have_count(3)


def test_clicking_a_move_of_a_line_plays_the_line_up_to_it(play) -> None:
    open_board(play)
    wait_for_depth(play, 4)
    play.hook("analysis-toggle").click()  # stopped, the lines stay as they are
    expect(play.page.locator("#analysis-view")).to_have_attribute("data-searching", "false")
    line = play.hook("analysis-line").first
    moves = [" ".join((text or "").split()) for text in line.locator("[data-testid=line-move]").all_text_contents()]
    line.locator("[data-testid=line-move]").nth(2).click()
    expect(play.hook("tree-move")).to_have_count(3)
    assert tree_moves(play) == moves[:3]
    assert current_move(play) == moves[2]


def test_the_editor_places_and_removes_pieces_sets_the_side_to_move_and_gives_its_fen(play) -> None:
    open_board(play)
    expect(play.hook("analysis-line")).to_have_count(3)
    play.hook("analysis-edit").click()
    expect(play.hook("analysis-editor")).to_be_visible()
    expect(play.hook("analysis-line")).to_have_count(0)  # the lines were another position's
    expect(play.hook("eval-text")).to_have_text("")
    play.hook("analysis-clear").click()
    expect(play.page.locator("#analysis-board [data-piece]")).to_have_count(0)
    play.hook("tool-black-king").click()
    square(play, 1).click()
    square(play, 5).click()
    play.hook("tool-white-man").click()
    square(play, 30).click()
    square(play, 26).click()
    square(play, 26).click()  # the same piece again: removed
    play.hook("analysis-turn").select_option("white")
    expect(play.hook("analysis-fen")).to_have_value("W:W30:BK1,K5")
    expect(square(play, 5).locator("[data-piece]")).to_have_attribute("data-piece", "king")
    play.hook("tool-erase").click()
    square(play, 5).click()
    expect(play.hook("analysis-fen")).to_have_value("W:W30:BK1")
    play.hook("analysis-done").click()
    expect(play.hook("analysis-editor")).to_be_hidden()
    expect(play.page).to_have_url(re.compile(r"fen=W%3AW30%3ABK1"))
    expect(play.hook("analysis-line")).not_to_have_count(0)
    expect(play.hook("eval-text")).to_have_text(re.compile(r"^#-?\d+$|^[+−]?\d+\.\d\d$"))


def test_a_position_the_rules_refuse_keeps_the_editor_open_and_says_why(play) -> None:
    open_board(play)
    play.hook("analysis-edit").click()
    play.hook("analysis-clear").click()
    square(play, 29).click()  # a red man on White's back row would already be a king
    play.hook("tool-white-man").click()
    square(play, 12).click()
    play.hook("analysis-done").click()
    expect(play.hook("analysis-message")).to_contain_text("black man on square 29")
    expect(play.hook("analysis-editor")).to_be_visible()
    expect(square(play, 29).locator("[data-piece]")).to_have_count(1)


def test_fen_in_and_out_and_a_bad_fen_named_with_the_position_kept(play) -> None:
    open_board(play)
    expect(play.hook("analysis-fen")).to_have_value(
        "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    )
    play.hook("analysis-fen").fill("B:W18,24:B12,16,K33")
    play.hook("analysis-load").click()
    expect(play.hook("analysis-message")).to_contain_text("This is not a position")
    expect(play.hook("analysis-message")).to_contain_text("square 33")
    expect(square(play, 1).locator("[data-piece]")).to_have_count(1)  # the start position is still there
    play.hook("analysis-fen").fill("W:W18,24:B12,16")
    play.hook("analysis-load").click()
    expect(play.hook("analysis-message")).to_be_hidden()
    expect(square(play, 18).locator("[data-piece]")).to_have_attribute("data-color", "white")
    expect(play.page.locator("#analysis-board [data-piece]")).to_have_count(4)


def test_a_fen_being_typed_survives_the_board_redrawing_until_the_position_changes(play) -> None:
    # The engine's lines redraw the panel many times a second; each redraw used to put the shown
    # position's FEN back into the field, so a FEN typed and then loaded could be lost on the way
    # from the field to the Load button. Flipping the board redraws it the same way, on cue.
    open_board(play)
    play.hook("analysis-fen").fill("W:W18,24:B12,16")
    play.hook("analysis-flip").click()
    expect(play.hook("analysis-fen")).to_have_value("W:W18,24:B12,16")
    move(play, 11, 15)  # the shown position changes: the field shows it again
    expect(play.hook("analysis-fen")).to_have_value(re.compile(r"^W:W21,.*:B1,2,3,4,5,6,7,8,9,10,12,15$"))


def test_a_review_opens_the_board_at_its_position(play) -> None:
    open_board(play, "W:W18,K5:B14")
    expect(play.hook("analysis-fen")).to_have_value("W:W18,K5:B14")
    expect(square(play, 5).locator("[data-piece]")).to_have_attribute("data-piece", "king")
    expect(play.hook("analysis-line").first).to_contain_text("18x9")


def test_a_bad_fen_in_the_address_is_named_over_the_start_position(play) -> None:
    open_board(play, "nonsense")
    expect(play.hook("analysis-message")).to_contain_text("This is not a position")
    expect(play.page.locator("#analysis-board [data-piece]")).to_have_count(24)


def test_the_tree_is_exported_as_pdn_with_variations_and_evaluations(play) -> None:
    open_board(play)
    wait_for_depth(play, 2)
    move(play, 11, 15)
    wait_for_depth(play, 2)
    play.hook("analysis-previous").click()
    move(play, 9, 14)
    wait_for_depth(play, 2)
    play.hook("analysis-export").click()
    pdn = play.hook("analysis-pdn")
    expect(pdn).to_be_visible()
    text = " ".join((pdn.input_value() or "").split())
    assert '[GameType "21"]' in text
    value = r"\{eval [+-]\d\.\d\d, depth \d+\}"
    assert re.search(rf"{value} 1\. 11-15 {value} \(1\. 9-14 {value}\)", text), text


def test_the_board_speaks_every_language(new_play) -> None:
    play = new_play()
    play.hook("open-settings").click()
    play.hook("language").select_option("de")
    play.page.keyboard.press("Escape")
    play.hook("analysis-entry").click()
    expect(play.hook("analysis-entry")).to_have_text("Analyse")
    expect(play.hook("analysis-edit")).to_have_text("Stellung bearbeiten")
    expect(play.hook("analysis-toggle")).to_have_text("Stopp")


def test_an_ending_the_tables_hold_shows_wins_in_plies_and_the_search_finished(play) -> None:
    open_board(play, "W:WK30,K26:BK1")
    # White wins, with a capture or a man's move within so many plies (the tables' distance to
    # conversion, not to the game's end): the compact label, and in words for screen readers.
    expect(play.hook("eval-text")).to_have_text(re.compile(r"^#-\d+$"))
    words = r"^#-\d+, White wins · a capture or a man's move within \d+ pl(y|ies)$"
    expect(play.hook("eval-bar")).to_have_attribute("aria-valuetext", re.compile(words))
    expect(play.hook("analysis-status")).to_have_text("The search has gone as deep as it goes here.")
    expect(play.hook("eval-bar")).to_have_attribute("aria-valuenow", "0")


def test_the_board_and_its_controls_wait_for_the_first_position(new_play) -> None:
    """The board is drawn before its position comes: a click, Edit or a FEN typed meanwhile does
    nothing (no error in the page), and the board plays once the position is in."""
    play = new_play(init_script=held_back("/api/start"))
    play.page.goto(play.url + "/analysis")
    play.page.wait_for_selector("html[data-ready=true]")
    square(play, 11).click()
    play.hook("analysis-edit").click()
    play.hook("analysis-fen").fill("W:W18,24:B12,16")
    expect(play.page.locator("#analysis-board [data-piece]")).to_have_count(24)
    expect(play.hook("analysis-editor")).to_be_hidden()
    move(play, 11, 15)
    assert tree_moves(play)[0].endswith("11-15")

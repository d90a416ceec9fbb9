"""Stepping through a game on the play screen: any earlier position is shown with its last move
marked, the board is not playable meanwhile, and play resumes from the live position."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

#: A short game for two players on one device: Red 11-15, White 22-18, Red takes 15x22.
OPENING = '[Event "stepping"]\n1. 11-15 22-18 2. 15x22 *'


def piece(play, square: int) -> object:
    return play.square(square).locator("[data-piece]")


def test_an_imported_game_is_stepped_through_by_click_and_keys_and_play_resumes_from_the_live_position(play):
    play.hook("opponent").select_option("local")
    play.import_text(OPENING)
    play.wait_for_history(3)
    expect(play.hook("step-live")).to_be_hidden()

    play.wait_for_stepper()
    play.page.locator("[data-testid=history] li").first.click()
    expect(play.hook("step-where")).to_have_text("Looking at move 1 of 3: the board is not playable.")
    expect(piece(play, 15)).to_have_attribute("data-color", "black")
    expect(piece(play, 22)).to_have_attribute("data-color", "white")
    expect(piece(play, 18)).to_have_count(0)
    for square in (11, 15):  # the last move is marked
        expect(play.square(square).locator(".last-move")).to_have_count(1)
    expect(play.page.locator("#board [data-movable=true]")).to_have_count(0)
    expect(play.page.locator("[data-testid=history] li[aria-current=step]")).to_have_attribute("data-ply", "1")
    play.click(22)  # the board is not playable while stepping back
    expect(play.page.locator("#board [data-target=true]")).to_have_count(0)

    play.hook("history").focus()  # on the board, the arrow keys go from square to square
    play.page.keyboard.press("ArrowRight")
    expect(piece(play, 18)).to_have_attribute("data-color", "white")
    expect(play.hook("step-where")).to_contain_text("move 2 of 3")
    play.page.keyboard.press("Home")
    expect(piece(play, 11)).to_have_attribute("data-color", "black")
    expect(play.page.locator("#board .last-move")).to_have_count(0)
    expect(play.hook("step-back")).to_be_disabled()
    play.page.keyboard.press("End")
    expect(play.hook("step-live")).to_be_hidden()
    expect(piece(play, 22)).to_have_attribute("data-color", "black")
    expect(play.page.locator("#board [data-movable=true]").first).to_be_visible()

    play.hook("step-back").click()
    play.hook("step-back").click()
    expect(play.hook("step-where")).to_contain_text("move 1 of 3")
    play.hook("step-live").click()
    expect(play.hook("step-where")).to_be_hidden()
    play.move(26, 17)  # White takes back, on the live position
    assert play.history()[-1] == "White 26×17"


def test_a_finished_game_against_the_computer_is_stepped_through_and_kept_in_the_archive(play):
    play.start(opponent="computer", level="casual", position="double-jump")
    play.click(9, 18, 27)
    expect(play.hook("result")).to_have_text("Red wins")
    play.hook("step-first").click()
    expect(piece(play, 9)).to_have_attribute("data-color", "black")
    expect(play.hook("result")).to_be_visible()  # the result stays said
    play.page.keyboard.press("ArrowRight")
    expect(play.hook("step-live")).to_be_hidden()
    expect(piece(play, 27)).to_have_attribute("data-color", "black")
    play.hook("archive").click()
    expect(play.hook("archive-entry")).to_contain_text(re.compile(r"Computer · Casual.*you: Red.*Won.*Moves: 1"))

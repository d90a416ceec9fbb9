"""Leaving an unfinished game for another (Restart, Start match) asks first and escapes nothing: a
game against the computer that the player has moved in counts as lost, as resigning would (issue
40)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def losses_at(play, level: str) -> object:
    return play.page.locator(f"#level-totals tr[data-level={level}] td").nth(3)


def moved_against_random(play) -> None:
    play.start(opponent="computer", level="random", side="red")
    play.play_any_turn()
    play.wait_for_history(2)


def test_restart_asks_first_and_cancel_keeps_the_game(play):
    moved_against_random(play)
    play.hook("restart").click()
    expect(play.page.locator("#confirm-title")).to_have_text("Start this game again?")
    play.hook("cancel").click()
    assert len(play.history()) == 2
    expect(play.hook("level-totals")).to_be_hidden()  # nothing counted


def test_restarting_a_game_moved_in_against_the_computer_counts_it_as_lost(play):
    moved_against_random(play)
    play.hook("restart").click()
    expect(play.page.locator("#confirm-text")).to_contain_text("counts as a loss")
    play.start_by(play.hook("confirm").click)
    play.wait_for_history(0)
    expect(losses_at(play, "random")).to_have_text("1")


def test_a_new_game_over_one_moved_in_asks_and_counts_the_loss_but_not_before_a_move(play):
    moved_against_random(play)
    play.open_setup()
    play.hook("start").click()
    expect(play.page.locator("#confirm-title")).to_have_text("Start a new game?")
    play.start_by(play.hook("confirm").click)
    expect(losses_at(play, "random")).to_have_text("1")
    play.start(opponent="computer", level="random", side="red")  # not moved in: no question
    expect(losses_at(play, "random")).to_have_text("1")


def test_restarting_a_two_player_game_asks_and_counts_nothing(play):
    play.start(opponent="local")
    play.move(11, 15)
    play.hook("restart").click()
    expect(play.page.locator("#confirm-text")).to_have_text("The game on the board is left unfinished.")
    play.start_by(play.hook("confirm").click)
    play.wait_for_history(0)
    expect(play.hook("total-blackWins")).to_have_text("0")
    expect(play.hook("total-whiteWins")).to_have_text("0")

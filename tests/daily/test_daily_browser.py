"""The daily game and the daily puzzle in Chromium: entries, streaks, 'already played today'.

The test server (conftest) lives on 2026-11-29 — a Red day — with an engine that answers at
once with random moves, and the small puzzle collection (that day's puzzle: Seeing is believing).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from browser_support import ARTIFACTS, play_when_movable
from playwright.sync_api import expect

from kingme.engine import choose_move
from kingme.game import Game

pytestmark = pytest.mark.browser

#: Screenshots of the main states, kept as test artefacts (gitignored), as the web tests do.
SOLUTION = ["22-17", "29-25", "30-25", "21-17", "6-1", "1x10x3x12x19x28"]


def stored(page: Any, name: str) -> Any:
    return json.loads(page.evaluate(f"localStorage.getItem('kingme.{name}')") or "null")


def seed_storage(page: Any, name: str, value: object) -> None:
    page.evaluate(f"localStorage.setItem('kingme.{name}', {json.dumps(json.dumps(value))})")
    page.reload()
    page.wait_for_selector("html[data-ready=true]")


def history_length(page: Any) -> int:
    return page.locator("[data-testid=history] li").count()


def play_path(page: Any, path: list[int] | tuple[int, ...]) -> None:
    """Click a move's squares. A capture with one route left goes on by itself from its first
    landing, so a square the board no longer offers is not clicked: by then the reply may have
    come, and the click would pick up the piece that landed there."""
    page.locator(f'#board [data-square="{path[0]}"]').click()
    for square in path[1:]:
        landing = page.locator(f'#board [data-square="{square}"]')
        if landing.get_attribute("data-target") != "true":
            break
        landing.click()


def play_on_the_puzzle(page: Any, move: str) -> None:
    """Click the squares of ``move`` ("22-17", "1x10x3") once its piece can move: the "Right!"
    shown while the answer to the move before is on its way is still the answer before that."""
    play_when_movable(page.locator("#puzzle-board"), *move.replace("x", "-").split("-"))


def screenshot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def start_a_normal_game(page: Any) -> None:
    """Open the match setup (New game) and start the game it shows."""
    page.get_by_test_id("new-game").click()
    page.get_by_test_id("start").click()
    expect(page.get_by_test_id("start")).to_be_hidden()


def open_daily_game(page: Any) -> None:
    page.get_by_test_id("daily-game").click()
    expect(page.locator("html")).to_have_attribute("data-daily", "on")


def test_the_daily_game_is_beat_club_as_red_without_takebacks_or_hints(page: Any) -> None:
    open_daily_game(page)
    match = stored(page, "match")
    assert match["config"]["level"] == "club" and match["config"]["side"] == "red"
    assert match["record"]["setup"]["seed"] == "daily-2026-11-29"
    expect(page.get_by_test_id("undo")).to_be_hidden()
    expect(page.get_by_test_id("hint")).to_be_hidden()
    expect(page.get_by_test_id("streak")).to_have_text("0")


def test_the_daily_game_keeps_its_level_and_is_played_once_across_reloads_and_level_choices(page: Any) -> None:
    open_daily_game(page)
    expect(page.locator("#modes .is-active")).to_have_count(1)
    expect(page.locator("#modes .is-active")).to_have_attribute("data-mode", "daily-game")
    play_path(page, (11, 15))
    expect(page.locator("[data-testid=history] li")).to_have_count(2)
    page.get_by_test_id("new-game").click()
    page.get_by_test_id("level").select_option("random")  # a choice for the next game, not the daily's
    page.get_by_test_id("setup-cancel").click()
    expect(page.get_by_test_id("restart")).to_be_hidden()
    page.reload()
    page.wait_for_selector("html[data-ready=true]")
    expect(page.locator("[data-testid=history] li")).to_have_count(2)
    open_daily_game(page)  # clicking Daily again neither restarts nor changes the game
    expect(page.locator("[data-testid=history] li")).to_have_count(2)
    assert stored(page, "match")["config"]["level"] == "club"
    page.get_by_test_id("resign").click()
    page.get_by_test_id("confirm").click()
    expect(page.get_by_test_id("result")).to_be_visible()
    expect(page.get_by_test_id("replay-same-seed")).to_be_hidden()
    page.get_by_test_id("new-game").click()
    expect(page.get_by_test_id("level")).to_be_enabled()
    page.get_by_test_id("level").select_option("random")
    expect(page.locator("[data-testid=history] li")).to_have_count(2)
    expect(page.get_by_test_id("error")).to_be_hidden()


def test_a_new_game_started_during_the_daily_game_is_played_at_the_level_shown(page: Any) -> None:
    open_daily_game(page)
    play_path(page, (11, 15))
    expect(page.locator("[data-testid=history] li")).to_have_count(2)
    page.get_by_test_id("new-game").click()
    expect(page.get_by_test_id("level")).to_be_enabled()
    expect(page.get_by_test_id("level")).to_have_value("casual")  # the player's own choice, not the day's
    page.get_by_test_id("level").select_option("random")
    page.get_by_test_id("start").click()
    expect(page.locator("html")).to_have_attribute("data-daily", "off")
    expect(page.locator("#player-top .player-role")).to_contain_text("Random")
    assert stored(page, "match")["config"]["level"] == "random"
    open_daily_game(page)  # the day's game waited, as it was
    expect(page.locator("[data-testid=history] li")).to_have_count(2)


def test_play_during_the_daily_game_puts_it_away_and_daily_brings_it_back(page: Any) -> None:
    open_daily_game(page)
    play_path(page, (11, 15))
    expect(page.locator("[data-testid=history] li")).to_have_count(2)
    page.locator("#modes [data-mode=play]").click()
    expect(page).to_have_url(re.compile(r"/$"))
    expect(page.locator("html")).to_have_attribute("data-daily", "off")
    expect(page.get_by_test_id("start")).to_be_visible()  # the setup of a game of the player's own
    open_daily_game(page)
    expect(page.locator("[data-testid=history] li")).to_have_count(2)


def test_back_from_the_daily_game_shows_the_play_page_without_it(page: Any) -> None:
    open_daily_game(page)
    expect(page).to_have_url(re.compile(r"/daily$"))
    page.go_back()
    expect(page).to_have_url(re.compile(r"/$"))
    expect(page.locator("html")).to_have_attribute("data-daily", "off")
    expect(page.get_by_test_id("start")).to_be_visible()


def test_a_level_saved_by_an_older_page_is_put_right_when_the_daily_opens(page: Any) -> None:
    open_daily_game(page)
    match = stored(page, "match")
    seed_storage(page, "match", {**match, "config": {**match["config"], "level": "random"}})
    open_daily_game(page)
    expect(page.locator("#player-top .player-role")).to_contain_text("Club")
    assert stored(page, "match")["config"]["level"] == "club"
    expect(page.get_by_test_id("error")).to_be_hidden()


def test_an_unfinished_daily_game_resumes_after_a_reload(page: Any) -> None:
    open_daily_game(page)
    play_path(page, (11, 15))
    expect(page.locator("[data-testid=history] li")).to_have_count(2)
    moves = stored(page, "match")["record"]["moves"]
    start_a_normal_game(page)  # a normal game in between
    expect(page.locator("html")).to_have_attribute("data-daily", "off")
    page.reload()
    page.wait_for_selector("html[data-ready=true]")
    open_daily_game(page)
    expect(page.locator("[data-testid=history] li")).to_have_count(2)
    assert stored(page, "match")["record"]["moves"] == moves


def test_a_loss_ends_the_streak_and_the_day_is_played_once(page: Any) -> None:
    seed_storage(page, "daily", {"streak": {"count": 4, "last": "2026-11-28"}, "days": {}, "unfinished": None})
    expect(page.get_by_test_id("streak")).to_have_text("4")
    open_daily_game(page)
    play_path(page, (11, 15))
    expect(page.locator("[data-testid=history] li")).to_have_count(2)
    page.get_by_test_id("resign").click()
    page.get_by_test_id("confirm").click()
    expect(page.get_by_test_id("result")).to_be_visible()
    expect(page.get_by_test_id("streak")).to_have_text("0")
    expect(page.get_by_test_id("daily-done")).to_contain_text("Already played today: Loss")
    page.get_by_test_id("share").click()
    share = page.get_by_test_id("share-text").input_value()
    assert "2026-11-29" in share and "Loss" in share and "1. 11-15" in share
    screenshot(page, "daily-game-played")
    page.reload()
    page.wait_for_selector("html[data-ready=true]")
    start_a_normal_game(page)  # the daily cannot be started again
    expect(page.locator("html")).to_have_attribute("data-daily", "off")
    page.get_by_test_id("daily-game").click()
    expect(page.get_by_test_id("daily-done")).to_contain_text("Already played today")
    expect(page.locator("html")).to_have_attribute("data-daily", "off")
    assert stored(page, "daily")["days"]["2026-11-29"]["result"] == "loss"


def test_a_win_extends_the_streak(page: Any) -> None:
    seed_storage(page, "daily", {"streak": {"count": 2, "last": "2026-11-28"}, "days": {}, "unfinished": None})
    open_daily_game(page)
    while not page.get_by_test_id("result").is_visible():
        record = stored(page, "match")["record"]
        game = Game.from_record(record)
        if game.is_over:
            break
        move = choose_move(game, "casual")  # against random replies, casual wins quickly
        play_path(page, move.path)
        reply = f"[data-testid=history] li:nth-child({len(record['moves']) + 2})"
        page.locator(f"{reply}, #result-panel:not([hidden])").first.wait_for()
    expect(page.get_by_test_id("result")).to_have_text("Red wins")
    expect(page.get_by_test_id("streak")).to_have_text("3")
    expect(page.get_by_test_id("daily-done")).to_contain_text("Win")
    page.get_by_test_id("archive").click()  # the day's game is in the archive, as won
    expect(page.get_by_test_id("archive-entry")).to_contain_text(re.compile(r"Daily game.*you: Red.*Won"))


def test_the_daily_puzzle_tells_a_wrong_move_and_is_solved_with_the_defenders_replies(page: Any) -> None:
    seed_storage(page, "puzzles", {"streak": {"count": 6, "last": "2026-11-28"}, "solved": {}})
    page.get_by_test_id("daily-puzzle").click()
    expect(page.locator("#puzzle-title")).to_have_text("Seeing is believing")
    expect(page.get_by_test_id("puzzle-streak")).to_have_text("6")
    board = page.locator("#puzzle-board")
    expect(board.locator(".sq-number")).to_have_count(32)  # the solution is told in square numbers
    board.locator('[data-square="22"]').click()
    board.locator('[data-square="18"]').click()
    expect(page.get_by_test_id("puzzle-feedback")).to_contain_text("22-18 is not the solution")
    page.get_by_test_id("puzzle-hint").click()
    expect(page.get_by_test_id("puzzle-feedback")).to_contain_text("Hint: 22-17")
    for move in SOLUTION[:-1]:
        play_on_the_puzzle(page, move)
        expect(page.get_by_test_id("puzzle-feedback")).to_contain_text("Right!")
    play_on_the_puzzle(page, SOLUTION[-1])
    expect(page.get_by_test_id("puzzle-solved")).to_be_visible()
    expect(page.get_by_test_id("puzzle-streak")).to_have_text("7")
    screenshot(page, "daily-puzzle-solved")
    # The solved line can be stepped through from the puzzle's start.
    page.get_by_test_id("puzzle-step-first").click()
    expect(board.locator(".last-move")).to_have_count(0)
    expect(board.locator('[data-square="22"] [data-piece]')).to_have_count(1)
    page.get_by_test_id("puzzle-step-forward").click()
    expect(board.locator('[data-square="17"] .last-move')).to_have_count(1)
    page.get_by_test_id("puzzle-step-last").click()
    expect(board.locator('[data-square="28"] .last-move')).to_have_count(1)


def test_the_puzzle_view_renders_its_state_again_in_a_new_language(page: Any) -> None:
    page.get_by_test_id("daily-puzzle").click()
    expect(page.locator("#puzzle-title")).to_have_text("Seeing is believing")
    board = page.locator("#puzzle-board")
    board.locator('[data-square="22"]').click()
    board.locator('[data-square="18"]').click()
    expect(page.get_by_test_id("puzzle-feedback")).to_have_text("22-18 is not the solution. Try again.")
    page.get_by_test_id("open-settings").click()
    page.get_by_test_id("language").select_option("fr")
    page.keyboard.press("Escape")
    # The answer is kept in the state, not as the words once written: it is said again in French.
    expect(page.get_by_test_id("puzzle-feedback")).to_have_text("22-18 n'est pas la solution. Réessayez.")
    expect(page.locator("#puzzle-turn")).to_contain_text("Coups à trouver")


def test_past_days_and_any_puzzle_by_id_can_be_opened(page: Any) -> None:
    page.get_by_test_id("daily-puzzle").click()
    expect(page.locator("#puzzle-title")).to_have_text("Seeing is believing")
    page.locator('#puzzle-archive button[data-date="2026-11-28"]').click()
    expect(page.locator("#puzzle-title")).to_have_text("Trade")
    page.locator('#puzzle-board [data-square="10"]').click()
    page.locator('#puzzle-board [data-square="14"]').click()
    expect(page.get_by_test_id("puzzle-feedback")).to_have_text(
        "10-14 wins too, but more slowly. Find the quickest win."
    )
    page.locator('#puzzle-board [data-square="9"]').click()
    page.locator('#puzzle-board [data-square="13"]').click()
    expect(page.get_by_test_id("puzzle-feedback")).to_have_text(
        "9-13 wins too, but this puzzle asks for another move. Find it."
    )
    page.get_by_test_id("puzzle-id").fill("double-jump")
    page.get_by_test_id("open-puzzle").click()
    expect(page.locator("#puzzle-title")).to_have_text("Double jump")
    page.locator('#puzzle-board [data-square="9"]').click()
    page.locator('#puzzle-board [data-square="18"]').click()
    page.locator('#puzzle-board [data-square="27"]').click()
    expect(page.get_by_test_id("puzzle-solved")).to_be_visible()
    expect(page.get_by_test_id("puzzle-streak")).to_have_text("0")  # an old puzzle does not count

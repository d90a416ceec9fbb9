"""The puzzle view's addresses and answers (issue 40): a day by ?date=, kept on reload; a day still
to come refused in words; no stale error; Next puzzle after Solved. The test server lives on
2026-11-29 (conftest), whose puzzle is Seeing is believing; 2026-11-28's is Trade."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def go(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("html[data-ready=true]")


def test_a_past_day_opens_by_its_date_and_keeps_it_on_reload(page: Any, daily_server: str) -> None:
    go(page, f"{daily_server}/puzzle?date=2026-11-28")
    expect(page.locator("#puzzle-title")).to_have_text("Trade")
    expect(page.locator("#puzzle-meta")).to_contain_text("2026-11-28")
    page.get_by_test_id("daily-puzzle").click()  # today's, then back to the archived day
    expect(page.locator("#puzzle-title")).to_have_text("Seeing is believing")
    page.locator('#puzzle-archive button[data-date="2026-11-28"]').click()
    expect(page).to_have_url(re.compile(r"/puzzle\?date=2026-11-28$"))
    page.reload()
    page.wait_for_selector("html[data-ready=true]")
    expect(page.locator("#puzzle-meta")).to_contain_text("2026-11-28")


def test_a_day_still_to_come_is_refused_with_todays_puzzle_shown(page: Any, daily_server: str) -> None:
    go(page, f"{daily_server}/puzzle?date=2026-12-25")
    expect(page.get_by_test_id("error")).to_have_text("2026-12-25 has not come yet: here is today's puzzle.")
    expect(page.locator("#puzzle-title")).to_have_text("Seeing is believing")


def test_a_valid_puzzle_clears_the_error_of_one_that_could_not_be_opened(page: Any, daily_server: str) -> None:
    go(page, f"{daily_server}/puzzle/no-such-puzzle")
    expect(page.get_by_test_id("error")).to_be_visible()
    page.get_by_test_id("puzzle-id").fill("double-jump")
    page.get_by_test_id("open-puzzle").click()
    expect(page.locator("#puzzle-title")).to_have_text("Double jump")
    expect(page.get_by_test_id("error")).to_be_hidden()


def test_after_solved_next_puzzle_opens_the_newest_day_not_solved(page: Any) -> None:
    page.get_by_test_id("daily-puzzle").click()
    expect(page.locator("#puzzle-title")).to_have_text("Seeing is believing")
    page.get_by_test_id("puzzle-id").fill("double-jump")
    page.get_by_test_id("open-puzzle").click()
    expect(page.locator("#puzzle-title")).to_have_text("Double jump")
    expect(page.get_by_test_id("puzzle-next")).to_be_hidden()
    for square in (9, 18, 27):
        page.locator(f'#puzzle-board [data-square="{square}"]').click()
    expect(page.get_by_test_id("puzzle-solved")).to_be_visible()
    page.get_by_test_id("puzzle-next").click()
    expect(page.locator("#puzzle-title")).to_have_text("Seeing is believing")
    expect(page.get_by_test_id("puzzle-next")).to_be_hidden()

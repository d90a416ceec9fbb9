"""The review of a finished game and the archive, in the browser.

The review's figures are the server's (/api/review streams them, /api/review/try judges a tried
move): here a canned stream answers in their place (Playwright's ``page.route``), so the page is
tested on known verdicts and figures. One test runs the real endpoints end to end.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from browser_support import DESKTOP, Play, held_back, overflowing_text, play_when_movable
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
#: Red 11-15 (an inaccuracy here), White 22-18 (a blunder), Red takes 15x22, White takes back 26x17 (a
#: mistake): the canned review's verdicts, one of each.
MOVES = [(11, 15), (22, 18), (15, 22), (26, 17)]
LICHESS = {"inaccuracy": "rgb(77, 163, 213)", "mistake": "rgb(230, 157, 0)", "blunder": "rgb(219, 48, 49)"}


def evaluation(win: float, score: int | None = 0, table: int | None = None) -> dict[str, Any]:
    return {"score": score, "win": win, "table_plies": table}


def ply(n: int, move: str, win: float, verdict: str | None = None, best: str | None = None, **more: Any) -> dict:
    return {
        "type": "ply",
        "ply": n,
        "side": "black" if n % 2 else "white",
        "move": move,
        "eval": evaluation(win, **more),
        "best": best,
        "line": [best, "15x24", "28x19"] if best else [],
        "loss": 28.0 if verdict else 0.5,
        "verdict": verdict,
        "accuracy": 30.0 if verdict else 98.0,
    }


PLIES = [
    ply(1, "11-15", 52, "inaccuracy", "9-14", score=8),
    ply(2, "22-18", 80, "blunder", "24-19", score=150),
    ply(3, "15x22", 78, score=140),
    ply(4, "26x17", 0, "mistake", "25x18", score=None, table=-9),
]
STANDARD = {"name": "standard", "nodes": 300000}
STANDARD_NOTE = "Standard: the engine searches 300,000 nodes in every position."
START = {"type": "start", "plies": 4, "budget": STANDARD, "initial": evaluation(50), "fen": "B:W..."}
DONE = {
    "type": "done",
    "accuracy": {"black": 96.5, "white": 41.2},
    "counts": {
        "black": {"inaccuracy": 1, "mistake": 0, "blunder": 0},
        "white": {"inaccuracy": 0, "mistake": 1, "blunder": 1},
    },
}


def ndjson(*lines: dict[str, Any]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


class Reviews:
    """The canned /api/review: each request is answered by the next of ``answers`` (status, body)
    and counted."""

    def __init__(self, page: Any, answers: list[tuple[int, str]]) -> None:
        self.answers = answers
        self.asked: list[dict[str, Any]] = []
        page.route("**/api/review", self.answer)

    def answer(self, route: Any) -> None:
        self.asked.append(json.loads(route.request.post_data))
        status, body = self.answers[min(len(self.asked), len(self.answers)) - 1]
        kind = "application/x-ndjson" if status == 200 else "application/json"
        route.fulfill(status=status, body=body, headers={"content-type": kind})


GOOD = (200, ndjson({"type": "queued", "position": 1}, START, *PLIES, DONE))


def finish_a_game_for_two(play: Play) -> None:
    play.start(opponent="local")
    for move in MOVES:
        play.move(*move)
    play.hook("resign").click()
    play.hook("confirm").click()
    expect(play.hook("result")).to_be_visible()


def open_review(play: Play) -> None:
    play.hook("review-game").click()
    expect(play.page.locator("#review-view")).to_be_visible()


@pytest.fixture
def reviewed(new_play: Callable[..., Play]) -> Callable[..., tuple[Play, Reviews]]:
    """A finished game for two players opened in its review, the review answered by ``answers``."""

    def make(
        answers: list[tuple[int, str]] = [GOOD],  # noqa: B006
        viewport: dict[str, int] = DESKTOP,
        init_script: str | None = None,
    ) -> tuple[Play, Reviews]:
        play = new_play(viewport=viewport, init_script=init_script)
        reviews = Reviews(play.page, answers)
        finish_a_game_for_two(play)
        open_review(play)
        return play, reviews

    return make


def test_a_review_shows_accuracy_the_graph_and_verdicts_and_each_move_in_detail(reviewed):
    play, reviews = reviewed()
    page = play.page
    counts = "Inaccuracies: {} · Mistakes: {} · Blunders: {}"
    expect(play.hook("accuracy-black")).to_contain_text("Red 96.5% accuracy " + counts.format(1, 0, 0))
    expect(play.hook("accuracy-white")).to_contain_text("White 41.2% accuracy " + counts.format(0, 1, 1))
    expect(play.hook("review-budget-note")).to_have_text(STANDARD_NOTE)
    assert reviews.asked[0]["budget"] == "standard" and "11-15" in reviews.asked[0]["pdn"]
    expect(play.hook("review-progress")).to_be_hidden()

    dots = page.locator("[data-testid=review-graph] .graph-dot")
    expect(dots).to_have_count(3)
    for verdict, colour in LICHESS.items():
        fill = page.locator(f".graph-dot.verdict-{verdict} circle").evaluate("c => getComputedStyle(c).fill")
        assert fill == colour
    moves = page.locator("[data-testid=review-moves] li")
    expect(moves.nth(1)).to_have_attribute("data-verdict", "blunder")
    expect(moves.nth(0)).to_have_text("11-15 ?!")
    expect(moves.nth(1)).to_have_text("22-18 ??")
    expect(moves.nth(3)).to_have_text("26x17 ?")

    expect(play.hook("review-where")).to_have_text("After 2… 26x17")  # the review opens at the end
    table_win = "White wins (endgame tables): a capture or a man's move within 9 plies."
    expect(play.hook("review-eval")).to_have_text(table_win)
    page.locator(".graph-dot.verdict-blunder").click()
    expect(play.hook("review-where")).to_have_text("After 1… 22-18")
    expect(play.hook("review-verdict")).to_have_text("Blunder: 28 points of winning chances lost.")
    expect(play.hook("review-best")).to_have_text("The engine prefers 24-19. Its line: 24-19 15x24 28x19")
    expect(play.hook("review-eval")).to_have_text("Evaluation +1.50 for Red (in men); winning chances 80%.")
    expect(page.locator("#review-board [data-square='18'] [data-piece]")).to_have_attribute("data-color", "white")
    expect(page.locator("#review-board [data-square='18'] .last-move")).to_have_count(1)
    expect(play.hook("review-analyse")).to_have_attribute("href", re.compile(r"^/analysis\?fen=[BW]%3A"))

    page.locator(".graph-dot.verdict-mistake").focus()  # the dots are reached and chosen by keyboard
    page.keyboard.press("Enter")
    expect(play.hook("review-where")).to_have_text("After 2… 26x17")
    page.keyboard.press("Home")
    expect(play.hook("review-where")).to_have_text("The starting position")
    page.keyboard.press("ArrowRight")
    expect(play.hook("review-where")).to_have_text("After 1. 11-15")
    moves.nth(2).locator("button").click()
    expect(play.hook("review-where")).to_have_text("After 2. 15x22")
    play.screenshot("review-desktop")
    play.hook("review-analyse").click()  # the analysis board opens on the position shown
    expect(page).to_have_url(re.compile(r"/analysis\?fen=W%3A"))
    expect(page.locator("#analysis-board [data-square='22'] [data-piece]")).to_have_attribute("data-color", "black")
    expect(page.locator("#analysis-board [data-square='18'] [data-piece]")).to_have_count(0)


def test_learn_from_your_mistakes_asks_for_a_better_move_and_shows_the_engines_after_a_second_miss(reviewed):
    play, _ = reviewed()
    page = play.page
    missed = {"found": False, "best": "24-19"}
    answers = iter([missed, missed, {"found": True, "best": "25x18"}])
    tried: list[dict[str, Any]] = []

    def judge(route: Any) -> None:
        tried.append(json.loads(route.request.post_data))
        answer = json.dumps({"loss": 0.0, "line": [], **next(answers)})
        route.fulfill(status=200, body=answer, headers={"content-type": "application/json"})

    page.route("**/api/review/try", judge)
    play.hook("learn-start").click()
    expect(play.hook("learn-question")).to_have_text("1 of 2: White played 22-18 here (Blunder). Find a better move.")
    board = page.locator("#review-board")

    def play_on_the_board(*squares: int) -> None:
        play_when_movable(board, *squares)  # a question shows before its position (/api/state) has come

    play_on_the_board(24, 20)
    expect(play.hook("learn-feedback")).to_have_text("24-20 is not better. Try again.")
    assert (tried[0]["ply"], tried[0]["move"], tried[0]["budget"]) == (2, "24-20", "standard")
    play_on_the_board(23, 19)
    expect(play.hook("learn-feedback")).to_have_text("Not found. The engine plays 24-19 (marked on the board).")
    expect(board.locator("[data-square='24'] .hint-mark")).to_have_count(1)
    expect(board.locator("[data-movable=true]")).to_have_count(0)  # one question, one move
    play.hook("learn-next").click()
    expect(play.hook("learn-question")).to_have_text("2 of 2: White played 26x17 here (Mistake). Find a better move.")
    play_on_the_board(25, 18)
    expect(play.hook("learn-feedback")).to_have_text("Well found: 25x18 is as good as the engine's move.")
    play.hook("learn-next").click()
    expect(play.hook("learn-question")).to_have_text("That was the last of your mistakes in this game.")


def test_the_server_reviews_a_finished_game_which_is_kept_in_the_archive_and_costs_no_request_again(new_play):
    """End to end, with the server's own review (the engine's searches, at the standard budget)."""
    play = new_play()
    page = play.page
    reviews: list[str] = []
    page.on("request", lambda request: request.url.endswith("/api/review") and reviews.append(request.url))
    finish_a_game_for_two(play)
    open_review(play)
    done = {"timeout": 120_000}  # five searches of 300,000 nodes on a busy machine
    expect(play.hook("accuracy-black")).to_contain_text(re.compile(r"Red [\d.]+% accuracy"), **done)
    expect(play.hook("review-budget-note")).to_have_text(STANDARD_NOTE)
    expect(page.locator("[data-testid=review-graph] .graph-area")).to_have_count(1)
    expect(play.hook("review-where")).to_have_text("After 2… 26x17")
    figures = play.hook("review-accuracy").text_content()

    play.hook("archive").click()
    entries = page.locator("[data-testid=archive-entry]")
    expect(entries).to_have_count(1)
    expect(entries.first).to_contain_text("Two players")
    expect(entries.first).to_contain_text("Moves: 4")
    expect(entries.first).to_contain_text("reviewed")
    entries.first.click()
    # The review view of before is still in the page (hidden) with the same figures: wait for the
    # entry's own address, which the reload below must find.
    expect(page).to_have_url(re.compile(r"/review/[A-Za-z0-9_-]+$"))
    expect(page.locator("#review-view")).to_be_visible()
    expect(play.hook("review-accuracy")).to_have_text(figures)
    page.reload()
    page.wait_for_selector("html[data-ready=true]")
    expect(play.hook("review-accuracy")).to_have_text(figures)
    assert len(reviews) == 1
    play.hook("review-archive").click()
    expect(page).to_have_url(re.compile(r"/archive$"))
    page.locator("#modes [data-mode=play]").click()
    expect(page.locator("#board")).to_be_visible()


def test_a_refusal_and_an_error_midway_are_said_and_the_game_stays_to_review_again(reviewed):
    busy = (409, json.dumps({"error": "a review of yours is running"}))
    midway = (200, ndjson(START, PLIES[0], {"type": "error", "message": "The engine stopped."}))
    play, reviews = reviewed([busy, midway, GOOD])
    expect(play.hook("review-message")).to_have_text(
        "A review of yours is already running: wait until it has finished, then try again."
    )
    play.hook("review-again").click()
    stopped = "The review stopped: The engine stopped. Your game is kept; try again."
    expect(play.hook("review-message")).to_have_text(stopped)
    expect(play.page.locator("[data-testid=review-moves] li")).to_have_count(4)
    play.hook("review-budget").select_option("deep")
    play.hook("review-step-first").click()  # the panel redraws: the budget picked stays picked
    expect(play.hook("review-budget")).to_have_value("deep")
    play.hook("review-again").click()
    expect(play.hook("accuracy-white")).to_contain_text("41.2%")
    assert [asked["budget"] for asked in reviews.asked] == ["standard", "standard", "deep"]


def test_a_pasted_game_is_reviewed_and_a_text_that_does_not_parse_is_refused_in_the_dialog(play):
    Reviews(play.page, [GOOD])
    play.hook("import-pdn").click()
    play.hook("pdn-text").fill("1. 11-15 22-18 2. 15-99 *")
    play.hook("pdn-review").click()
    expect(play.page.locator("#pdn-error")).not_to_be_empty()
    expect(play.hook("pdn-text")).to_have_value("1. 11-15 22-18 2. 15-99 *")  # kept, to mend
    play.hook("pdn-text").fill("B:W18,24:B12,16")
    play.hook("pdn-review").click()
    expect(play.page.locator("#pdn-error")).to_contain_text("nothing to review")
    play.hook("pdn-text").fill("1. 11-15 22-18 2. 15x22 26x17 *")
    play.hook("pdn-review").click()
    expect(play.hook("accuracy-white")).to_contain_text("41.2%")
    expect(play.page).to_have_url(re.compile(r"/review$"))


HOSTILE = """
const fen = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12";
const good = {id: "good1", date: "2026-01-02T03:04:05.000Z", kind: "computer", level: "club", player: "black",
  result: {winner: "black", reason: "resigned"},
  record: {setup: {variant: "american", fen, seed: "s"}, moves: ["11-15"]},
  pdn: "1. 11-15 *", review: {plies: "<img src=x onerror=alert(1)>"}};
const bad = [null, 7, "x", {id: "<b>x</b>"}, {...good, id: "bad2", kind: "<script>"},
  {...good, id: "bad3", record: {setup: {}, moves: [{}]}},
  {...good, id: "bad4", result: {winner: "purple", reason: "x"}},
  {...good, id: "bad5", date: 1e400}];
localStorage.setItem("kingme.archive", JSON.stringify({version: 1, games: [...bad, good, good]}));
"""


CORRUPT = 'localStorage.setItem("kingme.archive", "{not json");'


@pytest.mark.parametrize("stored", [HOSTILE, CORRUPT], ids=["hostile", "corrupt"])
def test_hostile_or_corrupt_stored_games_do_not_break_the_page(new_play, stored):
    play = new_play(init_script=stored)
    play.hook("archive").click()
    entries = play.page.locator("[data-testid=archive-entry]")
    if stored is HOSTILE:
        expect(entries).to_have_count(1)
        expect(entries.first).to_contain_text("Computer · Club")
        expect(entries.first).not_to_contain_text("reviewed")  # its review could not be read
    else:
        expect(play.hook("archive-empty")).to_be_visible()
    play.page.locator("#modes [data-mode=play]").click()
    play.start(opponent="local")  # the page still plays
    play.move(11, 15)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_the_review_fits_a_laptop_and_a_phone(reviewed, viewport):
    play, _ = reviewed(viewport=viewport)
    page = play.page
    expect(play.hook("accuracy-white")).to_contain_text("41.2%")
    board = page.locator("#review-board").bounding_box()
    graph = page.locator("[data-testid=review-graph]").bounding_box()
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    if viewport is PHONE:
        assert board["width"] >= 370, board
        assert graph["width"] >= 330 and graph["x"] >= 0 and graph["x"] + graph["width"] <= viewport["width"]
    else:
        assert board["width"] >= 600, board
        assert graph["x"] >= board["x"] + board["width"]  # beside the board
        assert graph["y"] + graph["height"] <= viewport["height"]
    play.screenshot(f"review-{viewport['width']}")
    if viewport is PHONE:  # the header has no room for the archive: "Your record" leads to it
        page.locator("#modes [data-mode=play]").click()
        play.hook("record-archive").click()
        expect(page.locator("[data-testid=archive-entry]")).to_have_count(1)


def test_the_review_and_the_archive_fit_their_words_in_every_language_on_a_phone(reviewed):
    play, _ = reviewed(viewport=PHONE)
    page = play.page
    expect(play.hook("accuracy-white")).to_contain_text("41.2")
    for view in ("review", "archive"):
        for language in ("es", "fr", "de", "pt", "en"):
            play.hook("open-settings").click()
            play.hook("language").select_option(language)
            expect(page.locator("html")).to_have_attribute("lang", language)
            page.keyboard.press("Escape")
            assert not overflowing_text(page), f"{view} in {language}: {overflowing_text(page)}"
        if view == "review":
            play.hook("review-archive").click()
            expect(play.hook("archive-entry")).to_have_count(1)


#: A browser whose storage is full for the archive with a review in it (a game alone still fits).
QUOTA = """
const setItem = Storage.prototype.setItem;
Storage.prototype.setItem = function (key, value) {
  if (key === "kingme.archive" && value.includes('"review":{')) throw new DOMException("full", "QuotaExceededError");
  return setItem.call(this, key, value);
};
"""


def test_a_full_storage_keeps_the_game_without_its_review(reviewed):
    play, reviews = reviewed(init_script=QUOTA)
    page = play.page
    expect(play.hook("accuracy-white")).to_contain_text("41.2%")  # shown, though it could not be stored
    page.reload()
    page.wait_for_selector("html[data-ready=true]")
    expect(play.hook("accuracy-white")).to_contain_text("41.2%")  # reviewed again, the game was kept
    assert len(reviews.asked) == 2


def serious_violations(page: Any) -> list[str]:
    """axe-core's serious or critical findings on the page as shown."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [
        f"{violation['id']}: {[node['target'] for node in violation['nodes']][:3]}"
        for violation in results.response["violations"]
        if violation["impact"] in ("serious", "critical")
    ]


def test_the_review_and_the_archive_have_no_serious_accessibility_violation(reviewed):
    play, _ = reviewed()
    expect(play.hook("accuracy-white")).to_contain_text("41.2%")
    assert not serious_violations(play.page), "the review"
    play.hook("review-archive").click()
    expect(play.hook("archive-entry")).to_have_count(1)
    assert not serious_violations(play.page), "the archive"


def test_an_archive_opened_before_the_finished_game_is_kept_shows_it_once_kept(play):
    """A game is kept once the server has written its PDN; here that answer is held back 1.5 s, so
    the archive opens first and must then list the game without being opened again."""
    play.page.add_init_script(held_back("/api/pdn/export"))
    play.page.reload()
    play.page.wait_for_selector("html[data-ready=true]")
    play.start(opponent="computer", level="casual", position="double-jump")
    play.click(9, 18, 27)
    expect(play.hook("result")).to_have_text("Red wins")
    play.hook("archive").click()
    expect(play.hook("archive-entry")).to_contain_text(re.compile(r"Computer · Casual.*you: Red.*Won.*Moves: 1"))

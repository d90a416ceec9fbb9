"""The HTTP routes of the daily game and the puzzles, bad input included."""

from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

from kingme.daily.daily_game import daily_game
from kingme.daily.puzzles.model import OTHER_WINS
from kingme.game import Game
from kingme.server.app import WEB_DIR

from .conftest import TODAY


def test_the_daily_game_of_today_comes_with_its_setup_and_first_state(client: TestClient) -> None:
    answer = client.get("/api/daily/game")
    assert answer.status_code == 200
    data = answer.json()
    assert data["date"] == "2026-11-29"
    assert data["level"] == "club"
    assert data["player"] == "black"
    assert data["setup"]["seed"] == "daily-2026-11-29"
    assert data["undo"] is False and data["hint"] is False
    assert data["state"]["record"]["setup"] == data["setup"]


def test_a_past_daily_game_can_be_asked_for_but_not_a_future_one(client: TestClient) -> None:
    assert client.get("/api/daily/game?date=2026-11-28").json()["player"] == "white"
    future = client.get("/api/daily/game?date=2026-11-30")
    assert future.status_code == 404
    assert "has not come yet" in future.json()["error"]


@pytest.mark.parametrize("path", ["/api/undo", "/api/hint"])
def test_takebacks_and_hints_are_refused_in_the_daily_game(client: TestClient, path: str) -> None:
    game = Game(daily_game(TODAY).setup, ["11-15", "22-18"])
    body = {"record": game.record()}
    if path == "/api/undo":
        body["turns"] = 2
    answer = client.post(path, json=body)
    assert answer.status_code == 422
    assert "daily game" in answer.json()["error"]


def test_the_daily_game_refuses_another_level_than_club(client: TestClient) -> None:
    record = Game(daily_game(TODAY).setup, ["11-15"]).record()
    answer = client.post("/api/computer", json={"record": record, "level": "master"})
    assert answer.status_code == 422
    assert "club" in answer.json()["error"]
    assert client.post("/api/computer", json={"record": record, "level": "club"}).status_code == 200


def test_the_puzzle_of_the_day_is_stable_and_hides_its_solution(client: TestClient) -> None:
    first = client.get("/api/daily/puzzle").json()
    assert first == client.get("/api/daily/puzzle?date=2026-11-29").json()
    assert first["date"] == "2026-11-29"
    # 2026-11-29 is day 332 after the first daily puzzle (2026-01-01); 332 % 3 == 2.
    assert first["id"] == "seeing-is-believing"
    assert "solution" not in first
    assert first["state"]["turn"] == first["solver"]
    assert first["state"]["moves"]


def test_the_archive_lists_past_days_newest_first(client: TestClient) -> None:
    days = client.get("/api/puzzles/archive?days=5").json()["days"]
    assert [d["date"] for d in days] == ["2026-11-29", "2026-11-28", "2026-11-27", "2026-11-26", "2026-11-25"]
    assert days[0]["id"] == client.get("/api/daily/puzzle").json()["id"]
    assert days[1]["id"] == client.get("/api/daily/puzzle?date=2026-11-28").json()["id"]


def test_a_puzzle_is_solved_move_by_move_with_the_defenders_replies(client: TestClient) -> None:
    assert client.get("/api/puzzles/opening-trade").json()["solverMoves"] == 2
    first = client.post("/api/puzzles/opening-trade/move", json={"ply": 0, "move": "11-15"}).json()
    assert first["correct"] and first["reply"] == "22-18" and first["ply"] == 2 and not first["solved"]
    last = client.post("/api/puzzles/opening-trade/move", json={"ply": 2, "move": "15x22"}).json()
    assert last["correct"] and last["solved"] and last["reply"] is None


def test_first_position_is_played_to_its_end_against_the_longest_defence(client: TestClient) -> None:
    client.app.state.puzzles = None  # the package's own collection
    assert client.get("/api/puzzles/first-position").json()["source"].startswith("First Position (Payne, 1756)")
    replies = []
    for ply, move in enumerate(("23-27", "19-23", "27-32", "23-18")):
        answer = client.post("/api/puzzles/first-position/move", json={"ply": 2 * ply, "move": move}).json()
        assert answer["correct"]
        replies.append(answer["reply"])
    assert replies == ["28-32", "32-28", "28-24", None] and answer["solved"]
    slower = client.post("/api/puzzles/first-position/move", json={"ply": 0, "move": "23-18"}).json()
    assert slower["other_win"] == "slower" and not slower["correct"]


def test_a_wrong_move_is_told_and_changes_nothing(client: TestClient) -> None:
    wrong = client.post("/api/puzzles/opening-trade/move", json={"ply": 0, "move": "12-16"}).json()
    assert wrong["correct"] is False and wrong["other_win"] is None and wrong["ply"] == 0 and not wrong["solved"]
    assert wrong["state"]["fen"] == client.get("/api/puzzles/opening-trade").json()["state"]["fen"]


@pytest.mark.parametrize(("move", "listed"), [("10-14", "slower"), ("9-13", "also_wins")])
def test_a_move_the_puzzle_lists_as_another_win_is_told_with_its_list(
    client: TestClient, move: str, listed: str
) -> None:
    answer = client.post("/api/puzzles/opening-trade/move", json={"ply": 0, "move": move}).json()
    assert answer["correct"] is False and answer["other_win"] == listed and answer["ply"] == 0
    assert not set(OTHER_WINS) & set(client.get("/api/puzzles/opening-trade").json())  # the lists stay here


def test_the_page_has_a_message_for_every_list_of_other_wins() -> None:
    english = json.loads((WEB_DIR / "i18n" / "en.json").read_text())["daily"]["otherWin"]
    assert set(english) == set(OTHER_WINS)


def test_a_hint_reveals_the_next_move_with_its_route(client: TestClient) -> None:
    hint = client.post("/api/puzzles/seeing-is-believing/hint", json={"ply": 10}).json()
    assert hint["move"] == "1x10x3x12x19x28"
    assert hint["captures"] == [6, 7, 8, 16, 24]


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "words"),
    [
        ("get", "/api/puzzles/no-such-puzzle", None, 404, "no puzzle"),
        ("get", "/api/daily/puzzle?date=2025-12-31", None, 404, "start on"),
        ("get", "/api/daily/puzzle?date=2026-02-30", None, 422, "not a day"),
        ("get", "/api/daily/game?date=yesterday", None, 422, "YYYY-MM-DD"),
        ("get", "/api/puzzles/archive?days=0", None, 400, "days"),
        ("get", "/api/puzzles/archive?days=many", None, 400, "days"),
        ("post", "/api/puzzles/opening-trade/move", {"ply": 0}, 400, "needs a 'move'"),
        ("post", "/api/puzzles/opening-trade/move", {"ply": 1, "move": "22-18"}, 422, "ply"),
        ("post", "/api/puzzles/opening-trade/move", {"ply": 4, "move": "11-15"}, 422, "ply"),
        ("post", "/api/puzzles/opening-trade/move", {"ply": "0", "move": "11-15"}, 422, "ply"),
        ("post", "/api/puzzles/opening-trade/move", {"ply": 0, "move": "11-17"}, 422, "not legal"),
        ("post", "/api/puzzles/opening-trade/move", {"ply": 0, "move": ["x"]}, 422, "move text"),
        ("post", "/api/puzzles/opening-trade/move", {"ply": 0, "move": "11-15", "x": 1}, 400, "unknown field"),
        ("post", "/api/puzzles/opening-trade/hint", {"ply": True}, 422, "ply"),
        ("post", "/api/puzzles/opening-trade/hint", [], 400, "JSON object"),
    ],
)
def test_bad_requests_get_a_4xx_answer_naming_the_problem(
    client: TestClient, method: str, path: str, body: object, status: int, words: str
) -> None:
    answer = client.get(path) if method == "get" else client.post(path, json=body)
    assert answer.status_code == status, answer.text
    assert words in answer.json()["error"]


def test_a_body_that_is_not_json_is_refused(client: TestClient) -> None:
    answer = client.post("/api/puzzles/opening-trade/move", content=b"{not json")
    assert answer.status_code == 400
    assert "JSON" in answer.json()["error"]


def test_every_puzzle_of_the_stored_collection_is_served_and_its_first_move_accepted(client: TestClient) -> None:
    from kingme.daily.puzzles import stored_collection

    client.app.state.puzzles = None  # the package's own collection
    today = client.get("/api/daily/puzzle").json()
    assert today["id"] == stored_collection().of_the_day(TODAY).id
    for puzzle in stored_collection().puzzles:
        answer = client.post(f"/api/puzzles/{puzzle.id}/move", json={"ply": 0, "move": puzzle.solution[0]}).json()
        assert answer["correct"] and answer["solved"] == (len(puzzle.solution) == 1)


def test_the_stored_calendar_serves_past_days_and_still_a_puzzle_after_its_end(client: TestClient) -> None:
    from datetime import timedelta

    from kingme.daily.puzzles import stored_collection

    client.app.state.puzzles = None  # the package's own collection and calendar
    calendar = stored_collection().schedule
    assert client.get("/api/daily/puzzle?date=2026-04-11").json()["id"] == "g-986660732f"
    client.app.state.today = calendar.last_day + timedelta(1)
    after = client.get("/api/daily/puzzle").json()
    assert after["id"] == calendar.ids[0]  # the calendar starts over from 2026-01-01
    days = client.get("/api/puzzles/archive?days=2").json()["days"]
    assert [d["id"] for d in days] == [calendar.ids[0], calendar.ids[-1]]
    assert client.get(f"/api/daily/puzzle?date={calendar.last_day + timedelta(2)}").status_code == 404

"""Game review over HTTP: a stream of JSON lines per game, refusals naming the problem before it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from async_support import run
from starlette.testclient import TestClient

from kingme.game import Game, Setup
from kingme.game.pdn import game_to_pdn
from kingme.review.budgets import BUDGETS
from kingme.review.review import MAX_REVIEW_PLIES
from kingme.server.app import create_app
from kingme.server.review import MAX_WAITING, ReviewDesk, _review_lines, _ReviewStream, review_slots
from kingme.server.settings import Settings

#: Black (king on 1, man on 10) against White's king on 18, Black to move: a win for Black in the
#: tables, thrown into a draw by 10-14 (18x9 takes the man).
BLUNDER = game_to_pdn(Game(Setup(fen="B:WK18:B10,K1"), ["10-14", "18x9"]))
OPENING = game_to_pdn(Game(moves=["11-15", "23-19", "8-11", "22-17"]))


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    settings = Settings(data_dir=Path(tmp_path_factory.mktemp("data")), engine_workers=1)
    with TestClient(create_app(settings), raise_server_exceptions=False) as test_client:
        yield test_client


def lines(response: Any) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/x-ndjson")
    return [json.loads(line) for line in response.text.splitlines()]


def refused(response: Any, status: int, *words: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["code"]
    for word in words:
        assert word.lower() in response.json()["error"].lower(), response.json()["error"]


# -- reviews ------------------------------------------------------------------------------------


def test_a_review_streams_start_each_ply_in_order_and_done(client: TestClient) -> None:
    messages = lines(client.post("/api/review", json={"pdn": OPENING}))
    start, *plies, done = messages
    assert start["type"] == "start" and start["plies"] == 4
    assert start["budget"] == {"name": "standard", "nodes": BUDGETS["standard"].nodes}
    assert start["fen"] == Setup().fen and set(start["initial"]) == {"score", "win", "table_plies"}
    assert [p["type"] for p in plies] == ["ply"] * 4
    assert [(p["ply"], p["side"], p["move"]) for p in plies] == [
        (1, "black", "11-15"),
        (2, "white", "23-19"),
        (3, "black", "8-11"),
        (4, "white", "22-17"),
    ]
    assert {"eval", "best", "line", "loss", "verdict", "accuracy"} <= set(plies[0])
    assert done["type"] == "done" and set(done["accuracy"]) == set(done["counts"]) == {"black", "white"}
    assert set(done["counts"]["black"]) == {"inaccuracy", "mistake", "blunder"}


def test_a_blunder_is_judged_and_a_table_win_shown_in_plies(client: TestClient) -> None:
    start, blunder, capture, done = lines(client.post("/api/review", json={"pdn": BLUNDER, "budget": "standard"}))
    assert start["initial"]["score"] is None and start["initial"]["win"] == 100.0
    assert start["initial"]["table_plies"] > 0
    assert blunder["verdict"] == "blunder" and blunder["loss"] == 50.0 and blunder["best"] != "10-14"
    assert blunder["eval"] == {"score": 0, "win": 50.0, "table_plies": None}
    assert capture["forced"] is True and capture["verdict"] is None
    assert done["counts"]["black"]["blunder"] == 1


def test_the_deep_budget_is_named_in_the_start_line(client: TestClient) -> None:
    start = lines(client.post("/api/review", json={"pdn": BLUNDER, "budget": "deep"}))[0]
    assert start["budget"] == {"name": "deep", "nodes": BUDGETS["deep"].nodes}


# -- refusals -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({}, 400, ["pdn"]),
        ({"pdn": 7}, 400, ["pdn"]),
        ({"pdn": "   "}, 400, ["pdn"]),
        ({"pdn": OPENING, "colour": "red"}, 400, ["unknown field", "colour"]),
        ({"pdn": OPENING, "budget": "forever"}, 400, ["forever", "standard, deep"]),
        ({"pdn": "1. 11-15 [oops"}, 422, []),
        ({"pdn": "1. 11-15 23-19 2. 11-16 *"}, 422, ["11-16"]),
        ({"pdn": '[Event "empty"]\n*'}, 422, ["no moves"]),
        ({"pdn": "1. 11-15 * 1. 9-14 *"}, 422, ["2 games", "send one"]),
        ({"pdn": "x" * 200_001}, 413, ["at most"]),
    ],
)
def test_a_bad_request_is_refused_naming_the_problem(
    client: TestClient, body: dict[str, Any], status: int, words: list[str]
) -> None:
    refused(client.post("/api/review", json=body), status, *words)


def test_a_game_of_thousands_of_plies_is_refused_before_it_is_replayed(client: TestClient) -> None:
    plies = 3 * MAX_REVIEW_PLIES
    text = " ".join(f"{n}. 11-15 23-19" for n in range(1, plies // 2 + 1)) + " *"  # illegal after move 1
    refused(client.post("/api/review", json={"pdn": text}), 422, f"{plies:,} plies", f"at most {MAX_REVIEW_PLIES}")


def test_a_body_that_is_not_json_is_refused(client: TestClient) -> None:
    response = client.post("/api/review", content=b"not json", headers={"content-type": "application/json"})
    refused(response, 400, "json")


def test_a_second_review_from_the_same_visitor_is_refused_while_one_runs(client: TestClient) -> None:
    desk: ReviewDesk = client.app.state.reviews  # type: ignore[attr-defined]
    ticket = desk.admit("testclient")  # the test client's address: a review of its own is running
    try:
        refused(client.post("/api/review", json={"pdn": OPENING}), 409, "still running")
    finally:
        desk.leave(ticket)
    assert lines(client.post("/api/review", json={"pdn": BLUNDER}))[0]["type"] == "start"


# -- learn from your mistakes -------------------------------------------------------------------


def test_a_winning_move_tried_instead_of_the_blunder_is_found(client: TestClient) -> None:
    answer = client.post("/api/review/try", json={"pdn": BLUNDER, "ply": 1, "move": "1-5"}).json()
    assert answer["found"] is True and answer["loss"] == 0.0
    assert answer["best"] and answer["line"] and answer["line"][0] == answer["best"]


def test_the_games_own_move_tried_again_is_not_found(client: TestClient) -> None:
    answer = client.post("/api/review/try", json={"pdn": BLUNDER, "ply": 1, "move": "10-14"}).json()
    assert answer["found"] is False and answer["loss"] == 50.0


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"pdn": BLUNDER, "ply": 1}, 400, ["move"]),
        ({"pdn": BLUNDER, "ply": 1, "move": 15}, 400, ["move"]),
        ({"pdn": BLUNDER, "ply": 1, "move": "1-5" * 20}, 400, ["move"]),
        ({"pdn": BLUNDER, "move": "1-5"}, 400, ["ply"]),
        ({"pdn": BLUNDER, "ply": True, "move": "1-5"}, 400, ["ply"]),
        ({"pdn": BLUNDER, "ply": 3, "move": "1-5"}, 422, ["ply 3", "1 to 2"]),
        ({"pdn": BLUNDER, "ply": 0, "move": "1-5"}, 422, ["ply 0"]),
        ({"pdn": BLUNDER, "ply": 1, "move": "1-10"}, 422, ["1-10"]),
        ({"pdn": "1. 11-15 23-19 2. 11-16 *", "ply": 1, "move": "9-14"}, 422, ["11-16"]),
        ({"pdn": BLUNDER, "ply": 1, "move": "1-5", "budget": "huge"}, 400, ["huge"]),
    ],
)
def test_a_bad_try_is_refused_naming_the_problem(
    client: TestClient, body: dict[str, Any], status: int, words: list[str]
) -> None:
    refused(client.post("/api/review/try", json=body), status, *words)


def test_a_second_try_from_the_same_visitor_is_refused_while_one_runs(client: TestClient) -> None:
    trying: set[str] = client.app.state.review_tries  # type: ignore[attr-defined]
    trying.add("testclient")
    try:
        body = {"pdn": BLUNDER, "ply": 1, "move": "1-5"}
        refused(client.post("/api/review/try", json=body), 409, "still being tried")
    finally:
        trying.discard("testclient")


# -- sharing the engine -------------------------------------------------------------------------


def test_a_review_leaves_one_worker_free_for_computer_moves() -> None:
    assert [review_slots(workers) for workers in (1, 2, 3, 8)] == [1, 1, 2, 7]


def test_reviews_wait_in_line_and_are_told_their_place() -> None:
    async def scenario() -> list[object]:
        desk = ReviewDesk()
        first, second, third = desk.admit("a"), desk.admit("b"), desk.admit("c")
        places: list[object] = []

        async def wait(ticket: object) -> None:
            async for ahead in desk.turn(ticket):  # type: ignore[arg-type]
                places.append((ticket.visitor, ahead))  # type: ignore[attr-defined]
            places.append((ticket.visitor, "runs"))  # type: ignore[attr-defined]

        waiting = [asyncio.ensure_future(wait(t)) for t in (second, third)]
        await asyncio.sleep(0)
        desk.leave(first)
        await asyncio.sleep(0)
        desk.leave(second)
        await asyncio.gather(*waiting)
        return places

    assert run(scenario()) == [("b", 1), ("c", 2), ("b", "runs"), ("c", 1), ("c", "runs")]


def test_one_visitor_has_one_review_and_the_line_has_a_limit() -> None:
    async def scenario() -> None:
        desk = ReviewDesk()
        desk.admit("a")
        with pytest.raises(Exception, match="still running"):
            desk.admit("a")
        for n in range(MAX_WAITING):
            desk.admit(f"v{n}")
        with pytest.raises(Exception, match="try again"):
            desk.admit("late")

    run(scenario())


class _Engine:
    """An engine double: runs the work at once (``hold`` makes every call wait until ``release``
    is set), and counts the calls, the calls in flight and the most at once."""

    def __init__(self, hold: bool = False) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        if not hold:
            self.release.set()
        self.calls = self.in_flight = self.most = 0

    async def run(self, function: Callable[..., Any], *args: Any) -> Any:
        self.calls += 1
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        self.started.set()
        try:
            await self.release.wait()
            await asyncio.sleep(0)  # let the other calls start
            return function(*args)
        finally:
            self.in_flight -= 1


def _stream(engine: _Engine, desk: ReviewDesk, pdn: str, slots: asyncio.Semaphore) -> _ReviewStream:
    from kingme.game.pdn import games_from_pdn

    ticket = desk.admit("visitor")
    lines = _review_lines(engine, desk, ticket, games_from_pdn(pdn)[0], BUDGETS["standard"], slots)
    return _ReviewStream(lines, lambda: desk.leave(ticket))


def test_positions_are_searched_in_order_with_at_most_the_engine_slots_in_flight() -> None:
    async def scenario() -> tuple[int, list[dict[str, Any]]]:
        engine, desk, sent = _Engine(), ReviewDesk(), []

        async def receive() -> dict[str, Any]:
            await asyncio.Event().wait()  # the client never leaves
            return {}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await _stream(engine, desk, OPENING, asyncio.Semaphore(2))({"type": "http"}, receive, send)
        body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
        return engine.most, [json.loads(line) for line in body.splitlines()]

    most, messages = run(scenario())
    assert most == 2
    assert [m["type"] for m in messages] == ["start", "ply", "ply", "ply", "ply", "done"]


def test_a_client_that_leaves_stops_its_review_and_its_worker_is_given_back_when_done() -> None:
    async def scenario() -> tuple[int, bool, int, bool]:
        engine, desk, slots = _Engine(hold=True), ReviewDesk(), asyncio.Semaphore(1)

        async def receive() -> dict[str, Any]:
            await engine.started.wait()  # the first search is running: now the client goes away
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            pass

        await _stream(engine, desk, OPENING, slots)({"type": "http"}, receive, send)
        held_while_running = slots.locked()
        engine.release.set()  # the worker finishes its search
        while engine.in_flight:
            await asyncio.sleep(0)
        await asyncio.sleep(0)
        desk.admit("visitor")  # the place in line was given up: the same visitor may ask again
        return engine.calls, held_while_running, engine.in_flight, slots.locked()

    calls, held_while_running, in_flight, locked_after = run(scenario())
    assert calls == 1  # no other position was sent after the client left
    assert held_while_running and in_flight == 0 and not locked_after

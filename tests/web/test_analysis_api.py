"""The analysis board's API: a stream of the best lines depth after depth, one stream per
visitor, PDN of the board's tree; a 4xx naming the problem for bad input, before any stream."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from async_support import run
from starlette.testclient import TestClient
from waiting import WAIT_SECONDS

from kingme.game import Game
from kingme.review.lines import Lines
from kingme.rules.fen import START_FEN
from kingme.server import analysis
from kingme.server.app import create_app
from kingme.server.review import ReviewEngine
from kingme.server.settings import Settings

T = TypeVar("T")


class ThreadEngine:
    """The engine pool's ``run`` in a thread of the test's process (no workers to start)."""

    async def choose_move(self, record: dict[str, Any], level: str) -> str:
        return "11-15"

    async def hint(self, record: dict[str, Any]) -> str:
        return "11-15"

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(function, *args)

    def close(self) -> None:
        pass


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    settings = Settings(data_dir=Path(tmp_path_factory.mktemp("data")), engine_workers=1)
    app = create_app(settings, engine_factory=lambda workers: ThreadEngine())
    with pytest.MonkeyPatch.context() as patch, TestClient(app, raise_server_exceptions=False) as test_client:
        patch.setattr(analysis, "MAX_DEPTH", 4)  # the test client reads a stream to its end
        yield test_client


def stream(client: TestClient, body: dict[str, Any]) -> list[dict[str, Any]]:
    response = client.post("/api/analyse", json=body)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/x-ndjson")
    return [json.loads(line) for line in response.text.splitlines()]


def refused(response: Any, status: int, *words: str) -> None:
    assert response.status_code == status, response.text
    message = response.json()["error"]
    for word in words:
        assert word.lower() in message.lower(), message


def test_the_stream_gives_three_lines_at_each_depth_up_to_the_maximum(client: TestClient) -> None:
    found = stream(client, {"fen": START_FEN, "lines": 3})
    assert [message["depth"] for message in found] == [1, 2, 3, 4]
    for message in found:
        assert message["type"] == "lines" and message["nodes"] > 0
        assert len(message["lines"]) == 3
        assert len({line["moves"][0] for line in message["lines"]}) == 3
        for line in message["lines"]:
            value = line["eval"]
            assert isinstance(value["score"], int) and 0 <= value["win"] <= 100 and value["table_plies"] is None


def test_lines_defaults_to_three_and_one_line_may_be_asked_for(client: TestClient) -> None:
    assert all(len(message["lines"]) == 1 for message in stream(client, {"fen": START_FEN, "lines": 1}))
    assert all(len(message["lines"]) == 3 for message in stream(client, {"fen": START_FEN}))


def test_a_won_ending_in_the_tables_is_one_message_of_wins_in_plies(client: TestClient) -> None:
    [message] = stream(client, {"fen": "W:WK30,K26:BK1", "lines": 3})
    for line in message["lines"]:
        assert line["eval"]["score"] is None and line["eval"]["win"] == 0.0 and line["eval"]["table_plies"] < 0


def test_the_stream_stops_at_the_node_cap(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analysis, "STREAM_NODES", 1)
    assert [message["depth"] for message in stream(client, {"fen": START_FEN})] == [1]


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({}, 400, ["'fen'"]),
        ({"fen": 7}, 400, ["'fen'"]),
        ({"fen": START_FEN, "lines": 0}, 400, ["'lines'", "1 to 3"]),
        ({"fen": START_FEN, "lines": 4}, 400, ["'lines'"]),
        ({"fen": START_FEN, "lines": "3"}, 400, ["'lines'"]),
        ({"fen": START_FEN, "lines": True}, 400, ["'lines'"]),
        ({"fen": START_FEN, "depth": 9}, 400, ["unknown", "depth"]),
        ({"fen": "X:W1:B2"}, 422, ["side to move"]),
        ({"fen": "B:W1,1:B5"}, 422, ["two pieces"]),
        ({"fen": "B:W18,22:B"}, 422, ["no move"]),
    ],
)
def test_bad_input_is_refused_before_any_stream(
    client: TestClient, body: dict[str, Any], status: int, words: list[str]
) -> None:
    refused(client.post("/api/analyse", json=body), status, *words)


def test_a_body_that_is_not_json_is_refused(client: TestClient) -> None:
    response = client.post("/api/analyse", content=b"fen", headers={"content-type": "application/json"})
    assert response.status_code == 400


# -- one stream per visitor ----------------------------------------------------------------------


class GatedEngine:
    """Runs ``lines_at`` only when the test opens the gate, one step at a time."""

    def __init__(self) -> None:
        self.gate = asyncio.Semaphore(0)
        self.calls: list[int] = []
        self.waiting = 0

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        self.waiting += 1
        await self.gate.acquire()
        self.waiting -= 1
        self.calls.append(args[1])
        return function(*args)


async def _collect(
    engine: ReviewEngine, ticket: analysis.Ticket, gone: Callable[[], bool] = lambda: False
) -> list[int]:
    async def left() -> bool:
        return gone()

    return [json.loads(text)["depth"] async for text in analysis.stream_lines(engine, ticket, START_FEN, 2, left)]


def test_a_visitors_new_stream_ends_the_old_one_at_once_other_visitors_keep_theirs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(analysis, "MAX_DEPTH", 3)

    async def scenario() -> tuple[list[int], list[int], list[int]]:
        visitors = analysis.Visitors()
        engine = GatedEngine()
        first = asyncio.create_task(_collect(engine, visitors.begin("10.0.0.1")))
        other = asyncio.create_task(_collect(engine, visitors.begin("10.0.0.2")))
        engine.gate.release()
        engine.gate.release()
        while len(engine.calls) < 2:
            await asyncio.sleep(0)
        second = visitors.begin("10.0.0.1")  # the same visitor starts again: the first ends at once
        ended = await first
        latest = asyncio.create_task(_collect(engine, second))
        for _ in range(2 * analysis.MAX_DEPTH):
            engine.gate.release()
        return ended, await latest, await other

    ended, latest, other = run(scenario())
    assert ended == [1]
    assert latest == [1, 2, 3] and other == [1, 2, 3]


class CountingEngine:
    """Runs ``lines_at`` at once, counting how many runs are in flight together."""

    def __init__(self) -> None:
        self.now = self.most = 0

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        self.now += 1
        self.most = max(self.most, self.now)
        for _ in range(3):  # the other streams get their turns meanwhile
            await asyncio.sleep(0)
        self.now -= 1
        return function(*args)


def test_all_streams_together_hold_at_most_their_slots_of_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analysis, "MAX_DEPTH", 3)

    async def scenario() -> tuple[list[list[int]], int]:
        visitors = analysis.Visitors(asyncio.Semaphore(2))
        engine = CountingEngine()
        streams = [_collect(engine, visitors.begin(f"10.0.0.{n}")) for n in range(4)]
        return list(await asyncio.gather(*streams)), engine.most

    depths, most = run(scenario())
    assert depths == [[1, 2, 3]] * 4
    assert most == 2


def test_a_stream_whose_client_leaves_while_it_waits_for_a_slot_takes_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analysis, "MAX_DEPTH", 1)

    async def scenario() -> tuple[list[int], list[int]]:
        visitors = analysis.Visitors(asyncio.Semaphore(1))
        engine = GatedEngine()
        holder = asyncio.create_task(_collect(engine, visitors.begin("10.0.0.1")))
        while not engine.waiting:
            await asyncio.sleep(0)
        waiting = asyncio.create_task(_collect(engine, visitors.begin("10.0.0.2")))
        await asyncio.sleep(0)
        waiting.cancel()  # the client went away (the server cancels its stream)
        engine.gate.release()
        first = await holder
        engine.gate.release()
        later = await asyncio.wait_for(_collect(engine, visitors.begin("10.0.0.3")), timeout=WAIT_SECONDS)
        return first, later

    assert run(scenario()) == ([1], [1])


def test_a_stream_ends_when_its_client_has_gone() -> None:
    async def scenario() -> list[int]:
        engine = GatedEngine()
        for _ in range(10):
            engine.gate.release()
        asked = iter([False, False, True])
        return await _collect(engine, analysis.Visitors().begin("10.0.0.1"), lambda: next(asked))

    assert run(scenario()) == [1, 2]


def test_an_ended_ticket_leaves_the_register() -> None:
    visitors = analysis.Visitors()
    first = visitors.begin("a")
    second = visitors.begin("a")
    visitors.end(first)
    assert visitors.running == {"a": second}
    visitors.end(second)
    assert visitors.running == {}


# -- PDN of the board's tree ---------------------------------------------------------------------

SCORE = {"score": 12, "win": 53.3, "table_plies": None}


def test_the_tree_is_written_as_pdn_with_variations_and_evals(client: TestClient) -> None:
    tree = {
        "eval": SCORE,
        "depth": 10,
        "children": [
            {
                "move": "11-15",
                "eval": SCORE,
                "depth": 12,
                "children": [{"move": "23-19", "children": []}, {"move": "22-18", "children": [{"move": "15x22"}]}],
            },
            {"move": "9-14", "eval": {"score": None, "win": 100.0, "table_plies": 31}},
        ],
    }
    response = client.post("/api/analysis/pdn", json={"fen": START_FEN, "tree": tree})
    assert response.status_code == 200, response.text
    text = " ".join(response.json()["pdn"].split())
    assert '[GameType "21"]' in text and "FEN" not in text
    assert text.endswith(
        "{eval +0.12, depth 10} 1. 11-15 {eval +0.12, depth 12} (1. 9-14 {eval #31}) 1... 23-19 (1... 22-18 2. 15x22) *"
    )


def test_a_tree_from_a_set_up_position_names_its_fen(client: TestClient) -> None:
    response = client.post("/api/analysis/pdn", json={"fen": "W:W18,K5:B14", "tree": {"children": [{"move": "18x9"}]}})
    text = response.json()["pdn"]
    assert '[FEN "W:W18,K5:B14"]' in text and "1... 18x9" in text


@pytest.mark.parametrize(
    ("tree", "status", "words"),
    [
        ({"children": [{"move": "11-16x"}]}, 422, ["11-16x"]),
        ({"children": [{"move": "22-18"}]}, 422, ["22-18"]),
        ({"children": [{"move": 5}]}, 400, ["'move'"]),
        ({"children": "11-15"}, 400, ["'children'"]),
        ({"children": [{"move": "11-15", "colour": "red"}]}, 400, ["unknown", "colour"]),
        ({"children": [{"move": "11-15", "eval": {"score": "high"}}]}, 400, ["'eval'"]),
        ([], 400, ["object"]),
    ],
)
def test_a_bad_tree_is_refused_naming_the_problem(client: TestClient, tree: Any, status: int, words: list[str]) -> None:
    refused(client.post("/api/analysis/pdn", json={"fen": START_FEN, "tree": tree}), status, *words)


def test_a_tree_too_large_or_too_deep_is_refused(client: TestClient) -> None:
    wide = {"children": [{"move": "11-15"}] * (analysis.MAX_TREE_MOVES + 1)}
    refused(client.post("/api/analysis/pdn", json={"fen": START_FEN, "tree": wide}), 413, "more than")
    deep = {"children": nested(Game(), analysis.MAX_TREE_DEPTH + 2)}
    refused(client.post("/api/analysis/pdn", json={"fen": START_FEN, "tree": deep}), 400, "nests")


def nested(game: Game, levels: int) -> list[dict[str, Any]]:
    """Children of ``game``'s position with a variation in a variation ``levels`` deep."""
    moves = game.legal_moves()
    after = Game(game.setup, [*game.moves, moves[1 % len(moves)]])
    if levels == 0:
        return [{"move": str(moves[0])}]
    if len(moves) == 1:
        return [{"move": str(moves[0]), "children": nested(after, levels)}]
    return [{"move": str(moves[0])}, {"move": str(moves[1]), "children": nested(after, levels - 1)}]


def test_lines_messages_carry_the_contracts_fields() -> None:
    message = analysis.lines_message(Lines(3, 99, ()))
    assert message == {"type": "lines", "depth": 3, "nodes": 99, "lines": []}

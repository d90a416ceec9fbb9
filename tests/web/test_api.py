"""The one-device JSON API: whole states for good records, a 4xx naming the problem for bad ones."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from kingme.game import Game, Setup
from kingme.server.app import WEB_DIR, create_app
from kingme.server.edge import MAX_BODY_BYTES, Edge, EdgeSettings
from kingme.server.settings import Settings

DOUBLE_JUMP = {"setup": {"position": "double-jump"}, "moves": []}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    settings = Settings(data_dir=Path(tmp_path_factory.mktemp("data")), engine_workers=1)
    with TestClient(create_app(settings), raise_server_exceptions=False) as test_client:
        yield test_client


def refused(response, status: int, *words: str) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    message = response.json()["error"]
    assert response.json()["code"]
    for word in words:
        assert word.lower() in message.lower(), message
    return message


# -- good requests ------------------------------------------------------------------------------


def test_a_new_standard_game_lists_the_seven_opening_moves_for_black(client):
    state = client.post("/api/start", json={"setup": {"position": "standard"}}).json()
    assert state["turn"] == "black"
    assert [m["notation"] for m in state["moves"]] == ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]
    assert state["counts"] == {"black": 12, "white": 12}
    assert state["board"]["1"] == {"color": "black", "kind": "man"}
    assert state["result"] is None and state["steps"] == 0 and state["standard"] is True


def test_the_double_jump_practice_offers_the_whole_route_and_marks_both_pieces_capturable(client):
    state = client.post("/api/state", json={"record": DOUBLE_JUMP}).json()
    assert state["moves"] == [{"notation": "9x18x27", "path": [9, 18, 27], "captures": [14, 23], "crowns": False}]
    assert state["capturable"] == [14, 23]
    assert state["captureRequired"] is True
    assert state["standard"] is False


def test_finishing_the_double_jump_wins_for_black_in_two_steps(client):
    state = client.post("/api/state", json={"record": {**DOUBLE_JUMP, "moves": ["9x18x27"]}}).json()
    assert state["result"]["winner"] == "black" and state["result"]["reason"] == "no-pieces"
    assert state["steps"] == 2
    assert state["history"] == [
        {"color": "black", "move": "9x18x27", "path": [9, 18, 27], "captures": [14, 23], "crown": False}
    ]
    assert state["result"] == {"winner": "black", "reason": "no-pieces"}


def test_the_history_names_each_turns_colour_when_white_moves_first_and_marks_crowning(client):
    record = {"setup": {"fen": "W:W6,22:B27"}, "moves": ["22-18", "27-31", "6-2"]}
    history = client.post("/api/state", json={"record": record}).json()["history"]
    assert [(row["color"], row["move"], row["crown"]) for row in history] == [
        ("white", "22-18", False),
        ("black", "27-31", True),
        ("white", "6-2", True),
    ]


def test_casual_rules_list_the_partial_capture_and_the_ordinary_move_too(client):
    record = {"setup": {"position": "double-jump", "variant": "casual"}}
    state = client.post("/api/state", json={"record": record}).json()
    assert [m["notation"] for m in state["moves"]] == ["9-13", "9x18", "9x18x27"]
    assert state["captureRequired"] is False


def test_the_computer_answers_with_a_legal_move_and_the_state_after_it(client):
    record = Game().record()
    answer = client.post("/api/computer", json={"record": record, "level": "random"}).json()
    assert answer["move"] in [str(m) for m in Game().legal_moves()]
    assert answer["state"]["turn"] == "white"
    assert answer["state"]["record"]["moves"] == [answer["move"]]


def test_the_computer_gives_the_same_reply_to_the_same_record_and_seed(client):
    record = Game(Setup(seed="same-seed"), ["11-15"]).record()
    body = {"record": record, "level": "casual"}
    replies = {client.post("/api/computer", json=body).json()["move"] for _ in range(3)}
    assert len(replies) == 1


def test_a_hint_is_a_legal_route_and_does_not_change_the_game(client):
    answer = client.post("/api/hint", json={"record": DOUBLE_JUMP}).json()
    assert answer == {"move": "9x18x27", "path": [9, 18, 27], "captures": [14, 23]}


def test_undo_of_two_turns_takes_back_the_players_move_and_the_computers_reply(client):
    record = Game(moves=["11-15", "23-19"]).record()
    state = client.post("/api/undo", json={"record": record, "turns": 2}).json()
    assert state["record"]["moves"] == [] and state["turn"] == "black"


def test_a_resignation_in_the_record_ends_the_game_against_that_side(client):
    record = {"setup": {}, "moves": ["11-15"], "ending": {"resigned": "white"}}
    state = client.post("/api/state", json={"record": record}).json()
    assert state["result"]["winner"] == "black" and state["result"]["reason"] == "resignation"
    assert state["moves"] == []


def test_a_game_exported_to_pdn_imports_back_to_the_same_record(client):
    record = Game(Setup(seed="pdn-seed"), ["11-15", "23-19", "8-11"]).record()
    text = client.post("/api/pdn/export", json={"record": record, "tags": {"Black": "You"}}).json()["pdn"]
    assert '[Black "You"]' in text and "11-15" in text
    state = client.post("/api/pdn/import", json={"text": text}).json()
    assert state["record"] == record


def test_a_pasted_fen_starts_a_game_from_that_position(client):
    state = client.post("/api/pdn/import", json={"text": " B:W14,23:B9 ", "variant": "casual"}).json()
    assert state["fen"] == "B:W14,23:B9" and state["variant"] == "casual" and state["record"]["moves"] == []


def test_the_info_lists_the_six_levels(client):
    assert client.get("/api/info").json()["levels"] == ["random", "beginner", "casual", "club", "strong", "master"]


# -- bad requests ---------------------------------------------------------------------------------


def test_a_body_that_is_not_json_is_refused(client):
    refused(client.post("/api/state", content=b"{not json"), 400, "not valid JSON")


def test_a_body_that_is_not_utf8_is_refused(client):
    refused(client.post("/api/state", content=b"\xff\xfe\x00"), 400, "not valid JSON")


def test_an_empty_body_is_refused(client):
    refused(client.post("/api/state", content=b""), 400, "empty")


def test_a_json_body_that_is_not_an_object_is_refused(client):
    refused(client.post("/api/state", json=[1, 2]), 400, "JSON object")


def test_a_body_declared_larger_than_the_limit_is_refused_before_reading(client):
    response = client.post("/api/state", content=b"x" * (MAX_BODY_BYTES + 1))
    refused(response, 413, "at most")


def test_a_streamed_body_larger_than_the_limit_is_refused(client):
    chunks = (b"x" * 65536 for _ in range(MAX_BODY_BYTES // 65536 + 2))
    refused(client.post("/api/state", content=chunks), 413, "at most")


@pytest.mark.parametrize("path", ["/api/state", "/api/start", "/api/rooms", "/api/pdn/import"])
def test_deeply_nested_json_is_refused_as_bad_json_never_a_server_error(client, path):
    refused(client.post(path, content=b"[" * 2000 + b"]" * 2000), 400, "nested too deeply")
    refused(client.post(path, content=b'{"":' * 400 + b"[" * 700 + b"]" * 700 + b"}" * 400), 400, "nested too deeply")


@pytest.mark.parametrize(
    "body",
    [
        {"record": [[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]},
        {"record": {"setup": [{"variant": {"x": [1]}}], "moves": [[["11-15"]]]}},
        {"record": {"setup": {"variant": "american"}, "moves": [{"a": {"b": {"c": []}}}]}},
    ],
)
def test_nested_values_where_a_record_belongs_are_refused_with_4xx(client, body):
    response = client.post("/api/state", json=body)
    assert 400 <= response.status_code < 500, response.text
    assert response.json()["error"] and response.json()["code"]


def test_a_request_without_a_record_is_refused(client):
    refused(client.post("/api/state", json={}), 400, "record")


def test_an_unknown_field_is_refused_by_name(client):
    refused(client.post("/api/state", json={"record": DOUBLE_JUMP, "cheat": True}), 400, "cheat")


@pytest.mark.parametrize(
    ("record", "words"),
    [
        ("not a record", ["object"]),
        ({"setup": {}, "moves": "11-15"}, ["list"]),
        ({"setup": {}, "moves": [], "extra": 1}, ["extra"]),
        ({"setup": {"variant": "international"}}, ["international"]),
        ({"setup": {"fen": "B:W33:B1"}}, ["33"]),
        ({"setup": {"fen": 42}}, ["fen"]),
        ({"setup": {"seed": "   "}}, ["seed", "1 to 96"]),
        ({"setup": {"seed": "x" * 97}}, ["seed", "1 to 96"]),
        ({"setup": {"position": "endgame"}}, ["endgame"]),
        ({"setup": {"position": "standard", "fen": "B:W14:B9"}}, ["either"]),
        ({"setup": "standard"}, ["setup"]),
        ({"setup": {}, "moves": ["11-15", "11-15"]}, ["move 2", "11-15"]),
        ({"setup": {}, "moves": ["1-5"]}, ["move 1", "1-5"]),
        ({"setup": {}, "moves": [42]}, ["move 1"]),
        ({"setup": {}, "moves": ["99-100"]}, ["off the board"]),
        ({"setup": {}, "moves": [], "ending": {"resigned": "green"}}, ["green"]),
        ({"setup": {}, "moves": [], "ending": "draw"}, ["ending"]),
        ({"setup": {"position": "double-jump"}, "moves": ["9x18x27", "11-15"]}, ["over"]),
    ],
)
def test_a_malformed_or_illegal_record_is_refused_naming_the_problem(client, record, words):
    refused(client.post("/api/state", json={"record": record}), 422, *words)


def test_a_record_with_too_many_moves_is_refused(client):
    refused(client.post("/api/state", json={"record": {"setup": {}, "moves": ["1-5"] * 16_001}}), 422, "16000")


@pytest.mark.parametrize("level", [None, "grandmaster", 3, ""])
def test_the_computer_refuses_an_unknown_level(client, level):
    body = {"record": Game().record()} | ({} if level is None else {"level": level})
    refused(client.post("/api/computer", json=body), 400, "level", "random")


def test_the_computer_refuses_to_move_in_a_finished_game(client):
    record = {**DOUBLE_JUMP, "moves": ["9x18x27"]}
    refused(client.post("/api/computer", json={"record": record, "level": "random"}), 409, "over")


def test_a_hint_in_a_finished_game_is_refused(client):
    refused(client.post("/api/hint", json={"record": {**DOUBLE_JUMP, "moves": ["9x18x27"]}}), 409, "over")


@pytest.mark.parametrize("turns", [0, 3, -1, "1", True, 1.5, None])
def test_undo_refuses_a_count_other_than_one_or_two_turns(client, turns):
    refused(client.post("/api/undo", json={"record": Game(moves=["11-15"]).record(), "turns": turns}), 400, "turns")


def test_undo_refuses_what_the_rules_refuse(client):
    refused(client.post("/api/undo", json={"record": Game().record(), "turns": 1}), 422, "no move")
    refused(client.post("/api/undo", json={"record": Game(moves=["11-15"]).record(), "turns": 2}), 422, "no move")
    finished = {**DOUBLE_JUMP, "moves": ["9x18x27"]}
    refused(client.post("/api/undo", json={"record": finished, "turns": 1}), 422, "finished")


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"text": ""}, ["paste"]),
        ({"text": 7}, ["paste"]),
        ({}, ["paste"]),
        ({"text": "B:W33:B1"}, ["33"]),
        ({"text": "1. 11-15 22-18 2. 15x99 *"}, ["99"]),
        ({"text": "1. 11-15 2. 11-15 *"}, ["11-15"]),
        ({"text": '[GameType "20"]\n1. 32-28 *'}, ["GameType"]),
        ({"text": "hello world"}, ["hello"]),
        ({"text": "B:W14:B9", "seed": " "}, ["seed"]),
    ],
)
def test_an_import_of_bad_text_is_refused_naming_the_problem(client, body, words):
    response = client.post("/api/pdn/import", json=body)
    assert 400 <= response.status_code < 500
    refused(response, response.status_code, *words)


def test_an_import_larger_than_the_limit_is_refused(client):
    refused(client.post("/api/pdn/import", json={"text": "1. 11-15 " * 25_000}), 413, "at most")


@pytest.mark.parametrize("tags", [["Event"], {"Event": 5}, {"Event": "x" * 201}, {f"T{i}": "v" for i in range(21)}])
def test_an_export_with_bad_tags_is_refused(client, tags):
    refused(client.post("/api/pdn/export", json={"record": Game().record(), "tags": tags}), 400, "tag")


def test_a_get_on_a_post_endpoint_gets_a_json_405(client):
    refused(client.get("/api/state"), 405, "method")


def test_an_unknown_api_path_gets_a_json_404(client):
    refused(client.post("/api/nothing", json={}), 404, "not found")


# -- the static front end -------------------------------------------------------------------------


def test_the_page_is_served_with_a_strict_content_security_policy(client):
    response = client.get("/")
    assert response.status_code == 200 and "<title>" in response.text
    assert "default-src 'self'" in response.headers["content-security-policy"]
    assert response.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("path", ["/api/info", "/favicon.svg", "/no-such-page"])
def test_every_answer_a_browser_may_open_as_a_document_carries_the_policy(client, path):
    response = client.get(path)
    assert "default-src 'self'" in response.headers["content-security-policy"]
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("path", ["/js/main.js", "/css/app.css", "/i18n/en.json"])
def test_the_pages_scripts_styles_and_words_go_without_the_document_policy_they_would_ignore(client, path):
    response = client.get(path)
    assert response.status_code == 200
    assert "content-security-policy" not in response.headers and "x-frame-options" not in response.headers
    assert response.headers["x-content-type-options"] == "nosniff"


def test_the_front_end_modules_are_served_as_javascript(client):
    response = client.get("/js/main.js")
    assert response.status_code == 200
    assert "javascript" in response.headers["content-type"]


def test_the_front_end_loads_nothing_from_another_site():
    foreign = re.compile(r"(?:https?:)?//(?!www\.w3\.org/2000/svg)[a-z0-9.-]+\.[a-z]{2,}", re.I)
    for path in WEB_DIR.rglob("*"):
        if path.suffix in {".html", ".js", ".css", ".svg"}:
            assert not foreign.search(path.read_text()), f"{path.name} refers to another site"


def test_a_host_not_on_the_allowed_list_is_refused_when_one_is_set(tmp_path):
    app = create_app(Settings(data_dir=tmp_path, engine_workers=1))
    app.add_middleware(Edge, settings=EdgeSettings.from_env({"KINGME_ALLOWED_HOSTS": "checkers.example"}))
    with TestClient(app, raise_server_exceptions=False) as client:
        refused(client.get("/api/info", headers={"host": "rebound.example"}), 421, "host")
        assert client.get("/api/info", headers={"host": "checkers.example:8000"}).status_code == 200


def test_a_request_with_too_many_headers_is_refused(client):
    headers = {f"x-filler-{number}": "1" for number in range(150)}
    refused(client.get("/api/info", headers=headers), 431, "too many headers")


def test_forwarded_addresses_are_believed_only_from_trusted_proxies():
    edge = EdgeSettings.from_env({"KINGME_TRUSTED_PROXIES": "10.0.0.0/8, 127.0.0.1"})
    assert edge.client("203.0.113.9", "198.51.100.1") == "203.0.113.9"  # not a proxy: ignored
    assert edge.client("10.1.2.3", "198.51.100.1, 10.0.0.7") == "198.51.100.1"
    assert edge.client("127.0.0.1", "evil-spoofed, 198.51.100.2") == "198.51.100.2"
    assert EdgeSettings.from_env({}).client("127.0.0.1", "198.51.100.1") == "127.0.0.1"
    with pytest.raises(ValueError, match="KINGME_TRUSTED_PROXIES"):
        EdgeSettings.from_env({"KINGME_TRUSTED_PROXIES": "not-an-address"})

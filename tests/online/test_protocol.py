"""Every kind of bad message gets an error for that client alone and changes nothing."""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import replace

import pytest
from waiting import WAIT_SECONDS
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from kingme.server.online import OnlineConfig
from kingme.server.online.client import RoomClient, http_json
from kingme.server.online.wire import CLIENT_MESSAGES, MAX_MESSAGE_BYTES
from kingme.server.settings import Settings

from .conftest import TEST_CONFIG, Lobby


async def version_of(client: RoomClient) -> int:
    """The room's version as the server sees it now (asked through a sync)."""
    await client.send({"type": "sync"})
    return (await client.receive("welcome"))["version"]


async def refused(client: RoomClient, message: object, code: str) -> dict:
    """Send ``message`` and expect an error ``code``; the room's version must not move."""
    before = await version_of(client)
    await client.send(message if isinstance(message, (str, bytes)) else json.dumps(message))
    error = await client.receive("error")
    assert error["code"] == code, error
    assert await version_of(client) == before
    return error


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ("{not json", "bad_json"),
        (b"\x00\x01", "bad_json"),
        ("[1, 2]", "bad_message"),
        ({"kind": "move"}, "bad_message"),
        ({"type": "fly"}, "unknown_type"),
        ({"type": "move", "move": "11-15"}, "bad_message"),
        ({"type": "move", "id": "", "move": "11-15"}, "bad_message"),
        ({"type": "move", "id": "<b>x</b>", "move": "11-15"}, "bad_message"),
        ({"type": "move", "id": "m1", "move": 1115}, "bad_message"),
        ({"type": "move", "id": "m1", "move": [True, False]}, "bad_message"),
        ({"type": "move", "id": "m1", "move": "11-15", "extra": 1}, "bad_message"),
        ({"type": "play_again", "keep_sides": "yes"}, "bad_message"),
        ({"type": "sync", "last_event": -1}, "bad_message"),
        ({"type": "hello"}, "already_greeted"),
        ("x" * (MAX_MESSAGE_BYTES + 1), "too_large"),
        ({"type": "move", "id": "m1", "move": "11-14"}, "illegal_move"),
        ({"type": "move", "id": "m1", "move": [11, 15, 19]}, "illegal_move"),
        ({"type": "move", "id": "m1", "move": "40-44"}, "illegal_move"),
        ({"type": "undo_accept"}, "no_request"),
        ({"type": "draw_decline"}, "no_request"),
        ({"type": "undo_request"}, "nothing_to_undo"),
        ({"type": "play_again"}, "game_not_over"),
    ],
)
def test_a_bad_message_gets_an_error_and_changes_nothing(lobby, run, message, code):
    async def scenario():
        table = await lobby.table()
        await refused(table.black, message, code)
        # The opponent heard nothing of it, and the game goes on.
        await table.white.send({"type": "ping"})
        assert (await table.white.receive("pong", "error", "event"))["type"] == "pong"
        await table.black.send({"type": "move", "id": "ok", "move": "11-15"})
        assert (await table.white.receive("event"))["data"]["move"] == "11-15"

    run(scenario())


def test_an_illegal_move_error_names_the_move_and_its_id(lobby, run):
    async def scenario():
        table = await lobby.table()
        error = await refused(table.black, {"type": "move", "id": "m7", "move": "11-14"}, "illegal_move")
        assert error["id"] == "m7" and "11-14" in error["message"]

    run(scenario())


def test_a_move_out_of_turn_is_refused(lobby, run):
    async def scenario():
        table = await lobby.table()
        await refused(table.white, {"type": "move", "id": "w1", "move": "22-18"}, "not_your_turn")

    run(scenario())


def test_a_wrong_seat_token_is_refused_and_the_connection_closed(lobby, run):
    async def scenario():
        table = await lobby.table()
        with pytest.raises(RuntimeError, match="bad_token"):
            await lobby.connect(table.room, "A" * 32)
        with pytest.raises(RuntimeError, match="bad_token"):
            await lobby.connect(table.room, "not a token!")
        other = await lobby.create(side="white")  # a real token, of another room
        with pytest.raises(RuntimeError, match="bad_token"):
            await lobby.connect(table.room, other["token"])

    run(scenario())


def test_without_a_seat_token_a_visitor_watches_and_cannot_play(lobby, run):
    async def scenario():
        table = await lobby.table()
        spectator = await lobby.connect(table.room)
        assert spectator.welcome["you"] == {"player": None, "role": "spectator"}
        await refused(spectator, {"type": "move", "id": "s1", "move": "11-15"}, "not_a_player")
        await refused(spectator, {"type": "resign"}, "not_a_player")
        await table.black.send({"type": "move", "id": "b1", "move": "11-15"})
        assert (await spectator.receive("event"))["data"]["move"] == "11-15"

    run(scenario())


def test_a_resent_move_is_applied_once(lobby, run):
    async def scenario():
        table = await lobby.table()
        await table.black.send({"type": "move", "id": "same", "move": "11-15"})
        first = await table.black.receive("ack")
        await table.black.send({"type": "move", "id": "same", "move": "11-15"})
        again = await table.black.receive("ack")
        assert again == {"type": "ack", "id": "same", "n": first["n"], "duplicate": True}
        assert table.black.state["game"]["record"]["moves"] == ["11-15"]
        assert await version_of(table.black) == first["n"]

    run(scenario())


def test_of_two_racing_moves_on_one_seat_exactly_one_is_played(lobby, run):
    async def scenario():
        table = await lobby.table()
        twin = await lobby.connect(table.room, table.tokens["black"])  # the same seat in a second tab
        await asyncio.gather(
            table.black.send({"type": "move", "id": "a", "move": "11-15"}),
            twin.send({"type": "move", "id": "b", "move": "9-13"}),
        )
        answers = [await table.black.receive("ack", "error"), await twin.receive("ack", "error")]
        assert sorted(answer["type"] for answer in answers) == ["ack", "error"]
        assert next(a for a in answers if a["type"] == "error")["code"] == "not_your_turn"
        assert len((await table.white.receive("event"))["state"]["game"]["record"]["moves"]) == 1

    run(scenario())


def test_a_reconnecting_client_gets_the_events_it_missed(lobby, run):
    async def scenario():
        table = await lobby.table()
        seen = table.white.last_event
        await table.white.close()
        for move_id, move in (("b1", "11-15"),):
            await table.black.send({"type": "move", "id": move_id, "move": move})
            await table.black.receive("ack")
        back = await lobby.connect(table.room, table.tokens["white"], last_event=seen)
        assert [e["kind"] for e in back.welcome["missed"]] == ["move"]
        assert back.welcome["missed"][0]["n"] == seen + 1
        assert back.welcome["state"]["game"]["turn"] == "white" and back.welcome["behind"] is False
        await back.send({"type": "move", "id": "w1", "move": "22-18"})
        assert (await back.receive("ack"))["n"] == seen + 2

    run(scenario())


def test_a_client_too_far_behind_gets_the_full_state_instead(lobby, run):
    async def scenario():
        table = await lobby.table()
        moves = ["11-15", "22-18", "15x22", "25x18", "12-16", "18-14"]
        for number, move in enumerate(moves):
            player = table.black if number % 2 == 0 else table.white
            await player.send({"type": "move", "id": f"m{number}", "move": move})
            await player.receive("ack")
        back = await lobby.connect(table.room, table.tokens["white"], last_event=1)
        assert back.welcome["missed"] is None and back.welcome["behind"] is True
        assert back.welcome["state"]["game"]["record"]["moves"] == moves

    run(scenario())


def test_unknown_and_expired_rooms_say_so_plainly(lobby, run):
    async def scenario():
        with pytest.raises(RuntimeError, match="unknown_room: There is no room at this link"):
            await lobby.connect("A" * 22)
        with pytest.raises(RuntimeError, match="unknown_room"):
            await lobby.connect("short")
        table = await lobby.table()
        with lobby.server.days_later(29):
            await table.black.send({"type": "move", "id": "b1", "move": "11-15"})
            await table.black.receive("ack")
        with lobby.server.days_later(29 + 31):
            with pytest.raises(RuntimeError, match="expired: This room has expired"):
                await lobby.connect(table.room, table.tokens["black"])
            await table.white.send({"type": "move", "id": "late", "move": "22-18"})
            assert (await table.white.receive("error"))["code"] == "expired"
            status, answer = await asyncio.to_thread(http_json, "GET", f"{lobby.server.http}/api/rooms/{table.room}")
            assert status == 410 and "expired" in answer["error"]
        with lobby.server.days_later(29 + 29):  # 29 days after the last move: still open
            await lobby.connect(table.room)

    run(scenario())


def test_the_first_message_must_be_hello(lobby, run):
    async def scenario():
        table = await lobby.table()
        async with connect(f"{lobby.server.ws}/ws/rooms/{table.room}") as raw:
            await raw.send(json.dumps({"type": "move", "id": "m", "move": "11-15"}))
            assert json.loads(await raw.recv())["code"] == "hello_first"
            await raw.send("{oops")
            assert json.loads(await raw.recv())["code"] == "bad_json"
            await raw.send(json.dumps({"type": "hello"}))
            assert json.loads(await raw.recv())["type"] == "welcome"

    run(scenario())


def test_a_websocket_from_a_foreign_origin_is_refused(lobby, run):
    async def scenario():
        table = await lobby.table()
        with pytest.raises(InvalidStatus):
            await lobby.connect(table.room, origin="http://evil.example")
        same = await lobby.connect(table.room, origin=f"http://127.0.0.1:{lobby.server.port}")
        assert same.welcome["type"] == "welcome"

    run(scenario())


def test_origins_on_the_allowed_list_may_open_websockets(tmp_path, run, make_server):
    config = OnlineConfig(allowed_origins=("https://checkers.example",))

    async def scenario(server):
        created = await asyncio.to_thread(http_json, "POST", f"{server.http}/api/rooms", {})
        room = created[1]["room"]
        welcome = await RoomClient.open(server.ws, room, origin="https://checkers.example")
        assert welcome.welcome["type"] == "welcome"
        with pytest.raises(InvalidStatus):
            await RoomClient.open(server.ws, room, origin="https://checkers.example.evil")

    with make_server(Settings(data_dir=tmp_path), config) as server:
        run(scenario(server))


#: A seat's messages a second in the flood test: so slow a refill (one message in 1,000 s) that
#: the test, however slowly it runs, sees the burst alone.
FLOOD_RATE = 0.001


def test_a_flood_of_messages_gets_the_burst_answered_and_the_rest_refused(tmp_path, run, make_server):
    config = replace(TEST_CONFIG, messages_per_second=FLOOD_RATE)
    burst = config.message_burst

    async def scenario(server) -> list[str]:
        table = await Lobby(server).table()
        for _ in range(2 * burst):
            await table.black.send({"type": "ping"})
        return [(await table.black.receive("pong", "error")).get("code", "pong") for _ in range(2 * burst)]

    with make_server(Settings(data_dir=tmp_path), config) as server:
        assert run(scenario(server)) == ["pong"] * burst + ["rate_limited"] * burst


def test_a_silent_connection_is_closed_after_the_hello_timeout(tmp_path, run, make_server):
    async def scenario(server) -> None:
        room = (await Lobby(server).create())["room"]
        async with connect(f"{server.ws}/ws/rooms/{room}") as raw:
            assert json.loads(await asyncio.wait_for(raw.recv(), WAIT_SECONDS))["code"] == "hello_timeout"
            with pytest.raises(ConnectionClosed):
                await asyncio.wait_for(raw.recv(), WAIT_SECONDS)

    # One second, so that the test is quick; it waits for the server to close, not for a delay.
    with make_server(Settings(data_dir=tmp_path), replace(TEST_CONFIG, hello_timeout=1.0)) as server:
        run(scenario(server))


def test_a_move_the_database_fails_to_store_is_refused_and_not_played(lobby, run):
    async def scenario():
        table = await lobby.table()
        store = lobby.server.service.store
        original = store.append

        async def broken(*args, **kwargs):
            raise OSError("disk full")

        store.append = broken
        try:
            error = await refused(table.black, {"type": "move", "id": "lost", "move": "11-15"}, "not_stored")
        finally:
            store.append = original
        assert error["id"] == "lost"
        await table.black.send({"type": "move", "id": "lost", "move": "11-15"})  # the same id, tried again
        assert (await table.black.receive("ack")).get("duplicate") is None
        assert (await table.white.receive("event"))["state"]["game"]["record"]["moves"] == ["11-15"]

    run(scenario())


def test_random_hostile_messages_never_break_the_connection_or_the_room(lobby, run):
    chooser = random.Random(7)
    values = [None, True, 0, -1, 2**70, 1.5, "", "11-15", "x" * 300, [], [11, 15], [[1]], {}, {"a": 1}, "\u202e<b>"]
    types = [*CLIENT_MESSAGES, "", "HELLO", "move ", 5]

    def message() -> str:
        body = {
            name: chooser.choice(values)
            for name in chooser.sample(["id", "move", "token", "last_event", "keep_sides", "type"], 3)
        }
        body["type"] = chooser.choice(types)
        return json.dumps(body)

    async def scenario():
        table = await lobby.table()
        spectator = await lobby.connect(table.room)
        for client in (table.white, spectator):  # White is not to move; the spectator may not play
            before = await version_of(client)
            for _ in range(60):
                await client.send(message())
                answer = await client.receive("error", "pong", "welcome")
                assert answer["type"] != "error" or (answer["code"] and answer["message"])
                await asyncio.sleep(0.01)
            assert await version_of(client) == before

    run(scenario())

"""A room from creation to rematch: seats, presence, undo, draws, resignation, Play again."""

from __future__ import annotations

import asyncio
import json
import random
import urllib.error
import urllib.request

import pytest

from kingme.server.online import OnlineConfig
from kingme.server.online.client import http_json
from kingme.server.settings import Settings


async def play(player, move: str, *watchers) -> dict:
    """``player`` plays ``move``; returns the event once every watcher has seen it."""
    await player.send({"type": "move", "id": f"m-{move}-{player.last_event}", "move": move})
    event = await player.receive("event", "error")
    assert event["type"] == "event", event
    for watcher in watchers:
        assert (await watcher.receive("event"))["n"] == event["n"]
    return event


async def act(actor, message: dict, *others) -> dict:
    """``actor`` sends ``message``; returns the resulting event once everyone has seen it."""
    await actor.send(message)
    event = await actor.receive("event", "error")
    assert event["type"] == "event", event
    for other in others:
        assert (await other.receive("event"))["n"] == event["n"]
    return event


def test_the_creator_picks_rules_and_side_and_black_moves_first(lobby, run):
    async def scenario():
        created = await lobby.create(variant="casual", side="white")
        assert created["color"] == "white" and created["player"] == 1
        assert created["invite_path"] == f"/?room={created['room']}"
        assert len(created["room"]) == 22 and len(created["token"]) == 32  # 128 and 192 random bits
        joined = await lobby.join(created["room"])
        assert joined["color"] == "black" and joined["player"] == 2
        creator = await lobby.connect(created["room"], created["token"])
        assert creator.color == "white" and creator.state["variant"] == "casual"
        assert creator.state["game"]["turn"] == "black"

    run(scenario())


def test_a_random_side_is_black_or_white(lobby, run):
    async def scenario():
        colors = {(await lobby.create(side="random"))["color"] for _ in range(24)}
        assert colors == {"black", "white"}

    run(scenario())


def test_bad_room_requests_are_refused_with_a_reason(lobby, run):
    async def scenario():
        url = f"{lobby.server.http}/api/rooms"
        cases = (
            ({"variant": "chess"}, "variant"),
            ({"variant": ["american"]}, "variant"),
            ({"side": "red"}, "side"),
            ({"side": {"b": 1}}, "side"),
            ({"x": 1}, "unknown"),
        )
        for body, needle in cases:
            status, answer = await asyncio.to_thread(http_json, "POST", url, body)
            assert status == 400 and needle in answer["error"]
        status, answer = await asyncio.to_thread(http_json, "GET", f"{url}/{'Z' * 22}")
        assert status == 404 and "no room at this link" in answer["error"]
        for body in (b"{oops", b"[1]", b"x" * 5000):
            request = urllib.request.Request(url, data=body, method="POST")
            with pytest.raises(urllib.error.HTTPError) as refused:
                await asyncio.to_thread(urllib.request.urlopen, request)
            assert refused.value.code in (400, 413) and json.loads(refused.value.read())["error"]

    run(scenario())


def test_the_link_gives_one_seat_and_later_visitors_watch(lobby, run):
    async def scenario():
        created = await lobby.create(side="black")
        url = f"{lobby.server.http}/api/rooms/{created['room']}"
        status, info = await asyncio.to_thread(http_json, "GET", url)
        assert status == 200 and info["open"] is True and info["seated"] == {"black": True, "white": False}
        await lobby.join(created["room"])
        status, answer = await asyncio.to_thread(http_json, "POST", f"{url}/join")
        assert status == 409 and "watch" in answer["error"]
        status, info = await asyncio.to_thread(http_json, "GET", url)
        assert info["open"] is False

    run(scenario())


def test_nobody_moves_before_the_friend_has_joined(lobby, run):
    async def scenario():
        created = await lobby.create(side="black")
        creator = await lobby.connect(created["room"], created["token"])
        await creator.send({"type": "move", "id": "early", "move": "11-15"})
        assert (await creator.receive("error"))["code"] == "no_opponent"

    run(scenario())


async def presence_until(client, wanted) -> dict:
    """The first presence message that ``wanted(message)`` accepts."""
    while not wanted(message := await client.receive("presence")):
        pass
    return message


def test_presence_shows_who_is_connected_and_spectators_are_counted(lobby, run):
    async def scenario():
        table = await lobby.table()
        both = await presence_until(table.black, lambda p: p["white"])
        assert both["black"] is True and both["spectators"] == 0
        spectator = await lobby.connect(table.room)
        await presence_until(table.black, lambda p: p["spectators"] == 1)
        await table.white.close()
        away = await presence_until(table.black, lambda p: not p["white"])
        assert away["black"] is True and away["players"] == {"1": True, "2": False}
        await spectator.close()
        await presence_until(table.black, lambda p: p["spectators"] == 0)

    run(scenario())


def test_undo_asks_the_opponent_who_declines_then_accepts(lobby, run):
    async def scenario():
        table = await lobby.table()
        black, white = table.black, table.white
        await play(black, "11-15", white)
        await play(white, "22-18", black)
        asked = await act(black, {"type": "undo_request"}, white)  # Black takes back 11-15 and the reply
        assert asked["kind"] == "undo_requested" and asked["state"]["undo_request"] == "black"
        declined = await act(white, {"type": "undo_decline"}, black)
        assert declined["state"]["game"]["record"]["moves"] == ["11-15", "22-18"]
        assert declined["state"]["undo_request"] is None
        await act(black, {"type": "undo_request"}, white)
        await black.send({"type": "undo_accept"})  # one cannot accept one's own request
        assert (await black.receive("error"))["code"] == "no_request"
        undone = await act(white, {"type": "undo_accept"}, black)
        assert undone["kind"] == "undo_accepted" and undone["data"]["plies"] == 2
        assert undone["state"]["game"]["record"]["moves"] == [] and undone["state"]["game"]["turn"] == "black"

    run(scenario())


def test_an_undo_asked_by_the_player_who_just_moved_takes_back_one_move(lobby, run):
    async def scenario():
        table = await lobby.table()
        await play(table.black, "11-15", table.white)
        await act(table.black, {"type": "undo_request"}, table.white)
        undone = await act(table.white, {"type": "undo_accept"}, table.black)
        assert undone["data"]["plies"] == 1 and undone["state"]["game"]["turn"] == "black"

    run(scenario())


def test_a_draw_can_be_offered_declined_and_agreed(lobby, run):
    async def scenario():
        table = await lobby.table()
        black, white = table.black, table.white
        assert (await act(white, {"type": "draw_offer"}, black))["state"]["draw_offer"] == "white"
        assert (await act(black, {"type": "draw_decline"}, white))["state"]["draw_offer"] is None
        await act(white, {"type": "draw_offer"}, black)
        agreed = await act(black, {"type": "draw_accept"}, white)
        assert agreed["state"]["game"]["result"]["reason"] == "agreement"
        assert agreed["state"]["score"] == {"black": 0, "white": 0, "draws": 1}

    run(scenario())


def test_play_again_needs_both_players_switches_sides_and_carries_the_score(lobby, run):
    async def scenario():
        table = await lobby.table()
        black, white = table.black, table.white
        resigned = await act(black, {"type": "resign"}, white)
        assert resigned["state"]["game"]["result"]["winner"] == "white"
        assert resigned["state"]["score"] == {"black": 0, "white": 1, "draws": 0}
        await black.send({"type": "resign"})
        assert (await black.receive("error"))["code"] == "game_over"
        waiting = await act(white, {"type": "play_again"}, black)
        assert waiting["kind"] == "play_again_requested" and waiting["state"]["game"]["result"] is not None
        fresh = (await act(black, {"type": "play_again"}, white))["state"]
        assert fresh["game_no"] == 2 and fresh["game"]["result"] is None and fresh["game"]["record"]["moves"] == []
        assert fresh["sides"] == {"black": 2, "white": 1}  # sides switched: the friend now has Black
        assert fresh["score"] == {"black": 1, "white": 0, "draws": 0}  # the winner's point follows them
        assert white.color == "black" and black.color == "white"
        await play(white, "11-15", black)

    run(scenario())


def test_either_player_may_keep_sides_for_the_next_game(lobby, run):
    async def scenario():
        table = await lobby.table()
        await act(table.white, {"type": "resign"}, table.black)
        await act(table.black, {"type": "play_again"}, table.white)
        fresh = (await act(table.white, {"type": "play_again", "keep_sides": True}, table.black))["state"]
        assert fresh["sides"] == {"black": 1, "white": 2} and fresh["score"]["black"] == 1

    run(scenario())


def test_a_game_played_to_its_end_counts_in_the_score(lobby, run):
    async def scenario():
        table = await lobby.table()
        players = {"black": table.black, "white": table.white}
        chooser = random.Random(1)
        while table.black.state["game"]["result"] is None:
            mover = players[table.black.state["game"]["turn"]]
            route = chooser.choice(mover.state["game"]["moves"])
            await play(mover, route["notation"], *(p for p in players.values() if p is not mover))
        state = table.black.state
        winner = state["game"]["result"]["winner"]
        assert state["score"] == {"black": winner == "black", "white": winner == "white", "draws": winner is None}

    run(scenario())


def test_rooms_created_per_address_are_limited(tmp_path, make_server):
    with make_server(Settings(data_dir=tmp_path), OnlineConfig(rooms_per_hour=2)) as server:
        answers = [http_json("POST", f"{server.http}/api/rooms", {}) for _ in range(3)]
    assert [status for status, _ in answers] == [201, 201, 429]
    assert answers[2][1]["code"] == "too_many_rooms"  # not a message rate: the page says which


@pytest.mark.parametrize("color", ["black", "white"])
def test_a_seat_is_restored_with_its_token_after_a_refresh(lobby, run, color):
    async def scenario():
        table = await lobby.table()
        await play(table.black, "11-15", table.white)
        player = getattr(table, color)
        await player.close()
        back = await lobby.connect(table.room, table.tokens[color])
        assert back.color == color and back.state["game"]["record"]["moves"] == ["11-15"]

    run(scenario())


def test_the_host_picks_a_time_control_and_the_players_see_both_clocks(lobby, run):
    async def scenario():
        created = await lobby.create(side="black", time_control="5+0")
        status, described = await asyncio.to_thread(
            http_json, "GET", f"{lobby.server.http}/api/rooms/{created['room']}"
        )
        assert status == 200 and described["time_control"]["initial_ms"] == 300_000
        joined = await lobby.join(created["room"])
        black = await lobby.connect(created["room"], created["token"])
        white = await lobby.connect(created["room"], joined["token"])
        assert black.state["clock"]["running"] == "black" and white.state["clock"]["white"] == 300_000
        assert (await black.receive("probe"))["n"] == 1  # the server measures each player's round trip
        await black.send({"type": "probe", "n": 1})
        await play(black, "11-15", white)
        assert white.state["clock"]["running"] == "white" and 0 < white.state["clock"]["black"] <= 300_000

    run(scenario())


def test_a_time_control_outside_the_allowed_set_is_refused_over_http(lobby, run):
    async def scenario():
        url = f"{lobby.server.http}/api/rooms"
        status, answer = await asyncio.to_thread(http_json, "POST", url, {"time_control": "1+0"})
        assert status == 400 and answer["code"] == "bad_time_control"
        assert "untimed, 3+2, 5+0, 10+5, 15+10, 1d, 2d, 3d" in answer["error"]

    run(scenario())

"""Two server processes sharing PostgreSQL and Redis serve the same rooms, and survive each other."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import secrets
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import redis
from waiting import wait_until

from kingme.server.online.bench import ServerProcess
from kingme.server.online.client import RoomClient, http_json

pytestmark = pytest.mark.scaleout


@pytest.fixture
def cluster(
    postgres_url: str, redis_url: str, tmp_path: Path, find_port
) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """Two processes on free ports, one database, one Redis."""
    with two_servers(postgres_url, redis_url, tmp_path, find_port) as servers:
        yield servers


@contextlib.contextmanager
def private_redis(port: int, tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A Redis server of this test's own (so it can be stopped without disturbing others)."""
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    process = subprocess.Popen(
        ["redis-server", "--port", str(port), "--save", "", "--appendonly", "no", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        client = redis.Redis.from_url(url)

        def answers() -> bool:
            with contextlib.suppress(redis.ConnectionError):
                return bool(client.ping())
            return False

        wait_until(answers, "the private Redis answered")
        yield url, process
    finally:
        process.send_signal(signal.SIGCONT)
        process.terminate()
        process.wait(timeout=10)


@contextlib.contextmanager
def two_servers(
    postgres_url: str, redis_url: str, tmp_path: Path, find_port, **settings: str
) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """Two processes on free ports sharing a database and a Redis, ``settings`` (``KINGME_…``)
    added to their environment."""
    env = dict(
        os.environ,
        KINGME_DATABASE_URL=postgres_url,
        KINGME_REDIS_URL=redis_url,
        KINGME_DATA_DIR=str(tmp_path),
        # Keys of this test's own: what other tests and runs counted in the shared Redis this
        # hour (rooms from 127.0.0.1, above all) is not this installation's.
        KINGME_REDIS_PREFIX=f"kingme-test-{secrets.token_hex(6)}:",
        KINGME_MESSAGES_PER_SECOND="1000",
        **settings,
    )
    with contextlib.ExitStack() as stack:
        first = ServerProcess(env, find_port(), stack.enter_context((tmp_path / "first.log").open("w")))
        stack.callback(first.stop)
        first.wait_ready()  # the first one migrates; the second then finds the schema in place
        second = ServerProcess(env, find_port(), stack.enter_context((tmp_path / "second.log").open("w")))
        stack.callback(second.stop)
        second.wait_ready()
        yield first, second


def stored_moves(postgres_url: str, room: str) -> list[tuple[str, str]]:
    """The (move id, move) of every move event stored for ``room``, in order."""
    with psycopg.connect(postgres_url) as connection:
        rows = connection.execute(
            "SELECT move_id, data FROM room_events WHERE room_id = %s AND kind = 'move' ORDER BY number", (room,)
        ).fetchall()
    return [(move_id, json.loads(data)["move"]) for move_id, data in rows]


async def seat_players(
    first: ServerProcess, second: ServerProcess
) -> tuple[str, dict[str, str], RoomClient, RoomClient]:
    """A room created on the first process and joined on the second; Black plays on the first."""
    _, created = await asyncio.to_thread(http_json, "POST", f"{first.url}/api/rooms", {"side": "black"})
    _, joined = await asyncio.to_thread(http_json, "POST", f"{second.url}/api/rooms/{created['room']}/join")
    black = await RoomClient.open(first.ws, created["room"], created["token"])
    white = await RoomClient.open(second.ws, created["room"], joined["token"])
    return created["room"], {"black": created["token"], "white": joined["token"]}, black, white


async def play_one(players: dict[str, RoomClient], chooser: random.Random, move_id: str) -> str:
    """The side to move plays a random legal move; the other sees it. Returns the move."""
    turn = next(iter(players.values())).state["game"]["turn"]
    mover, other = players[turn], players["white" if turn == "black" else "black"]
    move = chooser.choice(mover.state["game"]["moves"])["notation"]
    await mover.send({"type": "move", "id": move_id, "move": move})
    assert (await mover.receive("ack", "error"))["type"] == "ack"
    seen = await other.receive("event")
    assert seen["data"]["move"] == move
    return move


def test_a_player_whose_process_dies_reconnects_to_the_other_and_finishes(cluster, postgres_url, run):
    first, second = cluster

    async def scenario() -> tuple[str, list[str], list[str]]:
        room, tokens, black, white = await seat_players(first, second)
        players = {"black": black, "white": white}
        chooser = random.Random(5)
        played = [await play_one(players, chooser, f"m{ply}") for ply in range(8)]
        # Black's last move was stored (acknowledged); then Black's process dies.
        first.kill()
        with contextlib.suppress(Exception):
            await black.close()
        black = players["black"] = await RoomClient.open(second.ws, room, tokens["black"], last_event=black.last_event)
        assert black.welcome["missed"] == [] and black.state["game"]["record"]["moves"] == played
        # The move Black may not have seen acknowledged is sent again: it is not played twice.
        await black.send({"type": "move", "id": "m6", "move": played[6]})
        assert (await black.receive("ack"))["duplicate"] is True
        ply = len(played)
        while black.state["game"]["result"] is None:
            played.append(await play_one(players, chooser, f"m{ply}"))
            ply += 1
        return room, played, black.state["game"]["record"]["moves"]

    room, played, record = run(scenario())
    assert record == played
    stored = stored_moves(postgres_url, room)
    assert [move for _, move in stored] == played  # every move there, exactly once, in order
    assert len({move_id for move_id, _ in stored}) == len(stored)


def test_two_moves_racing_from_two_processes_exactly_one_wins(cluster, postgres_url, run):
    first, second = cluster

    async def scenario() -> str:
        room, tokens, black, white = await seat_players(first, second)
        twin = await RoomClient.open(second.ws, room, tokens["black"])  # Black's second tab, on the other process
        for attempt in range(3):
            routes = black.state["game"]["moves"]
            await asyncio.gather(
                black.send({"type": "move", "id": f"a{attempt}", "move": routes[0]["notation"]}),
                twin.send({"type": "move", "id": f"b{attempt}", "move": routes[-1]["notation"]}),
            )
            answers = [await black.receive("ack", "error"), await twin.receive("ack", "error")]
            assert sorted(a["type"] for a in answers) == ["ack", "error"], answers
            loser = twin if answers[0]["type"] == "ack" else black
            assert {a.get("code") for a in answers} <= {None, "conflict", "not_your_turn"}
            # The loser is told and catches up: the winner's move was stored before its
            # acknowledgement, and a sync answers from the database.
            await loser.send({"type": "sync"})
            await loser.receive("welcome")
            assert len(loser.state["game"]["record"]["moves"]) == 2 * attempt + 1
            # White replies, so Black can race again. White sees Black's move as an event, or in
            # the welcome its process sends when it catches up after a gap.
            while len(white.state["game"]["record"]["moves"]) != 2 * attempt + 1:
                await white.receive("event", "welcome")
            reply = white.state["game"]["moves"][0]["notation"]
            await white.send({"type": "move", "id": f"w{attempt}", "move": reply})
            await white.receive("ack")
            for tab in (black, twin):
                while len(tab.state["game"]["record"]["moves"]) != 2 * attempt + 2:
                    await tab.receive("event", "welcome")
        return room

    room = run(scenario())
    assert len(stored_moves(postgres_url, room)) == 6


def test_a_dropped_redis_connection_is_restored_and_its_clients_resynced(cluster, redis_url, run):
    first, second = cluster

    async def scenario() -> None:
        room, _, black, white = await seat_players(first, second)
        server = redis.Redis.from_url(redis_url)
        killed = 0
        for client in server.client_list():
            if client.get("name") == f"kingme-{second.pid}" and "SUBSCRIBE" in client.get("cmd", "").upper():
                server.client_kill_filter(_id=client["id"])
                killed += 1
        assert killed >= 1
        # White's process re-subscribes and re-sends the stored state to White.
        assert (await white.receive("welcome"))["state"]["room"] == room
        await black.send({"type": "move", "id": "after", "move": "11-15"})
        assert (await white.receive("event"))["data"]["move"] == "11-15"

    run(scenario())


def test_a_hung_redis_delays_no_acknowledgement_and_opponents_catch_up(postgres_url, tmp_path, find_port, run):
    # Redis is given its longest timeout, twice the client's wait for an answer (``ANSWER_SECONDS``):
    # a server that asked the hung Redis before it answered could answer only after the client
    # had given up.
    with (
        private_redis(find_port(), tmp_path) as (url, redis_server),
        two_servers(postgres_url, url, tmp_path, find_port, KINGME_REDIS_TIMEOUT="60") as (first, second),
    ):

        async def scenario() -> None:
            room, tokens, black, white = await seat_players(first, second)
            twin = await RoomClient.open(first.ws, room, tokens["white"])  # White's tab on Black's process
            redis_server.send_signal(signal.SIGSTOP)
            try:
                await black.send({"type": "move", "id": "b1", "move": "11-15"})
                # Acknowledged (stored) without waiting on Redis, and seen on the same process at once.
                assert (await black.receive("ack", "error"))["type"] == "ack"
                assert (await twin.receive("event"))["data"]["move"] == "11-15"
                # The other process reads the room's version from the database and catches up.
                while len(white.state["game"]["record"]["moves"]) < 1:
                    await white.receive("event", "welcome")
                await white.send({"type": "move", "id": "w1", "move": "22-18"})
                assert (await white.receive("ack", "error"))["type"] == "ack"
            finally:
                redis_server.send_signal(signal.SIGCONT)
            while len(black.state["game"]["record"]["moves"]) < 2:
                await black.receive("event", "welcome")
            await black.send({"type": "move", "id": "b2", "move": "15x22"})
            assert (await black.receive("ack", "error"))["type"] == "ack"
            while len(white.state["game"]["record"]["moves"]) < 3:
                await white.receive("event", "welcome")
            assert [move for _, move in stored_moves(postgres_url, room)] == ["11-15", "22-18", "15x22"]

        run(scenario())

"""The web app serves online play: rooms over HTTP and their WebSocket, next to everything else."""

from __future__ import annotations

import asyncio

from kingme.server.app import create_app
from kingme.server.online import OnlineConfig
from kingme.server.online.client import RoomClient, http_json
from kingme.server.settings import Settings


class NoEngine:
    """Online play needs no engine; the app's lifespan warms one up, so this answers at once."""

    async def choose_move(self, record: dict, level: str) -> str:
        return "11-15"

    async def hint(self, record: dict) -> str:
        return "11-15"

    def close(self) -> None:
        pass


def test_the_web_app_creates_joins_and_plays_rooms(tmp_path, make_server, run):
    settings = Settings(data_dir=tmp_path, engine_workers=1)
    app = create_app(settings, engine_factory=lambda workers: NoEngine())

    async def scenario(server) -> None:
        _, created = await asyncio.to_thread(http_json, "POST", f"{server.http}/api/rooms", {"side": "black"})
        _, joined = await asyncio.to_thread(http_json, "POST", f"{server.http}/api/rooms/{created['room']}/join")
        status, _ = await asyncio.to_thread(http_json, "GET", f"{server.http}/api/rooms/{'Q' * 22}")
        assert status == 404 and joined["color"] == "white"
        black = await RoomClient.open(
            server.ws, created["room"], created["token"], origin=f"http://127.0.0.1:{server.port}"
        )
        white = await RoomClient.open(server.ws, created["room"], joined["token"])
        await black.send({"type": "move", "id": "m1", "move": "11-15"})
        assert (await black.receive("ack"))["n"] == 3
        assert (await white.receive("event"))["data"]["move"] == "11-15"

    with make_server(settings, OnlineConfig(), app) as server:
        run(scenario(server))
    assert (tmp_path / "kingme.sqlite3").exists()

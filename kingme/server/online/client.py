"""A small client of the online protocol, for tests, ``kingme bench online`` and scripts.

It keeps what a browser keeps: the seat token, the last event number seen and the last state.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any

import orjson
from websockets.asyncio.client import ClientConnection, connect

from kingme.server.online.wire import Hello

#: Seconds ``RoomClient`` waits for the server's next message before it gives up: a bound only,
#: so that a server that stopped answering fails a test or a script instead of hanging it, and
#: a generous one (the test suite waits as long for anything), since a slow server on a loaded
#: machine is not a broken one.
ANSWER_SECONDS = 30.0


def http_json(method: str, url: str, body: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
    """One JSON request (blocking; run it in a thread from async code). Returns (status, body)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


class RoomClient:
    """One WebSocket connection to a room, after its hello has been answered. Messages are read
    with orjson: the benchmark's client reads a whole state a move, on the cores the server needs."""

    def __init__(self, connection: ClientConnection, welcome: dict[str, Any]) -> None:
        self.connection = connection
        self.welcome = welcome
        self.state: dict[str, Any] = welcome.get("state", {})
        self.last_event: int = welcome.get("version", 0)
        self.player: int | None = welcome.get("you", {}).get("player")

    @classmethod
    async def open(
        cls, ws_base: str, room: str, token: str | None = None, last_event: int | None = None, **options: Any
    ) -> RoomClient:
        """Connect and say hello; raises ``RuntimeError`` with the server's error if refused."""
        connection = await connect(f"{ws_base}/ws/rooms/{room}", **options)
        await connection.send(Hello(token, last_event).to_wire())
        while True:
            answer = orjson.loads(await asyncio.wait_for(connection.recv(), timeout=ANSWER_SECONDS))
            if answer["type"] == "welcome":
                return cls(connection, answer)
            if answer["type"] == "error":
                await connection.close()
                raise RuntimeError(f"{answer['code']}: {answer['message']}")

    @property
    def color(self) -> str | None:
        """This player's colour in the current game (None for spectators)."""
        sides = self.state.get("sides", {})
        return next((color for color, player in sides.items() if player == self.player), None)

    async def send(self, message: dict[str, Any] | str | bytes) -> None:
        await self.connection.send(message if isinstance(message, (str, bytes)) else json.dumps(message))

    async def receive(self, *types: str, timeout: float = ANSWER_SECONDS) -> dict[str, Any]:
        """The next message (of one of ``types`` if given; others are read and skipped, a
        probe answered on the way)."""
        while True:
            message: dict[str, Any] = orjson.loads(await asyncio.wait_for(self.connection.recv(), timeout=timeout))
            if message["type"] in ("event", "welcome"):
                self.state = message["state"]
                self.last_event = message.get("n", message.get("version", self.last_event))
            if not types or message["type"] in types:
                return message
            if message["type"] == "probe":  # answered at once, as a page does (else its seat shows reconnecting)
                await self.send({"type": "probe", "n": message["n"]})

    async def close(self) -> None:
        await self.connection.close()

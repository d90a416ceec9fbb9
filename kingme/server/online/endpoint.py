"""HTTP routes for creating and joining rooms, and the WebSocket each room's clients talk on.

HTTP (JSON in, JSON out; refusals are the edge's ``{"error": message, "code": code}``, with the
status ``wire.HTTP_STATUS`` gives each code):

- ``POST /api/rooms`` ``{"variant": "american"|"casual", "side": "black"|"white"|"random",
  "time_control": "untimed"|"3+2"|"5+0"|"10+5"|"15+10"|"1d"|"2d"|"3d"}`` →
  201 ``{"room", "token", "player": 1, "color", "invite_path"}``
- ``GET /api/rooms/{room}`` → ``{"room", "variant", "seated", "open", "expires_at", "time_control"}``;
  404 unknown, 410 expired
- ``POST /api/rooms/{room}/join`` → 201 ``{"room", "token", "player": 2, "color"}``; 409 when both seats are taken

WebSocket ``/ws/rooms/{room}``: the messages are in ``wire.py``; after the hello, ``HANDLERS`` says
what each does. Both are listed in docs/architecture.md.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket

from kingme.server.edge import only_fields, read_json
from kingme.server.online.hub import Client
from kingme.server.online.limits import origin_allowed
from kingme.server.online.service import OnlineService
from kingme.server.online.wire import (
    CLIENT_MESSAGES,
    MAX_MESSAGE_BYTES,
    ClientMessage,
    Hello,
    Ping,
    Pong,
    ProbeAnswer,
    ProtocolError,
    RoomAction,
    Sync,
    parse,
)

log = logging.getLogger("kingme.online")

#: WebSocket close codes after a refused hello.
CLOSE = {"unknown_room": 4404, "expired": 4410, "bad_token": 4401, "room_crowded": 1013}


def routes(service_of: Any) -> list[BaseRoute]:
    """The online routes; ``service_of()`` returns the running ``OnlineService``. What they
    raise is answered by the edge's ``EXCEPTION_HANDLERS``, like every other route."""

    async def create(request: Request) -> JSONResponse:
        data = await read_json(request, MAX_MESSAGE_BYTES)
        only_fields(data, {"variant", "side", "time_control"})
        address = request.client.host if request.client else "unknown"
        service = service_of()
        variant, side = data.get("variant", "american"), data.get("side", "random")
        seat = await service.create_room(variant, side, address, data.get("time_control", "untimed"))
        body = {
            "room": seat.room,
            "token": seat.token,
            "player": seat.player,
            "color": seat.color,
            "invite_path": f"/?room={seat.room}",
        }
        return JSONResponse(body, status_code=201)

    async def describe(request: Request) -> JSONResponse:
        return JSONResponse(await service_of().describe(request.path_params["room"]))

    async def join(request: Request) -> JSONResponse:
        seat = await service_of().join(request.path_params["room"])
        body = {"room": seat.room, "token": seat.token, "player": seat.player, "color": seat.color}
        return JSONResponse(body, status_code=201)

    async def socket(websocket: WebSocket) -> None:
        await serve_socket(service_of(), websocket)

    return [
        Route("/api/rooms", create, methods=["POST"]),
        Route("/api/rooms/{room}", describe, methods=["GET"]),
        Route("/api/rooms/{room}/join", join, methods=["POST"]),
        WebSocketRoute("/ws/rooms/{room}", socket),
    ]


async def _receive(websocket: WebSocket) -> str | bytes | None:
    """The next text or binary frame, or None once the client has gone."""
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        return None
    text = message.get("text")
    return text if text is not None else message.get("bytes") or b""


async def serve_socket(service: OnlineService, websocket: WebSocket) -> None:
    """One connection: Origin check, hello, then requests until the client leaves."""
    config = service.config
    origin, host = websocket.headers.get("origin"), websocket.headers.get("host")
    if not origin_allowed(origin, host, websocket.url.scheme, config.allowed_origins):
        await websocket.close(code=4403)
        return
    await websocket.accept()
    client = Client(websocket.send_text, lambda code: websocket.close(code=code), config)
    writer = asyncio.create_task(client.write())
    prober: asyncio.Task[None] | None = None
    try:
        if await _greet(service, client, websocket):
            if client.player is not None:
                prober = asyncio.create_task(_probe(service, client, config.probe_seconds))
            await _serve(service, client, websocket)
    finally:
        if prober is not None:
            prober.cancel()
        await service.disconnect(client)
        client.close(1000)
        try:
            await asyncio.wait_for(writer, timeout=5)
        except Exception as error:  # a peer that stopped reading: its connection is closed anyway
            log.debug("a client's writer of room %s did not finish: %r", client.room_id, error)


async def _greet(service: OnlineService, client: Client, websocket: WebSocket) -> bool:
    """Wait for a valid hello and welcome the client; False if the connection ends instead."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + service.config.hello_timeout
    while True:
        try:
            frame = await asyncio.wait_for(_receive(websocket), timeout=max(0.0, deadline - loop.time()))
        except TimeoutError:
            log.debug("a connection to a room said no hello within %s s", service.config.hello_timeout)
            client.send(ProtocolError("hello_timeout", 'say hello first: {"type": "hello"}').to_wire())
            client.close(4408)
            return False
        if frame is None:
            return False
        try:
            if not client.bucket.allow():
                raise ProtocolError("rate_limited", "too many messages; slow down")
            message = parse(frame)
            if not isinstance(message, Hello):
                raise ProtocolError("hello_first", "the first message must be hello")
            await service.connect(client, websocket.path_params["room"], message)
            return True
        except ProtocolError as error:
            _refused(client, error)
            if error.code in CLOSE:
                client.close(CLOSE[error.code])
                return False


async def _serve(service: OnlineService, client: Client, websocket: WebSocket) -> None:
    while not client.closed:
        frame = await _receive(websocket)
        if frame is None:
            return
        try:
            if not await service.allow_message(client):
                raise ProtocolError("rate_limited", "too many messages; slow down")
            message = parse(frame)
            await HANDLERS[type(message)](service, client, message)
        except ProtocolError as error:
            _refused(client, error)


def _refused(client: Client, error: ProtocolError) -> None:
    """Tell the client alone what was refused (logged at debug: refusals are the clients' doing)."""
    log.debug("refused a message to room %s: %s (%s)", client.room_id, error.code, error.message)
    client.send(error.to_wire())


async def _pong(_service: OnlineService, client: Client, _ping: Ping) -> None:
    client.send(Pong().to_wire())


async def _probe(service: OnlineService, client: Client, seconds: float) -> None:
    """Probe a player's connection now and every ``seconds``: its round trip corrects the
    clocks (lag compensation), and probes left unanswered show its seat reconnecting."""
    while not client.closed:
        service.hub.probe(client)
        await asyncio.sleep(seconds)


async def _probe_answered(service: OnlineService, client: Client, answer: ProbeAnswer) -> None:
    service.hub.answered(client, answer.n)


async def _hello_again(_service: OnlineService, _client: Client, _hello: Hello) -> None:
    raise ProtocolError("already_greeted", "this connection has already said hello")


async def _sync(service: OnlineService, client: Client, sync: Sync) -> None:
    await service.resync(client, sync.last_event)


async def _act(service: OnlineService, client: Client, action: RoomAction) -> None:
    await service.act(client, action)


#: What each message does once the connection has said hello: a room action (``RoomAction``)
#: goes to the room, which decides on it.
HANDLERS: dict[type[ClientMessage], Callable[[OnlineService, Client, Any], Awaitable[None]]] = {
    Ping: _pong,
    ProbeAnswer: _probe_answered,
    Hello: _hello_again,
    Sync: _sync,
    **{kind: _act for kind in CLIENT_MESSAGES.values() if issubclass(kind, RoomAction)},
}

"""One client cannot hold the server: unfinished request heads time out, heads are bounded,
one address holds a bounded number of connections — and real requests keep working."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import socket
from collections.abc import Iterator

import pytest
import uvicorn
from uvicorn.server import ServerState
from waiting import WAIT_SECONDS, wait_until
from websockets.client import ClientProtocol
from websockets.protocol import State
from websockets.server import ServerProtocol
from websockets.uri import parse_uri

from kingme.server.connection_limits import ConnectionLimits, guarded_protocols, uvicorn_options
from kingme.server.online.client import RoomClient, http_json
from kingme.server.online.wire import Hello
from kingme.server.settings import Settings

from .conftest import TEST_CONFIG, ThreadedServer


@pytest.fixture
def strict_server(tmp_path) -> Iterator[ThreadedServer]:
    limits = ConnectionLimits(handshake_seconds=1, idle_seconds=1, per_address=300, header_bytes=8192)
    with ThreadedServer(Settings(data_dir=tmp_path), TEST_CONFIG, limits=limits) as server:
        yield server


def answer_of(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (each read bounded by ``WAIT_SECONDS``)."""
    sock.settimeout(WAIT_SECONDS)
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def still_serving(server: ThreadedServer) -> bool:
    status, answer = http_json("GET", f"{server.http}/api/rooms/{'Z' * 22}")
    return status == 404 and answer["code"] == "unknown_room"


def serving_after_refusals(server: ThreadedServer) -> bool:
    """Whether ``server`` answers a request, once it notices that the connections it counted have closed."""
    try:
        return still_serving(server)
    except (OSError, json.JSONDecodeError):  # refused at the door meanwhile
        return False


def test_connections_that_never_finish_their_request_head_are_closed(strict_server):
    crowd = [socket.create_connection(("127.0.0.1", strict_server.port)) for _ in range(200)]
    try:
        for sock in crowd:
            sock.sendall(b"GET /api/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        assert still_serving(strict_server)  # real requests are answered meanwhile
        for sock in crowd:
            assert answer_of(sock) == b""  # closed by the server, without an answer
        assert still_serving(strict_server)
    finally:
        for sock in crowd:
            sock.close()


def test_an_oversized_request_head_is_refused_with_json_and_not_kept(strict_server):
    with socket.create_connection(("127.0.0.1", strict_server.port)) as sock:
        sock.sendall(b"GET /api/rooms/x HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\n")
        answer = answer_of(sock)
    head, _, body = answer.partition(b"\r\n\r\n")
    # Refused by the protocol if it arrived in pieces, or by the edge if it arrived whole.
    assert head.split(b" ")[1] in (b"400", b"431"), head
    assert json.loads(body)["code"] in ("bad_request", "headers_too_large")
    assert still_serving(strict_server)


def test_one_address_holds_a_bounded_number_of_connections(tmp_path):
    limits = ConnectionLimits(handshake_seconds=30, per_address=10)
    with ThreadedServer(Settings(data_dir=tmp_path), TEST_CONFIG, limits=limits) as server:
        held = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(10)]
        try:
            with socket.create_connection(("127.0.0.1", server.port)) as extra:
                head, _, body = answer_of(extra).partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 429") and json.loads(body)["code"] == "too_many_connections"
        finally:
            for sock in held:
                sock.close()
        wait_until(lambda: serving_after_refusals(server), "the server served again once the connections closed")


def test_websockets_count_against_their_address_too(tmp_path, run):
    limits = ConnectionLimits(per_address=3)
    with ThreadedServer(Settings(data_dir=tmp_path), TEST_CONFIG, limits=limits) as server:

        async def scenario() -> None:
            from kingme.server.online.client import RoomClient

            status, created = await asyncio.to_thread(http_json, "POST", f"{server.http}/api/rooms", {})
            assert status == 201
            watchers = [await RoomClient.open(server.ws, created["room"]) for _ in range(3)]
            with pytest.raises(Exception):  # noqa: B017 - refused at the door, whatever the client library calls it
                await RoomClient.open(server.ws, created["room"])
            for watcher in watchers:
                await watcher.close()

        run(scenario())


def test_websocket_messages_are_not_compressed_even_when_the_client_offers_it(tmp_path, run):
    """Compressing each state for each connection cost the event loop more than it saved."""
    with ThreadedServer(Settings(data_dir=tmp_path), TEST_CONFIG, limits=ConnectionLimits()) as server:

        async def scenario() -> None:
            status, created = await asyncio.to_thread(http_json, "POST", f"{server.http}/api/rooms", {})
            assert status == 201
            watcher = await RoomClient.open(server.ws, created["room"], compression="deflate")
            response = watcher.connection.response
            assert response is not None and "Sec-WebSocket-Extensions" not in response.headers
            await watcher.close()

        run(scenario())


def test_seat_tokens_never_reach_the_log_even_at_debug_level(server, lobby, run):
    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record.getMessage())

    logger, keep = logging.getLogger("uvicorn.error"), Keep()
    level = logger.level
    logger.addHandler(keep)
    logger.setLevel(logging.DEBUG)
    try:

        async def scenario() -> str:
            table = await lobby.table()
            await table.black.send({"type": "ping"})
            await table.black.receive("pong")
            return table.tokens["black"]

        token = run(scenario())
    finally:
        logger.setLevel(level)
        logger.removeHandler(keep)
    assert not [line for line in records if token in line]


def server_connections_alive() -> int:
    """WebSocket connections the server side still holds in memory, open or closed."""
    return sum(type(thing) is ServerProtocol for thing in gc.get_objects())


def test_closed_websocket_connections_are_freed_at_once_not_left_for_the_collector(tmp_path, run):
    # The server collects reference cycles rarely (gc_tuning), so a closed connection must not
    # wait for the collector: each one held its compression state, and a soak grew by 146 MB.
    gc.collect()
    gc.disable()
    try:
        with ThreadedServer(Settings(data_dir=tmp_path), TEST_CONFIG) as server:

            async def churn() -> None:
                _, created = await asyncio.to_thread(http_json, "POST", f"{server.http}/api/rooms", {})
                for _ in range(20):
                    await (await RoomClient.open(server.ws, created["room"])).close()

            run(churn())
            # The server finishes closing on its own thread.
            wait_until(lambda: server_connections_alive() == 0, "every closed connection was freed")
    finally:
        gc.enable()


class TimerLoop:
    """Stands in for a protocol's event loop, keeping the delay of every timer it is asked for."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def call_later(self, delay: float, _callback: object, *_args: object) -> None:
        self.delays.append(delay)


def first_ping_delays(limits: ConnectionLimits, connections: int) -> list[float]:
    """How long after its handshake each of ``connections`` new WebSocket connections is first pinged."""
    _, websocket = guarded_protocols(limits)
    config = uvicorn.Config(lambda *_: None, **uvicorn_options(limits))
    config.load()
    loop = TimerLoop()
    for _ in range(connections):
        websocket(config, ServerState(), {}, _loop=loop).start_keepalive()
    return loop.delays


def test_connections_opened_together_are_first_pinged_at_scattered_moments_of_the_interval():
    # Pinged one interval after the handshake, 2,000 connections opened in one burst were pinged
    # in one burst every 20 s, and the moves played meanwhile waited.
    delays = first_ping_delays(ConnectionLimits(keepalive_seconds=20), 200)
    assert len(delays) == 200 and all(0 <= delay <= 20 for delay in delays)
    assert {int(delay // 2) for delay in delays} >= set(range(10))  # every tenth of the interval


def test_a_websocket_whose_peer_stops_answering_pings_is_closed(tmp_path):
    limits = ConnectionLimits(keepalive_seconds=0.2)
    with ThreadedServer(Settings(data_dir=tmp_path), TEST_CONFIG, limits=limits) as server:
        _, created = http_json("POST", f"{server.http}/api/rooms", {})
        peer = ClientProtocol(parse_uri(f"{server.ws}/ws/rooms/{created['room']}"))
        peer.send_request(peer.connect())
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.settimeout(WAIT_SECONDS)
            sock.sendall(b"".join(peer.data_to_send()))
            while peer.state is not State.OPEN:
                peer.receive_data(sock.recv(65536))
            peer.send_text(Hello(None, None).to_wire().encode())
            sock.sendall(b"".join(peer.data_to_send()))
            peer.receive_data(answer_of(sock))  # the welcome and pings, till the server closes; no pong is sent
    assert peer.close_rcvd is not None and peer.close_rcvd.code == 1011  # keepalive ping timeout

"""Limits on connections, enforced below the app: what uvicorn is told, and the protocols it runs.

Without them one client could hold the server: sockets that never finish their request head
(slowloris) stayed open for ever, an unlimited header was read whole, and a few thousand idle
sockets used up the file limit. Here every connection must finish its request head within
``handshake_seconds``, a head is at most ``header_bytes``, one address holds at most
``per_address`` connections (HTTP and WebSocket alike), and past ``total`` the server answers 503.
Refusals sent before the app sees a request are JSON, like every other refusal. A WebSocket whose
peer has gone without a word is found by its keepalive pings, which are spread over their
interval so that connections opened together are not all pinged together.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.auto import AutoWebSocketsProtocol

from kingme.server.environment import whole_number


@dataclass(frozen=True)
class ConnectionLimits:
    """``KINGME_MAX_HEADER_BYTES``, ``KINGME_HANDSHAKE_TIMEOUT``, ``KINGME_IDLE_TIMEOUT``,
    ``KINGME_CONNECTIONS_PER_ADDRESS`` and ``KINGME_MAX_CONNECTIONS`` may be set."""

    #: The largest request head (request line and headers) read, in bytes.
    header_bytes: int = 16 * 1024
    #: Seconds a connection has to send its whole request head.
    handshake_seconds: int = 10
    #: Seconds an idle keep-alive connection is kept between requests.
    idle_seconds: int = 5
    #: Connections one client address may hold open at once.
    per_address: int = 256
    #: Connections (and requests in progress) the server serves at once; past it, 503.
    total: int = 10_000
    #: Seconds between a WebSocket's keepalive pings; one not answered within as many seconds
    #: closes the connection (uvicorn's defaults, named here so that tests can shorten them).
    keepalive_seconds: float = 20.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> ConnectionLimits:
        return cls(
            header_bytes=whole_number(env, "KINGME_MAX_HEADER_BYTES", cls.header_bytes, 1024, 1024 * 1024),
            handshake_seconds=whole_number(env, "KINGME_HANDSHAKE_TIMEOUT", cls.handshake_seconds, 1, 600),
            idle_seconds=whole_number(env, "KINGME_IDLE_TIMEOUT", cls.idle_seconds, 1, 600),
            per_address=whole_number(env, "KINGME_CONNECTIONS_PER_ADDRESS", cls.per_address, 1, 1_000_000),
            total=whole_number(env, "KINGME_MAX_CONNECTIONS", cls.total, 1, 1_000_000),
        )


def uvicorn_options(limits: ConnectionLimits) -> dict[str, Any]:
    """Keyword arguments of ``uvicorn.Config`` (and ``uvicorn.run``) that enforce ``limits``.

    Proxy headers are off: ``X-Forwarded-For`` is honoured by the app, and only from the proxies
    named in ``KINGME_TRUSTED_PROXIES``. WebSocket frames far above the protocol's 4 KB limit are
    refused before they are read whole.

    WebSocket messages are not compressed (permessage-deflate off): a state of a few KB costs each
    connection a compression per message, which was 11% of the server's event loop at 1,000 games,
    while saving a few KB per move that no player's connection notices."""
    http, ws = guarded_protocols(limits)
    return {
        "http": http,
        "ws": ws,
        "h11_max_incomplete_event_size": limits.header_bytes,
        "timeout_keep_alive": limits.idle_seconds,
        "limit_concurrency": limits.total,
        "proxy_headers": False,
        "server_header": False,
        "ws_max_size": 65536,
        "ws_per_message_deflate": False,
        "ws_ping_interval": limits.keepalive_seconds,
        "ws_ping_timeout": limits.keepalive_seconds,
    }


def guarded_protocols(limits: ConnectionLimits) -> tuple[type[asyncio.Protocol], type[asyncio.Protocol]]:
    """The HTTP and WebSocket protocol classes for one server, sharing its count per address."""
    if AutoWebSocketsProtocol is None:
        raise RuntimeError("the websockets package is missing; reinstall kingme")
    open_by_address: Counter[str] = Counter()
    websocket_base: Any = AutoWebSocketsProtocol

    def address_of(protocol: Any) -> str:
        return protocol.client[0] if protocol.client else ""

    def release(protocol: Any) -> None:
        """Stop counting ``protocol``'s connection against its address (once)."""
        if protocol._counted:
            protocol._counted = False
            address = address_of(protocol)
            open_by_address[address] -= 1
            if open_by_address[address] <= 0:
                del open_by_address[address]

    class GuardedHTTP(H11Protocol):
        """h11 with a deadline on the request head and a cap per client address."""

        _head_timer: asyncio.TimerHandle | None = None
        _counted = False

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            address = address_of(self)
            if open_by_address[address] >= limits.per_address:
                self.send_error(429, "too_many_connections", "too many connections from this address")
                return
            open_by_address[address] += 1
            self._counted = True
            self._arm_head_timer()

        def _arm_head_timer(self) -> None:
            self._cancel_head_timer()
            self._head_timer = self.loop.call_later(limits.handshake_seconds, self._head_timed_out)

        def _cancel_head_timer(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_timed_out(self) -> None:
            self._head_timer = None
            if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:
                self._cancel_head_timer()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm_head_timer()  # the next request's head has the same deadline

        def connection_lost(self, exc: Exception | None) -> None:
            super().connection_lost(exc)
            self._cancel_head_timer()
            release(self)

        def handle_websocket_upgrade(self, event: h11.Request) -> None:
            self._cancel_head_timer()
            release(self)  # the WebSocket protocol counts the connection from here on
            super().handle_websocket_upgrade(event)

        def send_400_response(self, msg: str) -> None:
            self.send_error(400, "bad_request", f"the request could not be read: {msg}")

        def send_error(self, status: int, code: str, message: str) -> None:
            """Answer ``{"error", "code"}`` before any app sees the request, and close."""
            body = json.dumps({"error": message, "code": code}).encode()
            head = f"HTTP/1.1 {status} {'Bad Request' if status == 400 else 'Too Many Requests'}\r\n"
            headers = f"content-type: application/json\r\ncontent-length: {len(body)}\r\nconnection: close\r\n\r\n"
            self.transport.write(head.encode() + headers.encode() + body)
            self.transport.close()

    class GuardedWebSocket(websocket_base):  # type: ignore[misc]
        """The WebSocket protocol, counted against its client address while open, with its
        keepalive pings at a phase of its own; it never logs frames (a ``hello`` carries a seat
        token), whatever the log level."""

        _counted = False

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            if hasattr(self, "conn"):
                self.conn.debug = False

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            address = address_of(self)
            open_by_address[address] += 1
            self._counted = True

        def start_keepalive(self) -> None:
            """Ping first at a random moment of the interval, not one whole interval after the
            handshake. uvicorn pings each connection every interval from its handshake on, so
            connections opened in one burst (2,000 benchmark players, or every player coming
            back after a restart) were pinged in one burst too, again and again. Later pings
            keep the phase, and a ping not answered within the timeout still closes the
            connection."""
            if self.ping_interval:
                delay = random.uniform(0, self.ping_interval)
                self.ping_timer = self.loop.call_later(delay, self.send_keepalive_ping)

        def connection_lost(self, exc: Exception | None) -> None:
            super().connection_lost(exc)
            release(self)
            # websockets' protocol keeps its parser, a generator whose frame refers back to the
            # protocol: a reference cycle that kept every closed connection, with its compression
            # state, until a full collection — rare under gc_tuning, so a soak of 6,000 connects
            # grew the server by 146 MB. Closing the generator breaks the cycle, and reference
            # counting frees the connection now. Nothing steps the parser once the connection is
            # lost (uvicorn refuses to send on a disconnected socket).
            parser = getattr(getattr(self, "conn", None), "parser", None)
            if parser is not None:
                parser.close()

    return GuardedHTTP, GuardedWebSocket

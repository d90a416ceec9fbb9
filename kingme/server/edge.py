"""The HTTP edge: what every request passes before a route, and the one shape of every refusal.

Every route — the one-device API, the daily game, online rooms — reads its body with
``read_json``, checks its fields with ``only_fields`` and refuses by raising ``BadRequest`` (the
online protocol's ``ProtocolError`` is one); the app answers with ``EXCEPTION_HANDLERS``, so
every refusal is ``{"error": message, "code": code}`` with a 4xx status, and a failure is
logged and answered in the same shape (503 when storage fails, 500 otherwise), never with a
traceback or plain text.

``Edge`` (ASGI middleware, for HTTP and WebSocket alike) refuses requests with too many or too
large headers or, when ``KINGME_ALLOWED_HOSTS`` is set, a ``Host`` not on that list (DNS
rebinding); and takes the client's address and scheme from ``X-Forwarded-For`` / ``X-Forwarded-Proto`` only when the
connection comes from a proxy listed in ``KINGME_TRUSTED_PROXIES``.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from kingme.server.connection_limits import ConnectionLimits
from kingme.server.environment import items, whole_number
from kingme.server.storage import StorageError

log = logging.getLogger("kingme.server")

#: The largest request body accepted. A record of the longest legal game is about 130 kB.
MAX_BODY_BYTES = 256 * 1024
#: Stable codes of the statuses refusals use when they name none.
CODES = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    429: "rate_limited",
}

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class BadRequest(Exception):
    """A request refused: ``status`` (4xx), a stable ``code``, and a ``message`` for people."""

    def __init__(self, message: str, status: int = 400, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code or CODES.get(status, "bad_request")


def refusal(status: int, code: str, message: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    """The one shape of every refusal."""
    return JSONResponse({"error": message, "code": code}, status_code=status, headers=headers)


async def read_json(request: Request, max_bytes: int = MAX_BODY_BYTES) -> dict[str, Any]:
    """The request body as a JSON object, refusing oversized, non-JSON, too deeply nested and
    non-object bodies (an empty body is refused too)."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > max_bytes):
        raise BadRequest(f"the request body must be at most {max_bytes} bytes", 413)
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > max_bytes:
            raise BadRequest(f"the request body must be at most {max_bytes} bytes", 413)
    if not body:
        raise BadRequest("the request body is empty; send a JSON object")
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BadRequest(f"the request body is not valid JSON: {error}", code="bad_json") from None
    except RecursionError:
        raise BadRequest("the request body is nested too deeply", code="bad_json") from None
    if not isinstance(data, dict):
        raise BadRequest("the request body must be a JSON object")
    return data


def only_fields(data: dict[str, Any], allowed: set[str]) -> None:
    """Refuse fields other than ``allowed``, naming them."""
    unknown = set(data) - allowed
    if unknown:
        raise BadRequest(f"unknown field(s): {', '.join(sorted(map(str, unknown)))[:200]}")


async def bad_request(request: Request, error: Exception) -> JSONResponse:
    """The handler of ``BadRequest``."""
    assert isinstance(error, BadRequest)
    return refusal(error.status, error.code, error.message)


async def storage_failed(request: Request, error: Exception) -> JSONResponse:
    """The handler of ``StorageError``: the database is away or failing, so 503 (try again)."""
    log.warning("%s %s: %s", request.method, request.url.path, error)
    return refusal(503, "unavailable", "the server cannot reach its storage right now; try again shortly")


async def unexpected(request: Request, error: Exception) -> JSONResponse:
    """Anything else: logged with its traceback, answered in the refusal shape without one."""
    log.error("%s %s failed", request.method, request.url.path, exc_info=error)
    return refusal(500, "internal_error", "the server failed to answer this request; try again")


#: The app's answers to what a route raises (``kingme.server.api`` adds the rules core's errors).
EXCEPTION_HANDLERS = {BadRequest: bad_request, StorageError: storage_failed, Exception: unexpected}


def _networks(env: Mapping[str, str], name: str) -> tuple[Network, ...]:
    try:
        return tuple(ipaddress.ip_network(item, strict=False) for item in items(env, name))
    except ValueError as error:
        raise ValueError(f"{name} must list IP addresses or networks separated by commas: {error}") from None


@dataclass(frozen=True)
class EdgeSettings:
    """``KINGME_ALLOWED_HOSTS`` (host names, ``:port`` optional), ``KINGME_TRUSTED_PROXIES``
    (addresses or networks) and ``KINGME_MAX_HEADERS``."""

    allowed_hosts: tuple[str, ...] = ()
    trusted_proxies: tuple[Network, ...] = ()
    max_headers: int = 100
    #: The request head's largest size (``KINGME_MAX_HEADER_BYTES``): the server's protocol
    #: refuses a head that arrives in pieces past it, and this a head that arrived whole.
    max_header_bytes: int = ConnectionLimits.header_bytes

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> EdgeSettings:
        hosts = tuple(host.lower() for host in items(env, "KINGME_ALLOWED_HOSTS"))
        count = whole_number(env, "KINGME_MAX_HEADERS", cls.max_headers, 10, 1000)
        proxies = _networks(env, "KINGME_TRUSTED_PROXIES")
        header_bytes = ConnectionLimits.from_env(env).header_bytes
        return cls(allowed_hosts=hosts, trusted_proxies=proxies, max_headers=count, max_header_bytes=header_bytes)

    def trusts(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.trusted_proxies)

    def host_allowed(self, host: str) -> bool:
        """Whether ``host`` (a ``Host`` header) may be served; any host when none are listed."""
        if not self.allowed_hosts:
            return True
        host = host.strip().lower()
        name = host[: host.index("]") + 1] if host.startswith("[") and "]" in host else host.split(":")[0]
        return host in self.allowed_hosts or name in self.allowed_hosts

    def client(self, peer: str, forwarded_for: str | None) -> str:
        """The client's address: the peer's, or — from a trusted proxy — the last address in
        ``X-Forwarded-For`` that is not itself a trusted proxy."""
        if not forwarded_for or not self.trusts(peer):
            return peer
        hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()]
        for hop in reversed(hops):
            if not self.trusts(hop):
                return hop
        return hops[0] if hops else peer


class Edge:
    """ASGI middleware applying ``EdgeSettings`` to HTTP requests and WebSocket upgrades."""

    def __init__(self, app: ASGIApp, settings: EdgeSettings | None = None) -> None:
        self.app = app
        self.settings = settings or EdgeSettings.from_env()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers: list[tuple[bytes, bytes]] = scope["headers"]
        if len(headers) > self.settings.max_headers:
            await self._refuse(scope, receive, send, 431, "too_many_headers", "the request has too many headers")
            return
        if sum(len(name) + len(value) + 4 for name, value in headers) > self.settings.max_header_bytes:
            limit = self.settings.max_header_bytes
            await self._refuse(scope, receive, send, 431, "headers_too_large", f"headers must be under {limit} bytes")
            return
        named = {name: value.decode("latin-1") for name, value in headers}
        if not self.settings.host_allowed(named.get(b"host", "")):
            await self._refuse(scope, receive, send, 421, "unknown_host", "this server does not serve that host")
            return
        peer = scope.get("client")
        if peer and self.settings.trusted_proxies and self.settings.trusts(peer[0]):
            scope = dict(scope)
            scope["client"] = (self.settings.client(peer[0], named.get(b"x-forwarded-for")), peer[1])
            proto = named.get(b"x-forwarded-proto", "").strip().lower()
            if proto in ("http", "https"):
                secure = proto == "https"
                scope["scheme"] = ("wss" if secure else "ws") if scope["type"] == "websocket" else proto
        await self.app(scope, receive, send)

    @staticmethod
    async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, code: str, message: str) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 4400})
            return
        await refusal(status, code, message)(scope, receive, send)

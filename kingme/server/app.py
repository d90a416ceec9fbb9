"""``create_app``: the ASGI app ``kingme serve`` runs — JSON API, extensions, static front end.

Order of the routes: the one-device API (``/api/...``), then every extension's routes, then
the static front end mounted at ``/`` (``kingme/web``, served as files, no build step). Adding
a part of the server is one line in ``EXTENSIONS`` (see ``kingme.server.extension``).

At start-up the lifespan creates the engine pool and starts warming its workers up (the numba
core is compiled or loaded from its cache there, not at a player's first move), then enters each
extension's lifespan; at shutdown it leaves them in reverse order and closes the pool.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Match, Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kingme.game import Game
from kingme.server import analysis, api, daily, endgame_tables, online, review, static_files
from kingme.server.edge import CODES, Edge, EdgeSettings, refusal
from kingme.server.extension import ExtensionFactory
from kingme.server.settings import Settings

#: The static front end, shipped inside the package.
WEB_DIR = Path(__file__).resolve().parent.parent / "web"

#: The server's optional parts, in mounting order; adding one is one line here (its factory).
EXTENSIONS: tuple[ExtensionFactory, ...] = (
    daily.extension,
    review.extension,
    online.extension,
    analysis.extension,
    endgame_tables.extension,
)

#: Headers on every answer: nothing is sniffed, and no request made from it tells another site
#: where it came from (a style sheet's and a module's own requests follow their own answer's).
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
]
#: Headers only a document reads — the page, an image, an API answer opened in a tab: nothing
#: loads from elsewhere, nothing is framed. A script, a style sheet or a translation file the page
#: loads is governed by the page's policy and ignores its own, so those go without: about 5 KB
#: less of the first visit's 60 KB budget (22 of its 24 answers, docs/operations.md).
DOCUMENT_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        b"connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    ),
    (b"x-frame-options", b"DENY"),
]
#: The front end's files that are never documents (by content type, before any parameter).
SUBRESOURCE_TYPES = (b"text/javascript", b"text/css", b"application/json")


def _subresource(path: str, headers: list[tuple[bytes, bytes]]) -> bool:
    """Whether an answer is one of the front end's scripts, style sheets or translation files
    (an API answer is JSON too, but one a user may open as a document)."""
    kind = next((value for name, value in headers if name.lower() == b"content-type"), b"")
    return not path.startswith("/api") and kind.split(b";")[0].strip() in SUBRESOURCE_TYPES


class SecurityHeaders:
    """ASGI middleware adding ``SECURITY_HEADERS``, ``DOCUMENT_HEADERS`` where they apply, and
    ``no-cache`` revalidation to answers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += SECURITY_HEADERS
                if not _subresource(scope["path"], headers):
                    headers += DOCUMENT_HEADERS
                if not any(name.lower() == b"cache-control" for name, _ in headers):
                    headers.append((b"cache-control", b"no-cache"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class _WebFiles(Mount):
    """The static front end at ``/``, which leaves every ``/api/`` path to the API (404/405 in JSON)."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] == "http" and scope["path"].startswith("/api/"):
            return Match.NONE, {}
        return super().matches(scope)


async def _http_error(request: Request, error: Exception) -> Response:
    """404/405 and friends: JSON under ``/api``, plain text elsewhere."""
    assert isinstance(error, HTTPException)
    if request.url.path.startswith("/api"):
        code = CODES.get(error.status_code, "bad_request")
        return refusal(error.status_code, code, error.detail, headers=error.headers)
    return PlainTextResponse(error.detail, status_code=error.status_code, headers=error.headers)


def _start_pool(workers: int) -> api.Engine:
    from kingme.engine.pool import EnginePool

    return EnginePool(workers=workers)


async def _warm_up(app: Starlette, engine: api.Engine, workers: int) -> None:
    """Start every worker (each compiles or loads the engine once) as the server starts.

    It runs beside the server rather than before it, so pages load at once even when the numba
    core is compiled for the first time (tens of seconds on a busy machine); a computer move asked
    for meanwhile simply waits for its worker. ``/api/info`` tells when the workers are ready.
    """
    record = Game().record()
    await asyncio.gather(*(engine.choose_move(record, "random") for _ in range(workers)))
    app.state.engine_ready = True


def create_app(
    settings: Settings | None = None,
    *,
    engine_factory: Callable[[int], api.Engine] = _start_pool,
    extensions: Sequence[ExtensionFactory] = EXTENSIONS,
) -> Starlette:
    """The kingme web app. ``engine_factory(workers)`` makes the engine (tests pass a double)."""
    settings = settings or Settings.from_env()
    parts = [make(settings) for make in extensions]

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        engine = engine_factory(settings.engine_workers)
        app.state.engine = engine
        app.state.engine_ready = False
        warming = asyncio.create_task(_warm_up(app, engine, settings.engine_workers))
        try:
            async with AsyncExitStack() as stack:
                for part in parts:
                    if part.lifespan is not None:
                        await stack.enter_async_context(part.lifespan(app))
                yield
        finally:
            warming.cancel()
            engine.close()

    routes = [*api.ROUTES, *(route for part in parts for route in part.routes)]
    routes.append(_WebFiles("/", static_files.WebFiles(WEB_DIR), name="web"))
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={**api.EXCEPTION_HANDLERS, HTTPException: _http_error},
    )
    app.state.settings = settings
    app.add_middleware(SecurityHeaders)
    app.add_middleware(GZipMiddleware)  # JSON answers; the static files come gzipped already
    app.add_middleware(Edge, settings=EdgeSettings.from_env())  # outermost: before anything else
    return app

"""HTTP routes of game review: ``POST /api/review`` (a stream) and ``POST /api/review/try``.

A review searches every position of a game (``kingme.review.review``) in the server's engine
pool, never on the event loop. The answer is a stream of JSON lines (``application/x-ndjson``,
``docs/review.md``): the review's place in the queue while it waits, then ``start``, one ``ply``
line per move as soon as it is judged, and ``done``; the page shows the first verdicts while the
last positions are still being searched.

Sharing the engine:

* Positions are searched in order, each holding one of the server's ``engine_slots``
  (max(1, workers − 1), shared with the analysis board's streams) until its worker is done, so a
  computer move in another game always finds a worker free (with two workers or more).
* One review runs at a time; the others wait in line (``ReviewDesk``) and are told their place:
  the first in line finishes soonest.
* A visitor — a client address, as the connection limits count them (behind a proxy listed in
  ``KINGME_TRUSTED_PROXIES``, the address the proxy forwards) — has one review running or waiting
  at most; a second request is refused (409) while it lasts. A closed connection ends its review:
  searches not yet started are dropped, and the place in line is given up.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from kingme.game import Game
from kingme.game.pdn import game_from_pdn
from kingme.review.budgets import Budget, ReviewError, budget_named
from kingme.review.review import (
    MAX_REVIEW_PLIES,
    Position,
    PositionSearch,
    Reviewer,
    attempt_positions,
    check_reviewable,
    judge_attempt,
    search_position,
)
from kingme.rules.pdn import read_pdn
from kingme.server.api import MAX_IMPORT_CHARS
from kingme.server.edge import BadRequest, only_fields, read_json
from kingme.server.extension import Extension
from kingme.server.settings import Settings

log = logging.getLogger("kingme.server")

T = TypeVar("T")

#: Reviews waiting in line at most; more are refused until the line moves (a 60-ply review takes
#: a few seconds, so a full line is about a minute's wait).
MAX_WAITING = 20
#: The longest move text a try may send (the longest capture route is under 40 characters).
MAX_MOVE_CHARS = 40


class ReviewEngine(Protocol):
    """What reviews need of the engine: ``kingme.engine.pool.EnginePool`` or a test double."""

    async def run(self, function: Callable[..., T], *args: Any) -> T: ...


def review_slots(workers: int) -> int:
    """Positions a review searches at once: every worker but one, so a computer move finds one."""
    return max(1, workers - 1)


@dataclass
class _Ticket:
    """A review's place: its visitor, and an event set whenever the line moves."""

    visitor: str
    moved: asyncio.Event = field(default_factory=asyncio.Event)


class ReviewDesk:
    """The line of reviews: the first runs, the others wait in order; one per visitor."""

    def __init__(self) -> None:
        self._line: list[_Ticket] = []

    def admit(self, visitor: str) -> _Ticket:
        """A place in line for ``visitor``; 409 when it has a review running or waiting, 503 when
        the line is full."""
        if any(ticket.visitor == visitor for ticket in self._line):
            raise BadRequest("a review of yours is still running; wait for it to finish or close it", 409)
        if len(self._line) > MAX_WAITING:
            raise BadRequest(f"{MAX_WAITING} reviews are waiting already; try again in a minute", 503, "busy")
        ticket = _Ticket(visitor)
        self._line.append(ticket)
        return ticket

    async def turn(self, ticket: _Ticket) -> AsyncIterator[int]:
        """The reviews ahead of ``ticket`` each time that changes, until its turn comes."""
        while (ahead := self._line.index(ticket)) > 0:
            yield ahead
            ticket.moved.clear()
            await ticket.moved.wait()

    def leave(self, ticket: _Ticket) -> None:
        """Give up ``ticket``'s place (its review ended, or its visitor left); idempotent."""
        if ticket in self._line:
            self._line.remove(ticket)
            for waiting in self._line:
                waiting.moved.set()


def _line(message: dict[str, Any]) -> bytes:
    return (json.dumps(message, separators=(",", ":")) + "\n").encode()


def _free(slots: asyncio.Semaphore, search: asyncio.Future[PositionSearch]) -> None:
    """A search's worker is free again: its slot goes back (an error nobody awaits any more is
    retrieved, so that it is not reported as lost)."""
    slots.release()
    if not search.cancelled():
        search.exception()


async def searched_in_order(
    engine: ReviewEngine, positions: list[Position], budget: Budget, slots: asyncio.Semaphore
) -> AsyncGenerator[PositionSearch, None]:
    """The searches of ``positions`` in order, each sent to the pool once a slot of ``slots`` is
    free — the server's one limit on review and analysis work (``engine_slots``) — and holding it
    until its worker is done, even after the caller has stopped; positions not yet sent are then
    never sent (``kingme bench review`` times this too)."""
    sent: asyncio.Queue[asyncio.Future[PositionSearch]] = asyncio.Queue()

    async def send() -> None:
        for position in positions:
            await slots.acquire()
            search = asyncio.ensure_future(engine.run(search_position, position, budget))
            search.add_done_callback(functools.partial(_free, slots))
            sent.put_nowait(search)

    sending = asyncio.ensure_future(send())
    try:
        for _ in positions:
            yield await asyncio.shield(await sent.get())  # a search sent runs to its end
    finally:
        sending.cancel()


async def _review_lines(
    engine: ReviewEngine, desk: ReviewDesk, ticket: _Ticket, game: Game, budget: Budget, slots: asyncio.Semaphore
) -> AsyncGenerator[bytes, None]:
    async for ahead in desk.turn(ticket):
        yield _line({"type": "queued", "position": ahead})
    reviewer = Reviewer(game)
    searches = searched_in_order(engine, reviewer.positions, budget, slots)
    try:
        async for search in searches:
            judged = reviewer.add(search)
            if judged is None:
                start = {"plies": len(game.moves), "budget": budget.to_dict(), "fen": game.setup.fen}
                yield _line({"type": "start", **start, "initial": search.evaluation.to_dict()})
            else:
                yield _line({"type": "ply", **judged.to_dict()})
        yield _line({"type": "done", **reviewer.summary().to_dict()})
    except Exception as error:  # a worker that died: the page is told, the server goes on
        log.error("a review failed", exc_info=error)
        yield _line({"type": "error", "message": "the review failed on the server; try again"})
    finally:
        await searches.aclose()


class _ReviewStream(StreamingResponse):
    """The review's stream, which ends the review when the client goes away — even while no line
    is due, as during a long wait in line — and always gives up its place in line."""

    def __init__(self, lines: AsyncGenerator[bytes, None], release: Callable[[], None]) -> None:
        headers = {"cache-control": "no-store", "content-encoding": "identity", "x-accel-buffering": "no"}
        super().__init__(lines, media_type="application/x-ndjson", headers=headers)
        self._lines = lines
        self._release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        streaming = asyncio.ensure_future(self.stream_response(send))
        listening = asyncio.ensure_future(self.listen_for_disconnect(receive))
        try:
            await asyncio.wait((streaming, listening), return_when=asyncio.FIRST_COMPLETED)
        finally:
            streaming.cancel()
            listening.cancel()
            await asyncio.gather(streaming, listening, return_exceptions=True)
            await self._lines.aclose()
            self._release()


def _visitor(request: Request) -> str:
    return request.client.host if request.client else ""


def _game(data: dict[str, Any]) -> Game:
    """The one game of the request's ``pdn``, replayed; 4xx naming what is wrong with it."""
    text = data.get("pdn")
    if not isinstance(text, str) or not text.strip():
        raise BadRequest("the request needs 'pdn': the PDN text of the game to review")
    if len(text) > MAX_IMPORT_CHARS:
        raise BadRequest(f"the PDN text must be at most {MAX_IMPORT_CHARS} characters", 413)
    games = read_pdn(text)  # PdnError (422) names the line
    if len(games) != 1:
        raise BadRequest(f"the PDN text holds {len(games)} games; send one", 422, "not_one_game")
    if len(games[0].moves) > MAX_REVIEW_PLIES:  # before replaying thousands of plies on the event loop
        plies = len(games[0].moves)
        raise BadRequest(f"the game has {plies:,} plies; at most {MAX_REVIEW_PLIES} are reviewed", 422, "too_long")
    game = game_from_pdn(games[0])
    try:
        check_reviewable(game)
    except ReviewError as error:
        raise BadRequest(str(error), 422, "not_reviewable") from None
    return game


def _budget(data: dict[str, Any]) -> Budget:
    try:
        return budget_named(data.get("budget", "standard"))
    except ReviewError as error:
        raise BadRequest(str(error)) from None


def _engine(request: Request) -> ReviewEngine:
    engine: ReviewEngine = request.app.state.engine
    return engine


async def review(request: Request) -> StreamingResponse:
    """Review the game of ``pdn`` at ``budget``: a stream of JSON lines (see the module)."""
    data = await read_json(request)
    only_fields(data, {"pdn", "budget"})
    game, budget = _game(data), _budget(data)
    desk: ReviewDesk = request.app.state.reviews
    ticket = desk.admit(_visitor(request))  # the last check: from here on the stream releases it
    lines = _review_lines(_engine(request), desk, ticket, game, budget, request.app.state.engine_slots)
    return _ReviewStream(lines, lambda: desk.leave(ticket))


async def try_move(request: Request) -> JSONResponse:
    """Judge ``move`` played instead of ply ``ply`` of the game of ``pdn``: whether it is found."""
    data = await read_json(request)
    only_fields(data, {"pdn", "ply", "move", "budget"})
    ply, move = data.get("ply"), data.get("move")
    if not isinstance(ply, int) or isinstance(ply, bool):
        raise BadRequest("the request needs 'ply': the number of the move to replace (1 for the first)")
    if not isinstance(move, str) or not move.strip() or len(move) > MAX_MOVE_CHARS:
        raise BadRequest("the request needs 'move': the move to try instead, such as '9-14' or '9x18x27'")
    game, budget = _game(data), _budget(data)
    trying: set[str] = request.app.state.review_tries
    visitor = _visitor(request)
    if visitor in trying:
        raise BadRequest("a move of yours is still being tried; wait for its answer", 409)
    try:
        before, after, proposed = attempt_positions(game, ply, move.strip())
    except ReviewError as error:
        raise BadRequest(str(error), 422, "no_such_ply") from None
    trying.add(visitor)
    try:
        engine = _engine(request)
        searched = await asyncio.gather(
            engine.run(search_position, before, budget), engine.run(search_position, after, budget)
        )
    finally:
        trying.discard(visitor)
    return JSONResponse(judge_attempt(proposed, game.moves[ply - 1], *searched).to_dict())


ROUTES = [
    Route("/api/review", review, methods=["POST"]),
    Route("/api/review/try", try_move, methods=["POST"]),
]


def extension(settings: Settings) -> Extension:
    """Game review, as a part of the app (``kingme.server.app.EXTENSIONS``)."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.reviews = ReviewDesk()
        app.state.review_tries = set()
        app.state.engine_slots = asyncio.Semaphore(review_slots(settings.engine_workers))
        yield

    return Extension("review", ROUTES, lifespan)

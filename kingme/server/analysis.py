"""The analysis board's server part: the engine's best lines of any position, streamed as they deepen.

``POST /api/analyse`` with ``{"fen": "<FEN>", "lines": 1..3}`` answers ``application/x-ndjson``:
one ``{"type": "lines", "depth": D, "nodes": N, "lines": [{"moves": [...], "eval": EVAL}, ...]}``
per completed depth (EVAL as the review contract has it, ``docs/review.md``), until
``MAX_DEPTH``, ``STREAM_NODES`` nodes in all, or lines no deeper search can change. A bad
body, FEN or count, or a position without a move, is refused before any stream (4xx naming it).

Each depth is its own call of ``kingme.review.lines.lines_at`` in the engine pool, never on the
event loop: between two depths the stream can stop, and all streams together hold at most every
worker but one (``Visitors.slots``), so a computer move asked for by another game finds a worker.
The stream stops when the client goes away (the page aborts the request to stop) and when the
same visitor starts another: one stream per visitor, a visitor being the client's address as the
server sees it (after ``edge`` has read a trusted proxy's ``X-Forwarded-For``), as
``connection_limits`` counts connections. A depth already running finishes in its worker (at
most ``STEP_NODES`` nodes a line), keeping its slot, and is thrown away.

``POST /api/analysis/pdn`` with ``{"fen": "<FEN>", "tree": NODE}`` answers ``{"pdn": text}``:
the board's moves as PDN, the first child of each node the main line and the others variations
in parentheses, each node's ``eval`` (optional, with its ``depth``) a comment after its move.
NODE is ``{"move": "11-15", "eval": EVAL, "depth": D, "children": [NODE, ...]}`` (the root has
no move). Every move is checked by replaying it.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

from kingme.engine.movegen import MAX_PLY
from kingme.game import Game
from kingme.game.pdn import game_to_pdn_game
from kingme.review.lines import MAX_LINES, Line, Lines, lines_at, position
from kingme.review.review import Evaluation
from kingme.review.winchance import win_chance
from kingme.rules.fen import START_FEN
from kingme.rules.pdn import PdnGame, PdnVariation, format_game
from kingme.server.edge import BadRequest, only_fields, read_json
from kingme.server.extension import Extension
from kingme.server.review import ReviewEngine
from kingme.server.settings import Settings

#: The deepest search a stream asks for: far past what its node budget reaches in the middle
#: game (depth 19 or so), so it bounds only endings, where the search runs deep quickly.
MAX_DEPTH = 60
#: One line's budget at one depth: about two seconds of a core, so a step ends soon after its
#: stream is stopped, and a computer move waits for at most that long behind it.
STEP_NODES = 10_000_000
#: A stream's total: about half a minute of a core (the search does about 5 million nodes a
#: second), after which the lines stand; the player can start again (stop and go).
STREAM_NODES = 150_000_000
#: The depth of the warm-up analysis each worker does as the server starts: deep enough to use
#: every part of the search, shallow enough to cost nothing (a few milliseconds).
WARM_DEPTH = 4
#: The most moves a PDN export's tree may hold: far more than anyone plays out by hand.
MAX_TREE_MOVES = 2_000
#: The deepest nesting of variations a PDN export accepts (the text nests parentheses as deep).
MAX_TREE_DEPTH = 40


@dataclass
class Ticket:
    """One visitor's running stream; ``ended`` is set when another of the visitor's replaces it.
    ``slots`` are the workers all streams may hold at once (shared by every ticket of a server)."""

    visitor: str
    slots: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(1))
    ended: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass
class Visitors:
    """The streams running, one per visitor: ``begin`` ends the visitor's earlier one. Their
    depths hold at most ``slots`` workers at once: the server's ``engine_slots``, every worker but
    one, shared with reviews (``kingme.server.review``), so a computer move finds a worker however
    many boards and reviews are open."""

    slots: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(1))
    running: dict[str, Ticket] = field(default_factory=dict)

    def begin(self, visitor: str) -> Ticket:
        earlier = self.running.get(visitor)
        if earlier is not None:
            earlier.ended.set()
        ticket = self.running[visitor] = Ticket(visitor, self.slots)
        return ticket

    def end(self, ticket: Ticket) -> None:
        ticket.ended.set()
        if self.running.get(ticket.visitor) is ticket:
            del self.running[ticket.visitor]


def evaluation(line: Line) -> Evaluation:
    """A line's value as the review gives a position's: Black's score and win chance, or a
    proven win in so many plies."""
    if line.win_plies is not None:
        return Evaluation(None, 100.0 if line.win_plies > 0 else 0.0, line.win_plies)
    assert line.score is not None
    return Evaluation(line.score, win_chance(line.score), None)


def lines_message(found: Lines) -> dict[str, Any]:
    """One object of the stream: a depth's lines."""
    lines = [{"moves": list(line.moves), "eval": evaluation(line).to_dict()} for line in found.lines]
    return {"type": "lines", "depth": found.depth, "nodes": found.nodes, "lines": lines}


def _free(slots: asyncio.Semaphore, step: asyncio.Future[Lines]) -> None:
    """A depth's worker is free again: its slot goes back (its result, if nobody waits for it
    any more, is dropped; an error is retrieved so that it is not reported as lost)."""
    slots.release()
    if not step.cancelled():
        step.exception()


async def _first(work: asyncio.Future[Any], ended: asyncio.Event) -> bool:
    """Wait for ``work`` or ``ended``, whichever comes first; whether ``work`` is done."""
    stop = asyncio.ensure_future(ended.wait())
    try:
        await asyncio.wait((work, stop), return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
    return work.done()


async def _step(engine: ReviewEngine, ticket: Ticket, fen: str, depth: int, count: int) -> Lines | None:
    """The lines at ``depth`` from a worker once a slot is free, or ``None`` as soon as
    ``ticket`` has ended. A depth already running keeps its slot until its worker is done.
    (The slot is awaited as it is: a wait raced against ``ended`` in a task of its own would,
    when the client left meanwhile, take a slot later that nobody gives back.)"""
    await ticket.slots.acquire()
    if ticket.ended.is_set():
        ticket.slots.release()
        return None
    step = asyncio.ensure_future(engine.run(lines_at, fen, depth, count, STEP_NODES))
    step.add_done_callback(functools.partial(_free, ticket.slots))
    return step.result() if await _first(step, ticket.ended) else None


async def stream_lines(
    engine: ReviewEngine, ticket: Ticket, fen: str, count: int, gone: Callable[[], Awaitable[bool]]
) -> AsyncIterator[str]:
    """The stream's lines of text, one depth each, until a stop named in the module docstring;
    ``gone()`` tells whether the client has left."""
    total = 0
    for depth in range(1, MAX_DEPTH + 1):
        if ticket.ended.is_set() or await gone():
            return
        found = await _step(engine, ticket, fen, depth, count)
        if found is None or found.exhausted:
            return
        yield json.dumps(lines_message(found)) + "\n"
        total += found.nodes
        if found.final or total >= STREAM_NODES:
            return


def _fen(data: dict[str, Any]) -> str:
    fen = data.get("fen")
    if not isinstance(fen, str) or not fen.strip():
        raise BadRequest("the request needs a 'fen': the position as FEN text, such as B:W18,24:B12,16")
    return fen


def _count(data: dict[str, Any]) -> int:
    count = data.get("lines", MAX_LINES)
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_LINES:
        raise BadRequest(f"'lines' must be a whole number from 1 to {MAX_LINES}")
    return count


def _visitor(request: Request) -> str:
    return request.client.host if request.client else ""


async def analyse(request: Request) -> StreamingResponse:
    """The stream of the best lines of ``fen``, deepening (see the module docstring)."""
    data = await read_json(request)
    only_fields(data, {"fen", "lines"})
    fen, count = _fen(data), _count(data)
    position(fen)  # a bad FEN or a position without a move: refused now, by the rules' message
    visitors: Visitors = request.app.state.analysis_visitors
    engine: ReviewEngine = request.app.state.engine
    ticket = visitors.begin(_visitor(request))

    async def body() -> AsyncIterator[str]:
        try:
            async for text in stream_lines(engine, ticket, fen, count, request.is_disconnected):
                yield text
        finally:
            visitors.end(ticket)

    # Sent as it comes: the app's gzip would hold the short lines back until it had a block.
    headers = {"content-encoding": "identity", "cache-control": "no-store"}
    return StreamingResponse(body(), media_type="application/x-ndjson", headers=headers)


def _eval_comment(node: dict[str, Any]) -> str | None:
    """A node's EVAL as a PDN comment: ``eval +0.25, depth 14`` (men, Black's view) or
    ``eval #12`` / ``eval #-12`` for a win in 12 plies (Black's, White's)."""
    value = node.get("eval")
    if value is None:
        return None
    if not isinstance(value, dict):
        raise BadRequest("a node's 'eval' must be an object {score, win, table_plies}")
    plies, score, depth = value.get("table_plies"), value.get("score"), node.get("depth")
    if isinstance(plies, int) and not isinstance(plies, bool):
        text = f"eval #{plies}"
    elif isinstance(score, int) and not isinstance(score, bool) and abs(score) < 100_000:
        text = f"eval {score / 100:+.2f}"
    else:
        raise BadRequest("a node's 'eval' needs a whole 'score' or 'table_plies'")
    if isinstance(depth, int) and not isinstance(depth, bool) and 0 < depth <= MAX_PLY:  # no search goes deeper
        text += f", depth {depth}"
    return text


class _TreeReader:
    """The board's tree replayed into PDN lines, checking every move and the tree's size."""

    def __init__(self) -> None:
        self.moves = 0

    def children(self, node: object, nesting: int) -> list[dict[str, Any]]:
        if not isinstance(node, dict):
            raise BadRequest("every node of the 'tree' must be an object {move, eval, depth, children}")
        if nesting > MAX_TREE_DEPTH:
            raise BadRequest(f"the 'tree' nests variations more than {MAX_TREE_DEPTH} deep")
        unknown = set(node) - {"move", "eval", "depth", "children"}
        if unknown:
            raise BadRequest(f"unknown field(s) of a tree node: {', '.join(sorted(map(str, unknown)))[:200]}")
        children = node.get("children", [])
        if not isinstance(children, list) or not all(isinstance(child, dict) for child in children):
            raise BadRequest("a node's 'children' must be a list of nodes")
        self.moves += len(children)
        if self.moves > MAX_TREE_MOVES:
            raise BadRequest(f"the 'tree' holds more than {MAX_TREE_MOVES} moves", 413)
        return children

    def line(self, game: Game, first: dict[str, Any], nesting: int) -> PdnVariation:
        """The line that begins with ``first`` (a child of ``game``'s position) and follows first
        children; the other children along it become its variations."""
        moves: list[str] = []
        comments: list[tuple[int, str]] = []
        variations: list[tuple[int, PdnVariation]] = []
        node: dict[str, Any] = first
        while True:
            text = node.get("move")
            if not isinstance(text, str):
                raise BadRequest("every node of the 'tree' but the root needs its 'move' as text, such as 11-15")
            moves.append(str(game.push(text)))
            comment = _eval_comment(node)
            if comment:
                comments.append((len(moves), comment))
            children = self.children(node, nesting)
            if not children:
                return PdnVariation(moves, comments, variations)
            for other in children[1:]:
                branch = Game(game.setup, [*game.moves])
                variations.append((len(moves), self.line(branch, other, nesting + 1)))
            node = children[0]


def tree_pdn(fen: str, tree: object) -> str:
    """The board's ``tree`` from ``fen`` as PDN text (see the module docstring)."""
    game = position(fen)
    reader = _TreeReader()
    children = reader.children(tree, 0)
    pdn: PdnGame = game_to_pdn_game(game)
    assert isinstance(tree, dict)
    comment = _eval_comment(tree)
    if comment:
        pdn.comments.append((0, comment))
    if children:
        main = reader.line(Game(game.setup), children[0], 1)
        pdn.moves, pdn.variations = main.moves, [(0, reader.line(Game(game.setup), other, 1)) for other in children[1:]]
        pdn.comments += main.comments
        pdn.variations += main.variations
    return format_game(pdn)


async def export_pdn(request: Request) -> JSONResponse:
    """The board's moves and variations as PDN with the engine's evals as comments."""
    data = await read_json(request)
    only_fields(data, {"fen", "tree"})
    return JSONResponse({"pdn": tree_pdn(_fen(data), data.get("tree", {}))})


ROUTES = [
    Route("/api/analyse", analyse, methods=["POST"]),
    Route("/api/analysis/pdn", export_pdn, methods=["POST"]),
]


async def _warm(engine: ReviewEngine, workers: int) -> None:
    """A shallow analysis in each worker as the server starts: a worker's first lines otherwise
    pay for loading what the analysis uses beyond the computer's moves (a tenth of a second or
    more on a busy machine), and the board's first lines are due within 0.3 s."""
    await asyncio.gather(*(engine.run(lines_at, START_FEN, WARM_DEPTH) for _ in range(workers)))


def extension(settings: Settings) -> Extension:
    """The analysis board's routes, its streams' registry and its workers' warm-up, as a part of the app."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.analysis_visitors = Visitors(app.state.engine_slots)  # shared with reviews (kingme.server.review)
        warming = asyncio.create_task(_warm(app.state.engine, settings.engine_workers))
        try:
            yield
        finally:
            warming.cancel()

    return Extension("analysis", ROUTES, lifespan)

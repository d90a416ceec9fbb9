"""The JSON API of one-device games: the browser sends a game record, the server answers with state.

Every endpoint takes a JSON object and answers a JSON object. Bad input — a body that is not
JSON, a missing or mistyped field, an illegal move, an unknown level, an undo the rules refuse —
gets a 4xx answer ``{"error": message, "code": code}`` naming the problem (see ``edge``); the
rules core's ``KingmeError`` messages are passed on as they are. Engine work is awaited from the pool, never run here.
"""

from __future__ import annotations

from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from kingme.daily.daily_game import refuse_in_daily
from kingme.engine.levels import LEVELS, check_level
from kingme.game import DEFAULT_SEED, POSITIONS, UNDO_LIMIT, Game, Setup
from kingme.game.pdn import game_to_pdn, games_from_pdn
from kingme.game.setup import MAX_SEED_LENGTH
from kingme.rules import VARIANTS, KingmeError
from kingme.server import edge
from kingme.server.edge import BadRequest, only_fields, read_json, refusal
from kingme.server.state import game_state

#: The longest PDN or FEN text accepted for import.
MAX_IMPORT_CHARS = 200_000


class Engine(Protocol):
    """What the API needs from the engine: ``kingme.engine.pool.EnginePool`` or a test double."""

    async def choose_move(self, record: dict[str, Any], level: str) -> str: ...

    async def hint(self, record: dict[str, Any]) -> str: ...

    def close(self) -> None: ...


def _game(data: dict[str, Any]) -> Game:
    if "record" not in data:
        raise BadRequest("the request needs a 'record': the game's setup and moves")
    return Game.from_record(data["record"])


def _level(data: dict[str, Any]) -> str:
    """The request's level, checked by the engine's own ``check_level``; a bad one is a bad
    field of the request (400), not a position the rules refuse (422)."""
    try:
        return check_level(data.get("level"))
    except KingmeError as error:
        raise BadRequest(str(error)) from None


def _playable(game: Game) -> None:
    if game.is_over:
        raise BadRequest("the game is over; there is no move to play", 409)


def _engine(request: Request) -> Engine:
    engine: Engine = request.app.state.engine
    return engine


async def info(request: Request) -> JSONResponse:
    """What a setup may contain: levels, variants, named positions and the seed rules."""
    return JSONResponse(
        {
            "levels": list(LEVELS),
            "variants": list(VARIANTS),
            "positions": POSITIONS,
            "defaultSeed": DEFAULT_SEED,
            "maxSeedLength": MAX_SEED_LENGTH,
            "undoLimit": UNDO_LIMIT,
            "engineReady": bool(getattr(request.app.state, "engine_ready", False)),
        }
    )


async def state(request: Request) -> JSONResponse:
    """The whole state of the game in ``record`` (checking every move)."""
    data = await read_json(request)
    only_fields(data, {"record"})
    return JSONResponse(game_state(_game(data)))


async def computer(request: Request) -> JSONResponse:
    """The computer's move for the side to move at ``level``, and the state after it."""
    data = await read_json(request)
    only_fields(data, {"record", "level"})
    game, level = _game(data), _level(data)
    refuse_in_daily(game.setup, "computer", level)
    _playable(game)
    move = await _engine(request).choose_move(game.record(), level)
    played = game.push(move)
    return JSONResponse({"move": str(played), "state": game_state(game)})


async def hint(request: Request) -> JSONResponse:
    """A suggested move (its whole route) for the side to move; the game is not changed."""
    data = await read_json(request)
    only_fields(data, {"record"})
    game = _game(data)
    refuse_in_daily(game.setup, "hint")
    _playable(game)
    text = await _engine(request).hint(game.record())
    move = game.board.parse_move(text)
    return JSONResponse({"move": str(move), "path": list(move.path), "captures": list(move.captures)})


async def undo(request: Request) -> JSONResponse:
    """The state after taking back ``turns`` whole turns, as far as the rules allow."""
    data = await read_json(request)
    only_fields(data, {"record", "turns"})
    turns = data.get("turns", 1)
    if not isinstance(turns, int) or isinstance(turns, bool) or not 1 <= turns <= 2:
        raise BadRequest("'turns' must be 1 (your last turn) or 2 (your turn and the computer's reply)")
    game = _game(data)
    refuse_in_daily(game.setup, "undo")
    for _ in range(turns):
        game.undo()
    return JSONResponse(game_state(game))


async def start(request: Request) -> JSONResponse:
    """The state of a new game from a setup: ``{variant, position | fen, seed}``."""
    data = await read_json(request)
    only_fields(data, {"setup"})
    game = Game(Setup.from_dict(data.get("setup", {})))
    return JSONResponse(game_state(game))


def _tags(data: dict[str, Any]) -> dict[str, str]:
    tags = data.get("tags", {})
    if not isinstance(tags, dict) or len(tags) > 20:
        raise BadRequest("'tags' must be an object of at most 20 PDN tags")
    for name, value in tags.items():
        if not isinstance(value, str) or len(value) > 200:
            raise BadRequest(f"the PDN tag {str(name)[:40]!r} must be text of at most 200 characters")
    return tags


async def export_pdn(request: Request) -> JSONResponse:
    """The game as PDN text, with ``tags`` (Event, Black, White, Date...) added."""
    data = await read_json(request)
    only_fields(data, {"record", "tags"})
    game, tags = _game(data), _tags(data)
    return JSONResponse({"pdn": game_to_pdn(game, tags)})


async def import_game(request: Request) -> JSONResponse:
    """The state of the game in pasted ``text``: a PDN game (its first game) or a FEN position."""
    data = await read_json(request)
    only_fields(data, {"text", "variant", "seed"})
    text = data.get("text")
    if not isinstance(text, str) or not text.strip():
        raise BadRequest("paste a PDN game or a FEN position such as B:W18,24:B12,16 in 'text'")
    if len(text) > MAX_IMPORT_CHARS:
        raise BadRequest(f"the pasted text must be at most {MAX_IMPORT_CHARS} characters", 413)
    stripped = text.strip()
    if stripped[:2].upper() in ("B:", "W:") and "\n" not in stripped:
        setup = {"fen": stripped, "variant": data.get("variant", "american"), "seed": data.get("seed", DEFAULT_SEED)}
        return JSONResponse(game_state(Game(Setup.from_dict(setup))))
    # A text without a game raises PdnError (422) in the reader, so there is always a first game.
    return JSONResponse(game_state(games_from_pdn(text)[0]))


ROUTES = [
    Route("/api/info", info, methods=["GET"]),
    Route("/api/start", start, methods=["POST"]),
    Route("/api/state", state, methods=["POST"]),
    Route("/api/computer", computer, methods=["POST"]),
    Route("/api/hint", hint, methods=["POST"]),
    Route("/api/undo", undo, methods=["POST"]),
    Route("/api/pdn/export", export_pdn, methods=["POST"]),
    Route("/api/pdn/import", import_game, methods=["POST"]),
]


async def rules_refusal(request: Request, error: Exception) -> JSONResponse:
    """The rules core's ``KingmeError`` (a bad record, move, FEN or setup): 422 with its message."""
    return refusal(422, "refused_by_rules", str(error))


EXCEPTION_HANDLERS = {**edge.EXCEPTION_HANDLERS, KingmeError: rules_refusal}

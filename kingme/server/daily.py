"""HTTP routes of the daily game and the puzzles.

The daily game is an ordinary one-device game (the browser plays it through ``/api/computer``)
whose setup comes from ``/api/daily/game``; the game API refuses takebacks, hints and other
levels for it with ``kingme.daily.daily_game.refuse_in_daily``. Puzzles are stateless like games: the
browser sends how many plies of the solution are on the board and its move, and the answer says
whether it was right, with the defender's reply from the solution line. The solution itself is
never sent, only the next move when a hint is asked for.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from kingme.daily.daily_game import daily_game, parse_day, utc_today
from kingme.daily.puzzles import Collection, Puzzle, PuzzleError, stored_collection
from kingme.daily.puzzles.collection import FIRST_DAY, MAX_ARCHIVE_DAYS
from kingme.daily.puzzles.solving import attempt, expected_move
from kingme.game import Game, Setup
from kingme.server.edge import BadRequest, only_fields, read_json
from kingme.server.extension import Extension
from kingme.server.settings import Settings
from kingme.server.state import game_state


def _collection(request: Request) -> Collection:
    return getattr(request.app.state, "puzzles", None) or stored_collection()


def _today(request: Request) -> date:
    return getattr(request.app.state, "today", None) or utc_today()


def _day(request: Request) -> date:
    """The ``date`` query parameter (today by default); a future day is refused."""
    today = _today(request)
    text = request.query_params.get("date")
    if text is None:
        return today
    day = parse_day(text)
    if day > today:
        raise BadRequest(f"{day.isoformat()} has not come yet (today is {today.isoformat()} UTC)", 404)
    return day


def _puzzle(request: Request) -> Puzzle:
    try:
        return _collection(request).get(request.path_params["puzzle_id"])
    except PuzzleError as error:
        raise BadRequest(str(error), 404) from None


def _position(puzzle: Puzzle, ply: int) -> dict[str, Any]:
    """The game state with the first ``ply`` moves of the solution played."""
    game = Game(Setup("american", puzzle.fen, f"puzzle-{puzzle.id}"), list(puzzle.solution[:ply]))
    return game_state(game)


def _view(puzzle: Puzzle, day: date | None = None) -> dict[str, Any]:
    """What the browser may know of a puzzle: everything but the solution."""
    return {
        "id": puzzle.id,
        "date": day.isoformat() if day else None,
        "title": puzzle.title,
        "source": puzzle.source,
        "difficulty": puzzle.difficulty,
        "fen": puzzle.fen,
        "solver": puzzle.side_to_move,
        "solverMoves": puzzle.solver_moves,
        "plies": len(puzzle.solution),
        "state": _position(puzzle, 0),
    }


async def daily_game_setup(request: Request) -> JSONResponse:
    """The day's game: date, the player's colour, the level, the setup and its first state."""
    daily = daily_game(_day(request))
    return JSONResponse({**daily.to_dict(), "state": game_state(Game(daily.setup))})


async def daily_puzzle(request: Request) -> JSONResponse:
    """The puzzle of the day (today's by default)."""
    day = _day(request)
    try:
        puzzle = _collection(request).of_the_day(day)
    except PuzzleError as error:
        raise BadRequest(str(error), 404) from None
    return JSONResponse(_view(puzzle, day))


async def archive(request: Request) -> JSONResponse:
    """The puzzles of past days, newest first: ``?days=N`` (1-366, default 30) up to ``?date=``."""
    text = request.query_params.get("days", "30")
    if not text.isdigit() or not 1 <= int(text) <= MAX_ARCHIVE_DAYS:
        raise BadRequest(f"days must be a whole number from 1 to {MAX_ARCHIVE_DAYS}, not {text[:20]!r}")
    entries = _collection(request).archive(_day(request), int(text))
    return JSONResponse(
        {
            "first": FIRST_DAY.isoformat(),
            "days": [
                {"date": day.isoformat(), "id": p.id, "title": p.title, "difficulty": p.difficulty}
                for day, p in entries
            ],
        }
    )


async def puzzle_by_id(request: Request) -> JSONResponse:
    """Any puzzle of the collection by its id."""
    return JSONResponse(_view(_puzzle(request)))


async def _ply(request: Request, fields: set[str]) -> tuple[dict[str, Any], int]:
    data = await read_json(request)
    only_fields(data, fields)
    return data, data.get("ply", 0)


async def puzzle_move(request: Request) -> JSONResponse:
    """Check the solver's ``move`` at ``ply``; a right move comes back with the defender's reply."""
    puzzle = _puzzle(request)
    data, ply = await _ply(request, {"ply", "move"})
    if "move" not in data:
        raise BadRequest("the request needs a 'move', such as '11-15' or '9x18x27'")
    result = attempt(puzzle, ply, data["move"])
    return JSONResponse(
        {
            "correct": result.correct,
            "other_win": result.other_win,
            "move": result.move,
            "reply": result.reply,
            "ply": result.ply,
            "solved": result.solved,
            "state": _position(puzzle, result.ply),
        }
    )


async def puzzle_hint(request: Request) -> JSONResponse:
    """The solver's next move of the solution at ``ply``, with its route; nothing is played."""
    puzzle = _puzzle(request)
    _, ply = await _ply(request, {"ply"})
    move = expected_move(puzzle, ply)
    return JSONResponse({"move": str(move), "path": list(move.path), "captures": list(move.captures)})


ROUTES = [
    Route("/api/daily/game", daily_game_setup, methods=["GET"]),
    Route("/api/daily/puzzle", daily_puzzle, methods=["GET"]),
    Route("/api/puzzles/archive", archive, methods=["GET"]),
    Route("/api/puzzles/{puzzle_id}", puzzle_by_id, methods=["GET"]),
    Route("/api/puzzles/{puzzle_id}/move", puzzle_move, methods=["POST"]),
    Route("/api/puzzles/{puzzle_id}/hint", puzzle_hint, methods=["POST"]),
]


def extension(settings: Settings) -> Extension:
    """The daily game and puzzle routes, as a part of the app (``kingme.server.app.EXTENSIONS``)."""
    return Extension("daily", ROUTES)

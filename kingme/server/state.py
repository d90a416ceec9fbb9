"""The whole state of a one-device game, as the browser needs it after every turn.

One-device games are stateless on the server: the browser keeps the record and sends it, the
server rebuilds the game with the rules core and answers with everything the page draws. The
browser never decides legality itself — it only picks among the routes listed here.
"""

from __future__ import annotations

from typing import Any

from kingme.game import Game
from kingme.rules.board import Color, opponent
from kingme.rules.move import Move


def _route(game: Game, move: Move) -> dict[str, Any]:
    return {
        "notation": str(move),
        "path": list(move.path),
        "captures": list(move.captures),
        "crowns": game.board.is_crowning(move),
    }


def history_row(color: Color, move: Move, crown: bool) -> dict[str, Any]:
    """One turn as the page's move list reads it: colour, notation, full route, captured
    squares, whether it crowned. The route and captures are the move's own tuples, written as
    the same JSON arrays as lists: an online room keeps a row per move of its game, and each
    list more would be one object more per move for the garbage collector to walk."""
    return {"color": color, "move": str(move), "path": move.path, "captures": move.captures, "crown": crown}


def turn_row(color: Color, move: Move, crown: bool) -> dict[str, Any]:
    """``history_row`` with lists, as an online ``move`` event carries it (its route is
    compared with a client's list of squares)."""
    return history_row(color, move, crown) | {"path": list(move.path), "captures": list(move.captures)}


def history(game: Game) -> list[dict[str, Any]]:
    """Every turn played (``history_row`` each), oldest first. Colours are counted back from the
    side to move (an even number of plies ago it was the same side), so a setup with White to
    move needs no special case."""
    plies = len(game.moves)
    return [
        history_row(game.turn if (plies - ply) % 2 == 0 else opponent(game.turn), move, crown)
        for ply, (move, crown) in enumerate(zip(game.moves, game.crowned, strict=True))
    ]


def game_state(game: Game, rows: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Board, side to move, legal routes, result and history of ``game`` as plain data.

    ``rows``: the game's ``history``, when the caller keeps it as moves are played and taken
    back (an online room does: its state is sent after every event, and building every turn's
    row again each time grew with the length of the game)."""
    board = game.board
    result = game.result
    legal = game.legal_moves()
    return {
        "record": game.record(),
        "fen": board.fen(),
        "variant": game.setup.variant,
        "standard": game.setup.is_standard,
        "board": {str(square): {"color": piece.color, "kind": piece.kind} for square, piece in board.pieces().items()},
        "counts": {"black": board.count("black"), "white": board.count("white")},
        "turn": board.turn,
        "moves": [_route(game, move) for move in legal],
        "capturable": sorted({square for move in legal for square in move.captures}),
        "captureRequired": bool(legal) and board.is_capture_required(),
        "result": result.to_dict() if result else None,
        "steps": game.steps,
        "history": history(game) if rows is None else list(rows),
        "undoable": game.undoable,
    }

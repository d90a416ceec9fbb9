"""The whole state of a one-device game, as the browser needs it after every turn.

One-device games are stateless on the server: the browser keeps the record and sends it, the
server rebuilds the game with the rules core and answers with everything the page draws. The
browser never decides legality itself — it only picks among the routes listed here.
"""

from __future__ import annotations

from typing import Any

from kingme.game import Game
from kingme.rules.move import Move


def _route(game: Game, move: Move) -> dict[str, Any]:
    return {
        "notation": str(move),
        "path": list(move.path),
        "captures": list(move.captures),
        "crowns": game.board.is_crowning(move),
    }


def game_state(game: Game) -> dict[str, Any]:
    """Board, side to move, legal routes, result and history of ``game`` as plain data."""
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
        "history": game.history(),
        "undoable": game.undoable,
    }

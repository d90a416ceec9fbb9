"""kingme: a self-hostable checkers platform (American checkers / English draughts).

The public API for scripts and tools:

>>> import kingme
>>> board = kingme.Board()
>>> len(board.legal_moves())
7

The names are imported on first use (PEP 562), so that ``import kingme`` alone, which every
``kingme`` command does, costs nothing: ``kingme --version`` needs neither the rules nor a game.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kingme.game import Game, Result, Setup
    from kingme.rules import BLACK, WHITE, Board, KingmeError, Move, Piece

__version__ = "0.1.0"
__all__ = ["BLACK", "WHITE", "Board", "Game", "KingmeError", "Move", "Piece", "Result", "Setup", "__version__"]

#: The layer each public name comes from.
_HOMES = {
    **dict.fromkeys(("Game", "Result", "Setup"), "kingme.game"),
    **dict.fromkeys(("BLACK", "WHITE", "Board", "KingmeError", "Move", "Piece"), "kingme.rules"),
}


def __getattr__(name: str) -> Any:
    """Import a public name on first use and keep it, so the next use is a plain lookup."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

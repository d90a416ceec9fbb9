"""The computer player: six levels, hints and repeatable replies.

>>> import kingme, kingme.engine
>>> game = kingme.Game()
>>> kingme.engine.choose_move(game, "random") in game.legal_moves()
True

The names below are imported when first used (PEP 562), not with the package: the player
compiles its core with numba, which takes about half a second to import, and a module that
needs only ``kingme.engine.levels`` or the move generator should not pay for it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kingme.engine import pool
    from kingme.engine.levels import LEVELS
    from kingme.engine.player import choose_move, hint, warm_up

__all__ = ["LEVELS", "choose_move", "hint", "pool", "warm_up"]

#: Where each public name lives: a module of this package, or the module itself.
_HOMES = {
    "LEVELS": "kingme.engine.levels",
    "choose_move": "kingme.engine.player",
    "hint": "kingme.engine.player",
    "warm_up": "kingme.engine.player",
}


def __getattr__(name: str) -> Any:
    """Import a public name on first use and keep it, so the next use is a plain lookup."""
    if name == "pool":
        value: Any = importlib.import_module("kingme.engine.pool")
    elif name in _HOMES:
        value = getattr(importlib.import_module(_HOMES[name]), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

"""The errors the rules core raises for bad input.

Every one is a ``ValueError`` whose message names what was wrong, so callers at the edges
(HTTP, WebSocket, command line) can show it as it is.
"""

from __future__ import annotations


class KingmeError(ValueError):
    """Base class: input that the rules core refuses."""


class FenError(KingmeError):
    """A position in FEN that cannot be read or cannot exist."""


class VariantError(KingmeError):
    """An unknown rules variant."""


class IllegalMoveError(KingmeError):
    """A move that is not legal in the position, or text that names no move."""


class AmbiguousMoveError(IllegalMoveError):
    """Short move text that matches more than one legal move."""


class PdnError(KingmeError):
    """PDN text that cannot be read."""


class GameOverError(KingmeError):
    """An action that needs an unfinished game."""


class UndoError(KingmeError):
    """An undo that cannot be done (nothing to undo, game over, or the limit reached)."""

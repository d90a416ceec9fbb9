"""The rules of checkers: board, moves, variants, notation. Nothing else in kingme knows them."""

from kingme.rules.board import BLACK, WHITE, Board, Color, Piece, opponent
from kingme.rules.errors import (
    AmbiguousMoveError,
    FenError,
    GameOverError,
    IllegalMoveError,
    KingmeError,
    PdnError,
    UndoError,
    VariantError,
)
from kingme.rules.fen import START_FEN
from kingme.rules.move import Move
from kingme.rules.variants import VARIANTS, Variant, get_variant

__all__ = [
    "BLACK",
    "START_FEN",
    "VARIANTS",
    "WHITE",
    "AmbiguousMoveError",
    "Board",
    "Color",
    "FenError",
    "GameOverError",
    "IllegalMoveError",
    "KingmeError",
    "Move",
    "PdnError",
    "Piece",
    "UndoError",
    "Variant",
    "VariantError",
    "get_variant",
    "opponent",
]

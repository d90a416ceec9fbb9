"""A whole game: setup, moves, undo, the end-of-game rules and results."""

from kingme.game.game import MAX_RECORD_MOVES, NO_PROGRESS_PLIES, UNDO_LIMIT, Game
from kingme.game.result import REASONS, Result
from kingme.game.setup import DEFAULT_SEED, DOUBLE_JUMP_FEN, POSITIONS, Setup, SetupError, clean_seed

__all__ = [
    "DEFAULT_SEED",
    "DOUBLE_JUMP_FEN",
    "MAX_RECORD_MOVES",
    "NO_PROGRESS_PLIES",
    "POSITIONS",
    "REASONS",
    "UNDO_LIMIT",
    "Game",
    "Result",
    "Setup",
    "SetupError",
    "clean_seed",
]

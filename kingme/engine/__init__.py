"""The computer player: six levels, hints and repeatable replies.

>>> import kingme, kingme.engine
>>> game = kingme.Game()
>>> kingme.engine.choose_move(game, "random") in game.legal_moves()
True
"""

from kingme.engine import pool
from kingme.engine.levels import LEVELS
from kingme.engine.player import choose_move, hint, warm_up

__all__ = ["LEVELS", "choose_move", "hint", "pool", "warm_up"]

"""kingme: a self-hostable checkers platform (American checkers / English draughts).

The public API for scripts and tools:

>>> import kingme
>>> board = kingme.Board()
>>> len(board.legal_moves())
7
"""

from kingme.game import Game, Result, Setup
from kingme.rules import BLACK, WHITE, Board, KingmeError, Move, Piece

__version__ = "0.1.0"
__all__ = ["BLACK", "WHITE", "Board", "Game", "KingmeError", "Move", "Piece", "Result", "Setup", "__version__"]

"""Puzzles: a position, the side to move and one winning line.

``collection`` holds the stored collection, the puzzle of the day and the archive; ``analysis``
scores every root move with the engine's search; ``generator`` finds new puzzles in engine
games, ``endings`` in the endgame tables, and ``verifier`` re-solves stored ones; ``classics``
holds the published positions.
"""

from kingme.daily.puzzles.collection import FIRST_DAY, Collection, stored_collection
from kingme.daily.puzzles.model import DIFFICULTIES, Puzzle, PuzzleError

__all__ = ["DIFFICULTIES", "FIRST_DAY", "Collection", "Puzzle", "PuzzleError", "stored_collection"]

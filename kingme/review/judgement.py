"""Judging moves by the win chance they lose: verdicts, a move's accuracy, a side's accuracy.

The definitions are lichess's (``docs/review.md`` gives the sources and the arguments):

* a move's *loss* is how many points of win chance (``kingme.review.winchance``) its mover had
  before it and no longer has after it; the engine's own move loses nothing, whatever the two
  searches' horizons make of it;
* a loss of 5, 10 or 15 points is an inaccuracy, a mistake or a blunder. Checkers is drawish, so
  most positions sit near 50: there, at the fitted scale, a man thrown away in a level middlegame
  loses about 7.5 points (the engine's own games a man down are still drawn five times in six),
  two men a blunder; turning a certain draw into a certain loss (50 points) is always one;
* a move's accuracy falls exponentially with its loss, from 100 (nothing lost) to 0 (about 89
  points: a won game thrown away);
* a side's accuracy over a game is the mean of two means of its move accuracies: one weighted by
  how much the game was swinging around each move (a slip in a quiet position counts less than
  one in a sharp fight) and the harmonic one (one bad move pulls it down hard).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

#: Points of win chance lost that make a move an inaccuracy, a mistake, a blunder (lichess's
#: 0.1 / 0.2 / 0.3 on its −1…+1 scale).
INACCURACY = 5.0
MISTAKE = 10.0
BLUNDER = 15.0
#: The verdicts, gravest first, with the loss each needs.
VERDICTS = (("blunder", BLUNDER), ("mistake", MISTAKE), ("inaccuracy", INACCURACY))

#: lichess's move-accuracy curve, ``A · exp(−k · loss) − B``: fitted there so that no loss is
#: 100 (with the +1 lichess adds) and the accuracy reaches 0 near a loss of 89 points.
ACCURACY_A = 103.1668
ACCURACY_K = 0.04354
ACCURACY_B = 3.1669 - 1.0
#: Each move's accuracy counts at least this much in the harmonic mean: one move of accuracy 0
#: would otherwise make the whole game's 0, whatever the other moves were (lichess does the same).
HARMONIC_FLOOR = 1.0
#: The game's swings are measured over windows of a tenth of its plies, at least 2 and at most 8.
WINDOW_LEAST, WINDOW_MOST = 2, 8
#: A move's weight is the standard deviation of win chance over its window, within these bounds:
#: the quietest stretch still counts, the wildest counts no more than 24 times as much.
WEIGHT_LEAST, WEIGHT_MOST = 0.5, 12.0


def verdict(loss: float) -> str | None:
    """``"blunder"``, ``"mistake"``, ``"inaccuracy"`` for a move losing ``loss`` points, else ``None``.

    >>> verdict(4.9), verdict(5.0), verdict(12.0), verdict(50.0)
    (None, 'inaccuracy', 'mistake', 'blunder')
    """
    return next((name for name, least in VERDICTS if loss >= least), None)


def move_accuracy(loss: float) -> float:
    """A move's accuracy (0…100) from the points of win chance it lost.

    >>> move_accuracy(0.0), round(move_accuracy(10.0), 1), move_accuracy(95.0)
    (100.0, 64.6, 0.0)
    """
    return max(0.0, min(100.0, ACCURACY_A * math.exp(-ACCURACY_K * max(0.0, loss)) - ACCURACY_B))


def volatility_weights(wins: Sequence[float]) -> list[float]:
    """One weight per move from the win chances of a game's positions (its start, then after each
    move; any one side's view): the standard deviation of win chance over the window of positions
    that ends at the move — the first moves share the first window — within the bounds."""
    moves = len(wins) - 1
    if moves < 1:
        return []
    size = max(WINDOW_LEAST, min(WINDOW_MOST, moves // 10))  # never more than the moves + 1 positions
    windows = [wins[:size]] * (size - 2) + [wins[i : i + size] for i in range(moves + 2 - size)]
    return [max(WEIGHT_LEAST, min(WEIGHT_MOST, statistics.pstdev(window))) for window in windows]


def side_accuracy(accuracies: Sequence[float], weights: Sequence[float]) -> float | None:
    """A side's accuracy over a game from its judged moves' accuracies and their weights: the
    mean of the weighted mean and the harmonic mean; ``None`` when it has no judged move.

    >>> side_accuracy([100.0, 100.0], [1.0, 3.0])
    100.0
    >>> round(side_accuracy([100.0, 0.0], [1.0, 1.0]), 2)  # weighted 50, harmonic 1.98
    25.99
    """
    if not accuracies:
        return None
    weighted = sum(a * w for a, w in zip(accuracies, weights, strict=True)) / sum(weights)
    harmonic = len(accuracies) / sum(1.0 / max(HARMONIC_FLOOR, a) for a in accuracies)
    return (weighted + harmonic) / 2

"""Win chance: an engine score turned into what a player can read — the expected score in percent.

A score in hundredths of a man says little by itself: a third of a man matters in a level
position and nothing in a won one. The review judges moves by what they cost in *expected
score* instead — the side to move's chance of winning, a draw counting half, from 0 to 100 —
as lichess does with its win percentage (``docs/review.md``). The curve is the logistic one:

    win_chance(score) = 100 / (1 + exp(-score / WIN_SCALE))

``WIN_SCALE`` is the hundredths of a man a logit that make the engine's own scores the best
predictor of its own games' results (``docs/review.md`` records the fit). Wins and losses that
are certain — found in the endgame tables or seen to the end of the game by the search — are
100 and 0, whatever the score that carries them.
"""

from __future__ import annotations

import math

from kingme.engine.search import DATABASE_WIN

#: Hundredths of a man a logit of expected score: 511, fitted by logistic regression of the
#: results of 960 self-play games at 40,000 nodes a move (a draw ½) on the search scores of their
#: 91,246 searched positions (``docs/review.md``, *The win-chance scale*), rounded. The engine
#: scores a clean extra man in the opening about 155: 57.5% by this curve, 57.6% in those games (a score of 120 … 200).
WIN_SCALE = 510.0
#: Scores from here on are certain results, not evaluations: a win in the endgame tables scores
#: ``DATABASE_WIN`` less its plies and a win the search sees to the end ``MATE`` less its plies,
#: while no evaluation comes near a hundred men (all 24 pieces kinged are a few thousand).
DECIDED_SCORE = DATABASE_WIN // 2


def is_decided(score: int) -> bool:
    """Whether ``score`` is a certain win or loss (tables or a search to the end), not an estimate."""
    return abs(score) >= DECIDED_SCORE


def win_chance(score: int) -> float:
    """The side to move's expected score in percent (0…100) from its engine ``score``.

    >>> win_chance(0)
    50.0
    >>> round(win_chance(100), 1), round(win_chance(-100), 1)
    (54.9, 45.1)
    >>> win_chance(DATABASE_WIN - 7), win_chance(7 - DATABASE_WIN)
    (100.0, 0.0)
    """
    if is_decided(score):
        return 100.0 if score > 0 else 0.0
    return 100.0 / (1.0 + math.exp(-score / WIN_SCALE))

"""The ladder of computer levels, weakest first, and the search budget of each.

Strength comes from three knobs, all deterministic: how deep and how many nodes the search may
look (budgets in nodes, never time), how much of the evaluation it uses, and root noise — a
seeded random offset added to each root move's score, so that a weaker level sometimes prefers
a worse move the way a person would (a small offset only confuses moves of nearly equal value,
a large one drops pieces).

| level | look-ahead | evaluation | mistakes |
|---|---|---|---|
| random | none | none | any legal move, uniformly |
| beginner | its move and the reply, no capture extension | material and squares | noise ±60: often blunders |
| casual | 3 plies + captures to the end | material and squares | noise ±40 |
| club | 6 plies + captures, 100k nodes | network | noise ±12, a slip of ±45 one move in 8 |
| strong | up to 14 plies, 100k nodes, endgame tables | network | none |
| master | up to 60 plies, 4M nodes, endgame tables, opening book | network | none |
"""

from __future__ import annotations

from dataclasses import dataclass

from kingme.rules import KingmeError

LEVELS = ("random", "beginner", "casual", "club", "strong", "master")


@dataclass(frozen=True)
class Plan:
    """How a level searches: ``noise`` is the root-noise amplitude in hundredths of a man;
    with probability ``slip_chance`` a move is searched with amplitude ``slip_noise`` instead;
    with ``endings`` the endgame tables decide wherever they hold the position, with ``book`` the
    opening book wherever it holds the position (``kingme.engine.book``)."""

    depth: int
    nodes: int
    noise: int = 0
    full_eval: bool = True
    quiescence: bool = True
    slip_chance: float = 0.0
    slip_noise: int = 0
    table_bits: int = 20
    endings: bool = False
    book: bool = False


PLANS: dict[str, Plan] = {
    "beginner": Plan(depth=2, nodes=5_000, noise=60, full_eval=False, quiescence=False, table_bits=10),
    "casual": Plan(depth=3, nodes=30_000, noise=40, full_eval=False, table_bits=14),
    "club": Plan(depth=6, nodes=100_000, noise=12, slip_chance=0.125, slip_noise=45, table_bits=17),
    # Strong reads a fortieth of master's nodes and plays no book: with master's book and 250k
    # nodes it drew so often with master that the ladder's 70% step failed (docs/strength.md, *The ladder*).
    "strong": Plan(depth=14, nodes=100_000, table_bits=18, endings=True),
    "master": Plan(depth=60, nodes=4_000_000, table_bits=21, endings=True, book=True),
}


def check_level(level: object) -> str:
    """``level`` if it is one of ``LEVELS``; otherwise a ``KingmeError`` listing them."""
    if not isinstance(level, str) or level not in LEVELS:
        raise KingmeError(f"unknown level {str(level)[:40]!r}; choose one of: {', '.join(LEVELS)}")
    return level

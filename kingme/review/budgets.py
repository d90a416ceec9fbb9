"""How much a review searches each position (``BUDGETS``), and the review layer's error.

A light module (no engine import), so the command line can offer the budgets in its options and
``--help`` without loading the compiled search.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kingme.rules import KingmeError


class ReviewError(KingmeError):
    """A game or a request the review cannot take: no moves, too long, an unknown budget, a ply
    the game does not have."""


@dataclass(frozen=True)
class Budget:
    """How much each position is searched: ``nodes`` and a transposition table of
    ``2 ** table_bits`` entries (more nodes want a larger table)."""

    name: str
    nodes: int
    table_bits: int

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "nodes": self.nodes}


#: ``standard``: 300,000 nodes, about 60 ms a position on an idle core of this machine, so one
#: worker reviews a 60-ply game in a few seconds (``kingme bench review``); three times the strong
#: level's budget, so it sees further than the computer most players meet. ``deep``: the master
#: level's 4,000,000 nodes, about a second a position.
BUDGETS = {budget.name: budget for budget in (Budget("standard", 300_000, 20), Budget("deep", 4_000_000, 21))}
DEFAULT_BUDGET = "standard"


def budget_named(name: object) -> Budget:
    """The budget called ``name``; ``ReviewError`` listing the budgets for any other."""
    if not isinstance(name, str) or name not in BUDGETS:
        raise ReviewError(f"unknown review budget {str(name)[:40]!r}; choose one of: {', '.join(BUDGETS)}")
    return BUDGETS[name]

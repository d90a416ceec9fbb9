"""``Result``: how a game ended, as data: the winner and a reason code.

The words for a reason belong to whoever shows it: the page translates ``reason`` itself
(``result.<reason>`` in its language files), so the core holds no sentences for people.
"""

from __future__ import annotations

from dataclasses import dataclass

from kingme.rules.board import Color, opponent

#: Reasons a game ends, checked in this order after each whole turn (resignation and agreement
#: come from the players, a loss on time from a clock kept outside the game, not from the position).
REASONS = ("no-pieces", "blocked", "repetition", "no-progress", "resignation", "agreement", "time")


@dataclass(frozen=True)
class Result:
    """``winner`` is ``"black"``, ``"white"`` or ``None`` for a draw; ``reason`` one of ``REASONS``."""

    winner: Color | None
    reason: str

    @property
    def loser(self) -> Color | None:
        return None if self.winner is None else opponent(self.winner)

    @property
    def pdn(self) -> str:
        """The PDN result token: ``1-0`` when Black wins, ``0-1`` when White wins, ``1/2-1/2``."""
        return {"black": "1-0", "white": "0-1", None: "1/2-1/2"}[self.winner]

    def to_dict(self) -> dict[str, str | None]:
        return {"winner": self.winner, "reason": self.reason}
